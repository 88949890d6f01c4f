import { describe, expect, it } from 'vitest';
import { HttpTransport, HubError, WailsTransport, type WailsBindings, type WailsRuntime } from './transport';
import { agentFormErrors, describeError, envNameError, envPatch, parseDuration, splitArgs, splitDuration, timeoutError } from './settings';
import { applyTheme, restoreTheme } from './theme';
import { memoryStorage } from '../test/memoryStorage';
import type { Settings } from './types';

const settings: Settings = {
  configFile: '/home/me/.config/switchboard/config.yaml',
  permissions: { timeout: '10m' },
  notifications: { enabled: true, turnCompleted: false },
  ui: { theme: 'dark' },
  agents: [{ id: 'mine', command: '/opt/mine', envKeys: ['MY_KEY'], builtin: false }],
};

describe('settings transport', () => {
  it('HTTP: GET and PATCH /v1/settings with the JSON patch, errors with code and details', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const replies = [
      new Response(JSON.stringify({ settings }), { status: 200 }),
      new Response(JSON.stringify({ settings: { ...settings, ui: { theme: 'light' }, agents: null } }), { status: 200 }),
      new Response(
        JSON.stringify({ error: { code: 'INVALID_ARGUMENT', message: 'ui.theme must be light, dark or system', details: { field: 'ui.theme' } } }),
        { status: 400 },
      ),
    ];
    const f = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return replies.shift()!;
    }) as unknown as typeof fetch;
    const t = new HttpTransport({ base: 'http://hub', clientId: 'c1', fetch: f });

    expect(await t.getSettings()).toEqual(settings);
    expect(calls[0].url).toBe('http://hub/v1/settings?scope=all');
    expect(calls[0].init.method).toBe('GET');

    const got = await t.updateSettings({ ui: { theme: 'light' }, agents: { old: null } });
    expect(got.ui.theme).toBe('light');
    expect(got.agents).toEqual([]); // never null
    expect(calls[1].init.method).toBe('PATCH');
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ ui: { theme: 'light' }, agents: { old: null } });
    expect((calls[1].init.headers as Record<string, string>)['Content-Type']).toBe('application/json');

    const err = await t.updateSettings({ ui: { theme: 'light' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400, details: { field: 'ui.theme' } });
  });

  it('Wails: GetSettings and UpdateSettings, errors as HubError', async () => {
    const patches: unknown[] = [];
    const bindings = {
      GetSettings: () => Promise.resolve(settings),
      UpdateSettings: (p: unknown) => {
        patches.push(p);
        if ((p as { ui?: { theme?: string } }).ui?.theme === 'blue')
          return Promise.reject('{"code":"INVALID_ARGUMENT","message":"ui.theme must be light, dark or system"}');
        return Promise.resolve({ ...settings, agents: null });
      },
    } as unknown as WailsBindings;
    const runtime: WailsRuntime = { EventsOn: () => () => {} };
    const t = new WailsTransport(bindings, runtime);
    expect((await t.getSettings()).agents[0].envKeys).toEqual(['MY_KEY']);
    expect((await t.updateSettings({ notifications: { enabled: false } })).agents).toEqual([]);
    expect(patches).toEqual([{ notifications: { enabled: false } }]);
    await expect(t.updateSettings({ ui: { theme: 'blue' as 'dark' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'ui.theme must be light, dark or system',
    });
  });
});

describe('settings helpers', () => {
  it('parses and splits durations as the hub writes them', () => {
    expect(parseDuration('10m')).toBe(600);
    expect(parseDuration('1h30m0s')).toBe(5400);
    expect(parseDuration('1.5s')).toBe(1.5);
    expect(parseDuration('soon')).toBeNaN();
    expect(parseDuration('10m later')).toBeNaN();
    expect(splitDuration(600)).toEqual({ value: 10, unit: 'm' });
    expect(splitDuration(5400)).toEqual({ value: 90, unit: 'm' });
    expect(splitDuration(7200)).toEqual({ value: 2, unit: 'h' });
    expect(splitDuration(45)).toEqual({ value: 45, unit: 's' });
    expect(timeoutError(10, 'm')).toBe('');
    expect(timeoutError(0, 'm')).not.toBe('');
    expect(timeoutError(1.5, 'm')).not.toBe('');
    expect(timeoutError(25, 'h')).toMatch(/24 hours/);
  });

  it('splits arguments with quotes and refuses an unclosed one', () => {
    expect(splitArgs('--acp  --model "big one" \'\' x')).toEqual(['--acp', '--model', 'big one', '', 'x']);
    expect(splitArgs('   ')).toEqual([]);
    expect(() => splitArgs('"open')).toThrow(/unclosed/);
  });

  it('checks the add-agent form for obvious mistakes', () => {
    const agents = [{ id: 'claude', name: 'Claude Code', status: 'available' as const, command: 'claude-agent-acp' }];
    const ok = { id: 'my-agent', name: '', command: '/opt/a', args: '--acp' };
    expect(agentFormErrors(ok, agents, [])).toEqual({ id: '', command: '', args: '' });
    expect(agentFormErrors({ ...ok, id: 'My Agent' }, agents, []).id).toMatch(/lowercase/);
    expect(agentFormErrors({ ...ok, id: 'claude' }, agents, []).id).toMatch(/already an agent/);
    expect(agentFormErrors({ ...ok, command: '  ' }, agents, []).command).not.toBe('');
    expect(agentFormErrors({ ...ok, args: '"x' }, agents, []).args).toMatch(/unclosed/);
    // A custom agent of that id is replaced, not refused.
    const mine = [{ id: 'mine', name: 'Mine', status: 'available' as const, command: '/opt/mine' }];
    expect(agentFormErrors({ ...ok, id: 'mine' }, mine, [{ id: 'mine', builtin: false }]).id).toBe('');
    expect(describeError(new HubError('CONFLICT', 'fix the file'))).toBe('fix the file (CONFLICT)');
  });

  it("checks an environment variable's name with the hub's rule", () => {
    for (const [name, ok] of [
      ['ANTHROPIC_API_KEY', true],
      ['_x1', true],
      [' PATH ', true], // trimmed
      ['', false],
      ['1ST', false],
      ['MY-KEY', false],
      ['A B', false],
      ['KEY=1', false],
      ['ÄPFEL', false],
    ] as const) {
      expect(envNameError(name) === '', name).toBe(ok);
    }
    expect(envNameError('')).toMatch(/Give the variable a name/);
  });

  it("sets or removes one variable, sending the entry's other fields in force along", () => {
    expect(envPatch('claude', undefined, 'K', 'v')).toEqual({ agents: { claude: { env: { K: 'v' } } } });
    expect(envPatch('claude', { id: 'claude', envKeys: ['K'], builtin: true }, 'K', null)).toEqual({
      agents: { claude: { env: { K: null } } },
    });
    const entry = { id: 'mine', name: 'Mine', command: '/opt/mine', args: ['--acp'], enabled: false, envKeys: ['A'], builtin: false };
    const p = envPatch('mine', entry, 'B', 'b');
    expect(p).toEqual({ agents: { mine: { name: 'Mine', command: '/opt/mine', args: ['--acp'], enabled: false, env: { B: 'b' } } } });
    expect(p.agents!.mine!.args).not.toBe(entry.args); // a copy
  });
});

describe('theme', () => {
  it('sets data-theme on <html>, system for anything unknown', () => {
    const root = document.createElement('html');
    applyTheme('dark', root);
    expect(root.dataset.theme).toBe('dark');
    applyTheme('light', root);
    expect(root.dataset.theme).toBe('light');
    applyTheme(undefined, root);
    expect(root.dataset.theme).toBe('system');
  });

  it('remembers the theme, so the next page load starts in it', () => {
    const storage = memoryStorage();
    const fresh = document.createElement('html');
    restoreTheme(fresh, storage);
    expect(fresh.dataset.theme).toBeUndefined(); // nothing remembered: app.css follows the OS
    applyTheme('dark', document.createElement('html'), storage);
    restoreTheme(fresh, storage);
    expect(fresh.dataset.theme).toBe('dark');
    storage.setItem('switchboard.theme', 'neon');
    restoreTheme(fresh, storage);
    expect(fresh.dataset.theme).toBe('system');
  });

  it('tokens.css: each colour is written once, for both schemes; app.css: data-theme forces one', async () => {
    // Read from disk (vitest runs in frontend/ and hands CSS imports over empty).
    const fs = (await import(/* @vite-ignore */ 'node:' + 'fs')) as { readFileSync(p: string, enc: string): string };
    const tokens = fs.readFileSync('src/styles/tokens.css', 'utf8');
    const css = fs.readFileSync('src/app.css', 'utf8');
    expect(css).toContain("@import './styles/tokens.css';");
    const root = tokens.match(/^:root \{([^}]*)\}/m);
    expect(root).toBeTruthy();
    const colours = [...root![1].matchAll(/(--[\w-]+):\s*([^;]+);/g)].filter((m) => /#|rgb|light-dark/.test(m[2]));
    expect(colours.length).toBeGreaterThan(10);
    for (const [, name, value] of colours) {
      // The scrim and the shadows are black at some opacity in both schemes.
      if (name === '--scrim' || name.startsWith('--shadow-')) expect(value, name).toMatch(/^[^#]*rgb\(0 0 0 \/ [\d.]+\)[^#]*$/);
      else expect(value, name).toMatch(/^light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)$/);
    }
    expect(root![1]).toContain('color-scheme: light dark;');
    // No second palette: no colour variable is set outside tokens.css's :root.
    expect(tokens.replace(root![0], '')).not.toMatch(/--(bg|fg|accent|hl-)[\w-]*:/);
    expect(css).not.toMatch(/--(bg|fg|accent|hl-)[\w-]*:/);
    expect(tokens).not.toContain('prefers-color-scheme');
    expect(css).not.toContain('prefers-color-scheme');
    expect(css).toMatch(/:root\[data-theme='dark'\] \{\s*color-scheme: dark;\s*\}/);
    expect(css).toMatch(/:root\[data-theme='light'\] \{\s*color-scheme: light;\s*\}/);
  });
});
