import { describe, expect, it } from 'vitest';
import axe from 'axe-core';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SettingsAgents from './SettingsAgents.svelte';
import { HubError } from '../lib/transport';
import type { Agent, AgentPatch, AgentSettings, SettingsPatch } from '../lib/types';

/**
 * The config file's agents: entries as the hub keeps them, values
 * included, with PATCH /v1/settings's rules: an entry is replaced whole
 * except env, which is merged (null removes a name); a custom agent needs
 * a command. configured() is what GET /v1/settings shows: names only.
 */
class ConfigFake {
  entries = new Map<string, AgentPatch & { builtin: boolean }>();
  patches: SettingsPatch[] = [];
  /** Set to make the next save fail. */
  error: HubError | undefined;
  constructor(private builtins: string[]) {}

  configured(): AgentSettings[] {
    return [...this.entries]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, e]) => {
        const keys = Object.keys(e.env ?? {}).sort();
        return { id, name: e.name, command: e.command, args: e.args, enabled: e.enabled, envKeys: keys.length ? keys : undefined, builtin: e.builtin };
      });
  }

  async save(patch: SettingsPatch): Promise<void> {
    this.patches.push(structuredClone(patch));
    const err = this.error;
    this.error = undefined;
    if (err) throw err;
    for (const [id, p] of Object.entries(patch.agents ?? {})) {
      if (!p) {
        this.entries.delete(id);
        continue;
      }
      const builtin = this.builtins.includes(id);
      if (!builtin && !p.command) throw new HubError('INVALID_ARGUMENT', `agents.${id}.command is required`);
      const env: Record<string, string> = { ...(this.entries.get(id)?.env as Record<string, string> | undefined) };
      for (const [k, v] of Object.entries(p.env ?? {})) {
        if (v === null) delete env[k];
        else env[k] = v;
      }
      this.entries.set(id, { name: p.name, command: p.command, args: p.args, enabled: p.enabled, env, builtin });
    }
  }
}

const agents: Agent[] = [
  { id: 'claude', name: 'Claude Code', status: 'unavailable', command: 'claude-code-acp', reason: 'ANTHROPIC_API_KEY is not set' },
  { id: 'gemini', name: 'Gemini CLI', status: 'available', command: 'gemini --experimental-acp', version: '0.9.0' },
  { id: 'mine', name: 'My agent', status: 'available', command: '/opt/mine --acp' },
];

const secrets = ['sk-ant-secret-1', 'tok-mine-2', 'other-3'];

function setup() {
  const hub = new ConfigFake(['claude', 'gemini']);
  hub.entries.set('claude', { env: { ANTHROPIC_API_KEY: secrets[0] }, builtin: true });
  hub.entries.set('mine', { name: 'My agent', command: '/opt/mine', args: ['--acp'], env: { MY_TOKEN: secrets[1], OTHER: secrets[2] }, builtin: false });
  const view = render(SettingsAgents, {
    agents,
    configured: hub.configured(),
    // As the store does: the settings in force replace the old ones.
    onsave: async (p: SettingsPatch) => {
      await hub.save(p);
      await view.rerender({ configured: hub.configured() });
    },
  });
  return { hub, region: screen.getByRole('region', { name: 'Agents' }) };
}

/** Opens an agent's Environment and returns its panel. */
async function openEnv(region: HTMLElement, name: string) {
  const toggle = within(region).getByRole('button', { name: `Environment of ${name}` });
  expect(toggle.getAttribute('aria-expanded')).toBe('false');
  await fireEvent.click(toggle);
  expect(toggle.getAttribute('aria-expanded')).toBe('true');
  const panel = within(region).getByRole('group', { name: `Environment of ${name}` });
  expect(toggle.getAttribute('aria-controls')).toBe(panel.id);
  return panel;
}

function fields(panel: HTMLElement) {
  return {
    key: within(panel).getByRole('textbox', { name: 'Variable' }) as HTMLInputElement,
    // A password input has no role: find it by its label.
    value: within(panel).getByLabelText('Value') as HTMLInputElement,
  };
}

function noSecretShown() {
  for (const s of secrets) expect(document.body.innerHTML).not.toContain(s);
}

describe('SettingsAgents environment', () => {
  it('lists the variable names of a built-in and a custom agent, never a value', async () => {
    const { region } = setup();
    // Closed, nothing of it is shown.
    expect(within(region).queryByText('ANTHROPIC_API_KEY')).toBeNull();
    expect(within(region).getAllByText('1 variable')).toHaveLength(1);
    expect(within(region).getByText('2 variables')).toBeTruthy();

    // Claude Code is unavailable: its environment is there all the same.
    const claude = await openEnv(region, 'Claude Code');
    expect(within(claude).getByText('ANTHROPIC_API_KEY')).toBeTruthy();
    expect(within(claude).getByText('value hidden')).toBeTruthy();
    expect(within(claude).getByRole('button', { name: 'Remove ANTHROPIC_API_KEY from Claude Code' })).toBeTruthy();
    expect(within(claude).getByText(/stored in plain text in the\s+config file/)).toBeTruthy();

    const mine = await openEnv(region, 'My agent');
    expect(within(mine).getAllByText('value hidden')).toHaveLength(2);
    expect(within(mine).getByRole('button', { name: 'Remove MY_TOKEN from My agent' })).toBeTruthy();
    expect(within(mine).getByRole('button', { name: 'Remove OTHER from My agent' })).toBeTruthy();

    const gemini = await openEnv(region, 'Gemini CLI');
    expect(within(gemini).getByText('The config file sets no variables for Gemini CLI.')).toBeTruthy();
    expect(within(gemini).queryByRole('listitem')).toBeNull();
    noSecretShown();

    // The toggle closes it again.
    await fireEvent.click(within(region).getByRole('button', { name: 'Environment of Claude Code' }));
    expect(within(region).queryByText('ANTHROPIC_API_KEY')).toBeNull();
  });

  it('sets a variable of a built-in agent with exactly its env, clears the value and says so', async () => {
    const { hub, region } = setup();
    const panel = await openEnv(region, 'Gemini CLI');
    const { key, value } = fields(panel);
    expect(value.type).toBe('password');
    expect(value.getAttribute('autocomplete')).toBe('off');
    await fireEvent.input(key, { target: { value: 'GEMINI_API_KEY' } });
    await fireEvent.input(value, { target: { value: 'g-secret' } });
    // Show shows what is typed, and hides it again.
    const show = within(panel).getByRole('button', { name: 'Show' });
    await fireEvent.click(show);
    expect(value.type).toBe('text');
    expect(show.getAttribute('aria-pressed')).toBe('true');
    await fireEvent.click(show);
    expect(value.type).toBe('password');

    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    expect(await within(panel).findByText('Set GEMINI_API_KEY for Gemini CLI.')).toBeTruthy();
    expect(within(panel).getByRole('status').textContent).toBe('Set GEMINI_API_KEY for Gemini CLI.');
    expect(hub.patches).toEqual([{ agents: { gemini: { env: { GEMINI_API_KEY: 'g-secret' } } } }]);
    expect(hub.entries.get('gemini')?.env).toEqual({ GEMINI_API_KEY: 'g-secret' });
    expect(value.value).toBe('');
    expect(key.value).toBe('');
    expect(document.body.innerHTML).not.toContain('g-secret');
    expect(within(panel).getByRole('button', { name: 'Remove GEMINI_API_KEY from Gemini CLI' })).toBeTruthy();
    expect(document.activeElement).toBe(key);
  });

  it("sets a custom agent's variable keeping its entry, and says Replace for a name that is there", async () => {
    const { hub, region } = setup();
    const panel = await openEnv(region, 'My agent');
    const { key, value } = fields(panel);
    await fireEvent.input(key, { target: { value: 'MY_TOKEN' } });
    expect(within(panel).getByText('MY_TOKEN is set already: its value will be replaced.')).toBeTruthy();
    await fireEvent.input(value, { target: { value: 'new-token' } });
    await fireEvent.click(within(panel).getByRole('button', { name: 'Replace' }));
    expect(await within(panel).findByText('Replaced MY_TOKEN for My agent.')).toBeTruthy();
    // The hub replaces an entry but for env: its command and args go along.
    expect(hub.patches).toEqual([
      { agents: { mine: { name: 'My agent', command: '/opt/mine', args: ['--acp'], env: { MY_TOKEN: 'new-token' } } } },
    ]);
    expect(hub.entries.get('mine')).toMatchObject({ command: '/opt/mine', args: ['--acp'], env: { MY_TOKEN: 'new-token', OTHER: secrets[2] } });
    expect(value.value).toBe('');
    expect(within(panel).getByRole('button', { name: 'Set' })).toBeTruthy();
  });

  it('an invalid name or no value blocks the save with the error on the field', async () => {
    const { hub, region } = setup();
    const panel = await openEnv(region, 'Claude Code');
    const { key, value } = fields(panel);
    expect(key.getAttribute('aria-invalid')).toBe('false');
    await fireEvent.input(key, { target: { value: '1ST-KEY' } });
    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    const err = within(panel).getByText('Use letters, digits and "_", not starting with a digit.');
    expect(key.getAttribute('aria-invalid')).toBe('true');
    expect(key.getAttribute('aria-describedby')).toBe(err.id);
    expect(value.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(value.getAttribute('aria-describedby')!)?.textContent).toMatch(/Give a value/);

    await fireEvent.input(key, { target: { value: 'FIRST_KEY' } });
    expect(key.getAttribute('aria-invalid')).toBe('false');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    expect(value.getAttribute('aria-invalid')).toBe('true');
    expect(hub.patches).toEqual([]);
  });

  it('Remove sends the name with null and the name goes', async () => {
    const { hub, region } = setup();
    const panel = await openEnv(region, 'Claude Code');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Remove ANTHROPIC_API_KEY from Claude Code' }));
    expect(await within(panel).findByText('Removed ANTHROPIC_API_KEY from Claude Code.')).toBeTruthy();
    expect(hub.patches).toEqual([{ agents: { claude: { env: { ANTHROPIC_API_KEY: null } } } }]);
    expect(within(panel).queryByText('ANTHROPIC_API_KEY')).toBeNull();
    expect(within(panel).getByText('The config file sets no variables for Claude Code.')).toBeTruthy();

    const mine = await openEnv(region, 'My agent');
    await fireEvent.click(within(mine).getByRole('button', { name: 'Remove OTHER from My agent' }));
    await within(mine).findByText('Removed OTHER from My agent.');
    expect(hub.patches.at(-1)).toEqual({ agents: { mine: { name: 'My agent', command: '/opt/mine', args: ['--acp'], env: { OTHER: null } } } });
    expect(hub.entries.get('mine')?.env).toEqual({ MY_TOKEN: secrets[1] });
  });

  it("a hub error keeps what was typed and shows the hub's message", async () => {
    const { hub, region } = setup();
    const panel = await openEnv(region, 'My agent');
    const { key, value } = fields(panel);
    await fireEvent.input(key, { target: { value: 'MODEL_URL' } });
    await fireEvent.input(value, { target: { value: 'http://127.0.0.1:9000' } });
    hub.error = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    expect((await within(panel).findByRole('alert')).textContent).toBe('the config file has an error; fix it first (CONFLICT)');
    expect(key.value).toBe('MODEL_URL');
    expect(value.value).toBe('http://127.0.0.1:9000');
    expect(within(panel).getByRole('status').textContent).toBe('');

    // A Remove that fails says so too, and the name stays.
    hub.error = new HubError('INTERNAL', 'disk full');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Remove OTHER from My agent' }));
    expect((await within(panel).findByRole('alert')).textContent).toBe('disk full (INTERNAL)');
    expect(within(panel).getByText('OTHER')).toBeTruthy();

    // Then it goes through.
    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    await within(panel).findByText('Set MODEL_URL for My agent.');
    await waitFor(() => expect(within(panel).queryByRole('alert')).toBeNull());
    expect(hub.entries.get('mine')?.env?.MODEL_URL).toBe('http://127.0.0.1:9000');
  });

  it('an open Environment, with errors showing, has no axe violations', async () => {
    const { region } = setup();
    const panel = await openEnv(region, 'My agent');
    await fireEvent.click(within(panel).getByRole('button', { name: 'Set' }));
    expect(within(panel).getByText(/Give the variable a name/)).toBeTruthy();
    // jsdom lays nothing out: colour contrast is e2e/a11y.mjs's to check.
    const r = await axe.run(region, { rules: { 'color-contrast': { enabled: false } } });
    expect(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual([]);
    expect(r.passes.some((p) => p.id === 'aria-valid-attr-value')).toBe(true);
  });

  it('has no Environment without settings from the hub', () => {
    render(SettingsAgents, { agents, configured: undefined, onsave: async () => {} });
    expect(screen.queryByRole('button', { name: /^Environment of/ })).toBeNull();
  });
});
