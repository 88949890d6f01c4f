import { describe, expect, it } from 'vitest';
import { contrast, rawInSheet, rawValues, report, tokenColours, type Finding } from './audit';
import { PALETTE } from '../lib/monogram';

// CSS files read as they are on disk (Vitest turns an imported .css into "").
const fs = (await import(/* @vite-ignore */ 'node:' + 'fs')) as { readFileSync(p: string, enc: string): string };
const tokensCss = fs.readFileSync('src/styles/tokens.css', 'utf8');
const appCss = fs.readFileSync('src/app.css', 'utf8');

// Every component's source, by its path under src/.
const sources = import.meta.glob('/src/**/*.svelte', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

/**
 * Components other parts of issue 29 are converting to tokens on their own
 * branches at the same time (branches shell, card, firstrun, settings,
 * defaults). Their findings are printed, not failed, until they are merged:
 * then this list must be empty (the second test fails on an entry that no
 * longer holds a raw value, so it only shrinks).
 */
const PENDING = new Set<string>([
  '/src/App.svelte',
  '/src/components/ChangesView.svelte',
  '/src/components/CommandPalette.svelte',
  '/src/components/Composer.svelte',
  '/src/components/KeymapHelp.svelte',
  '/src/components/PermissionCard.svelte',
  '/src/components/PermissionRequestView.svelte',
  '/src/components/RememberChoice.svelte',
  '/src/components/SearchDialog.svelte',
  '/src/components/Settings.svelte',
  '/src/components/SettingsAgents.svelte',
  '/src/components/SettingsRemembered.svelte',
  '/src/components/ThreadHeader.svelte',
  '/src/components/ThreadView.svelte',
  '/src/components/ToolCallCard.svelte',
]);

function findings(): Map<string, Finding[]> {
  const by = new Map<string, Finding[]>();
  for (const [file, src] of Object.entries(sources)) {
    const f = rawValues(file.replace(/^\//, ''), src);
    if (f.length) by.set(file, f);
  }
  return by;
}

describe('components use tokens only', () => {
  it('holds no raw colour or px value in a <style> or style attribute (file:line listed)', () => {
    const by = findings();
    const pending = [...by].filter(([f]) => PENDING.has(f)).flatMap(([, l]) => l);
    if (pending.length) console.warn(`Raw values in components still being converted on other branches:\n${report(pending)}`);
    const failing = [...by].filter(([f]) => !PENDING.has(f)).flatMap(([, l]) => l);
    expect(report(failing), 'use a var(--…) from src/styles/tokens.css instead').toBe('');
  });

  it('lists as pending only components that still hold raw values', () => {
    const by = findings();
    const clean = [...PENDING].filter((f) => sources[f] !== undefined && !by.has(f));
    expect(clean, 'converted: take these out of PENDING').toEqual([]);
  });

  it('keeps app.css on tokens too', () => {
    expect(report(rawInSheet('src/app.css', appCss, appCss, 0))).toBe('');
  });

  it('finds a planted raw colour or px value, with its line', () => {
    const planted = [
      '<script lang="ts">let x = "#fff";</script>',
      '<div style="color: #abcdef">a</div>',
      '<p style:margin-top="3px">b</p>',
      '<style>',
      '  .a { color: var(--fg); }',
      '  .b { background: rgb(0 0 0 / 0.5); }',
      '  .c:hover { border: 1px solid var(--border); }',
      '  .d { color: white; white-space: nowrap; }',
      '  /* .e { color: red; } */',
      '  @media (max-width: 700px) { .f { gap: var(--space-2); } }',
      '</style>',
    ].join('\n');
    expect(report(rawValues('X.svelte', planted))).toBe(
      [
        'X.svelte:2  hex colour #abcdef  (style="color: #abcdef")',
        'X.svelte:3  px value 3px  (style:margin-top="3px")',
        'X.svelte:6  rgb()  (background: rgb(0 0 0 / 0.5))',
        'X.svelte:7  px value 1px  (border: 1px solid var(--border))',
        'X.svelte:8  named colour white  (color: white)',
      ].join('\n'),
    );
  });
});

// WCAG AA: 4.5:1 for text, 3:1 for a non-text mark (a status dot, the focus ring).
const tokens = tokenColours(tokensCss);
const surfaces = ['--bg', '--bg-soft', '--bg-sunk', '--bg-raised', '--bg-hover', '--bg-selected'];
const textOnSurfaces = ['--fg', '--fg-soft', '--accent', '--danger', '--warn', '--ok'].flatMap((fg) =>
  surfaces.map((bg) => [fg, bg, 4.5] as const),
);
const pairs: (readonly [string, string, number])[] = [
  ...textOnSurfaces,
  ['--accent-fg', '--accent', 4.5],
  ['--accent', '--accent-soft', 4.5],
  ['--danger', '--danger-soft', 4.5],
  ['--warn', '--warn-soft', 4.5],
  ['--ok', '--ok-soft', 4.5],
  ['--fg', '--code-bg', 4.5],
  ['--fg', '--diff-add', 4.5],
  ['--fg', '--diff-del', 4.5],
  ...['--hl-keyword', '--hl-string', '--hl-comment', '--hl-number', '--hl-title', '--hl-type', '--hl-attr', '--hl-meta'].map(
    (t) => [t, '--code-bg', 4.5] as const,
  ),
  ...PALETTE.map((t) => ['--avatar-fg', t, 4.5] as const),
  ...['--status-running', '--status-needs-you', '--status-failed', '--status-idle', '--focus'].flatMap((t) =>
    ['--bg', '--bg-soft', '--bg-hover', '--bg-selected'].map((bg) => [t, bg, 3] as const),
  ),
];

describe('token colours pass WCAG AA in both schemes', () => {
  it('reads every colour token of a pair from tokens.css', () => {
    const missing = [...new Set(pairs.flat().filter((t): t is string => typeof t === 'string'))].filter((t) => !tokens.has(t));
    expect(missing).toEqual([]);
  });

  it.each(['light', 'dark'] as const)('%s: every text/background pair used', (scheme) => {
    const fails = pairs
      .map(([fg, bg, min]) => ({ fg, bg, min, ratio: contrast(tokens.get(fg)![scheme], tokens.get(bg)![scheme]) }))
      .filter((p) => p.ratio < p.min)
      .map((p) => `${p.fg} on ${p.bg}: ${p.ratio.toFixed(2)} < ${p.min}`);
    expect(fails).toEqual([]);
  });

  it('measures contrast as WCAG does', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrast('#fff', '#fff')).toBe(1);
  });
});
