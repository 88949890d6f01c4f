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
    const all = [...findings()].flatMap(([, l]) => l);
    expect(report(all), 'use a var(--…) from src/styles/tokens.css instead').toBe('');
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
