import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import Settings from './Settings.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { HubError } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';
import type { SettingsPatch } from '../lib/types';

function setup(f = new FakeTransport()) {
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

/** Opens Settings with its header button and returns the dialog. */
async function open() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  return screen.findByRole('dialog', { name: 'Settings' });
}

const patches = (f: FakeTransport) =>
  f.calls.filter((c) => c.method === 'updateSettings').map((c) => c.args[0] as SettingsPatch);

afterEach(() => {
  delete document.documentElement.dataset.theme;
});

describe('Settings', () => {
  it('applies the theme from the settings at start', async () => {
    const f = new FakeTransport();
    f.settings.ui.theme = 'dark';
    setup(f);
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
  });

  it('opens with Ctrl+, and the header button; Escape closes and gives focus back', async () => {
    setup();
    const button = await screen.findByRole('button', { name: 'Settings' });
    await fireEvent.keyDown(window, { key: ',', ctrlKey: true });
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    expect(within(dialog).getByText('/home/me/.config/switchboard/config.yaml')).toBeTruthy();
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull();

    button.focus();
    await fireEvent.click(button);
    const again = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(within(again).getByRole('button', { name: 'Close settings' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it('switches the theme at once and saves it', async () => {
    const { f } = setup();
    const dialog = await open();
    const group = within(dialog).getByRole('radiogroup', { name: 'Appearance' });
    const system = within(group).getByRole('radio', { name: 'System' }) as HTMLInputElement;
    await waitFor(() => expect(system.checked).toBe(true));
    await fireEvent.click(within(group).getByRole('radio', { name: 'Dark' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    await within(dialog).findByText('Saved.');
    expect(patches(f)).toEqual([{ ui: { theme: 'dark' } }]);
    expect(f.settings.ui.theme).toBe('dark');
    // Escape closes wherever the focus went.
    await fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull();
  });

  it('"Start the tray at login" saves tray.autostart, and goes back when refused', async () => {
    const { f } = setup();
    const dialog = await open();
    const box = within(dialog).getByRole('checkbox', { name: 'Start the tray at login' }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await within(within(dialog).getByRole('region', { name: 'Tray' })).findByText('Saved.');
    expect(patches(f)).toEqual([{ tray: { autostart: true } }]);
    expect(f.settings.tray).toEqual({ autostart: true });
    expect(box.checked).toBe(true);

    f.settingsError = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(box);
    expect((await within(dialog).findByRole('alert')).textContent).toBe('the config file has an error; fix it first (CONFLICT)');
    await waitFor(() => expect(box.checked).toBe(true));
    expect(f.settings.tray).toEqual({ autostart: true });
  });

  it('"Hide secrets before they are saved" switches redaction.enabled, and goes back when refused', async () => {
    const { f } = setup();
    const dialog = await open();
    const box = within(dialog).getByRole('checkbox', { name: 'Hide secrets before they are saved' }) as HTMLInputElement;
    await waitFor(() => expect(box.checked).toBe(true));
    await fireEvent.click(box);
    await within(within(dialog).getByRole('region', { name: 'Privacy' })).findByText('Saved.');
    expect(patches(f)).toEqual([{ redaction: { enabled: false } }]);
    expect(f.settings.redaction).toEqual({ enabled: false });
    expect(box.checked).toBe(false);

    f.settingsError = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(box);
    expect((await within(dialog).findByRole('alert')).textContent).toBe('the config file has an error; fix it first (CONFLICT)');
    await waitFor(() => expect(box.checked).toBe(false));
    expect(f.settings.redaction).toEqual({ enabled: false });
  });

  it('shows no tray switch for a hub without the setting', async () => {
    const f = new FakeTransport();
    delete f.settings.tray;
    setup(f);
    const dialog = await open();
    await within(dialog).findByRole('radiogroup', { name: 'Appearance' });
    expect(within(dialog).queryByRole('checkbox', { name: 'Start the tray at login' })).toBeNull();
  });

  it('a refused theme goes back to the one in force and says why', async () => {
    const { f } = setup();
    const dialog = await open();
    f.settingsError = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(within(dialog).getByRole('radio', { name: 'Light' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('the config file has an error; fix it first (CONFLICT)');
    await waitFor(() => expect((within(dialog).getByRole('radio', { name: 'System' }) as HTMLInputElement).checked).toBe(true));
    expect(document.documentElement.dataset.theme).toBe('system');
  });

  it('saves the timeout with its unit, shows progress, and keeps what was typed on an error', async () => {
    const { f } = setup();
    const dialog = await open();
    const value = within(dialog).getByRole('spinbutton', { name: 'Refuse an unanswered permission after' }) as HTMLInputElement;
    await waitFor(() => expect(value.value).toBe('10'));
    expect((within(dialog).getByRole('combobox', { name: 'Unit of the permission timeout' }) as HTMLSelectElement).value).toBe('m');

    await fireEvent.input(value, { target: { value: '0' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save timeout' }));
    expect(within(dialog).getByText('Give a whole number greater than 0.')).toBeTruthy();
    expect(patches(f)).toEqual([]);

    await fireEvent.input(value, { target: { value: '90' } });
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Unit of the permission timeout' }), { target: { value: 's' } });
    let release!: () => void;
    f.settingsGate = new Promise((r) => (release = r));
    f.settingsError = new HubError('INVALID_ARGUMENT', 'permissions.timeout must be between 1s and 24h0m0s');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save timeout' }));
    expect(await within(dialog).findByRole('button', { name: 'Saving…' })).toBeTruthy();
    release();
    expect((await within(dialog).findByRole('alert')).textContent).toContain('(INVALID_ARGUMENT)');
    expect(value.value).toBe('90');
    f.settingsGate = undefined;

    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save timeout' }));
    await within(dialog).findByText('Saved.');
    expect(patches(f).at(-1)).toEqual({ permissions: { timeout: '90s' } });
    expect(f.settings.permissions.timeout).toBe('90s');
  });

  it('shows a change made elsewhere (config_applied) at once, but not over a timeout being typed; and a refused file', async () => {
    const { f, store } = setup();
    const dialog = await open();
    const value = within(dialog).getByRole('spinbutton', { name: 'Refuse an unanswered permission after' }) as HTMLInputElement;
    const dark = within(dialog).getByRole('radio', { name: 'Dark' }) as HTMLInputElement;
    await waitFor(() => expect(value.value).toBe('10'));
    const hubWide = (seq: number, type: string, payload: Record<string, unknown>) =>
      store.apply({ seq, type, threadId: '', turnId: '', at: '2026-11-21T07:00:00Z', ...payload });

    // A hand edit of the file: theme and timeout change in the open dialog.
    f.settings = { ...f.settings, permissions: { timeout: '2m' }, ui: { theme: 'dark' } };
    hubWide(1, 'config_applied', { file: f.settings.configFile, changed: ['permissions.timeout', 'ui.theme'] });
    await waitFor(() => expect(value.value).toBe('2'));
    expect(dark.checked).toBe(true);
    expect(document.documentElement.dataset.theme).toBe('dark');

    // Typing a timeout, not saved: another edit elsewhere leaves it alone.
    await fireEvent.input(value, { target: { value: '45' } });
    f.settings = { ...f.settings, permissions: { timeout: '3m' }, ui: { theme: 'light' } };
    hubWide(2, 'config_applied', { file: f.settings.configFile, changed: ['permissions.timeout', 'ui.theme'] });
    await waitFor(() => expect((within(dialog).getByRole('radio', { name: 'Light' }) as HTMLInputElement).checked).toBe(true));
    expect(value.value).toBe('45');

    // A refused hand edit: said in the dialog (and nothing can be saved until it is fixed).
    hubWide(3, 'config_error', { file: f.settings.configFile, message: 'line 4: unknown key permissons' });
    expect((await within(dialog).findByRole('alert')).textContent).toContain('line 4: unknown key permissons');
    hubWide(4, 'config_error', { file: f.settings.configFile, message: '' });
    await waitFor(() => expect(within(dialog).queryByRole('alert')).toBeNull());
  });

  it('saves each notification switch as it changes', async () => {
    const { f } = setup();
    const dialog = await open();
    const turns = within(dialog).getByRole('checkbox', { name: /when a turn completes/ }) as HTMLInputElement;
    await waitFor(() => expect(turns.checked).toBe(true));
    await fireEvent.click(turns);
    await within(dialog).findByText('Saved.');
    expect(patches(f)).toEqual([{ notifications: { turnCompleted: false } }]);
    // Each reason has its own switch.
    const reasons: [RegExp, string][] = [
      [/A permission waits/, 'permission'],
      [/asks you a question/, 'question'],
      [/A turn fails/, 'error'],
      [/A budget is/, 'budget'],
    ];
    for (const [i, [name, key]] of reasons.entries()) {
      const box = within(dialog).getByRole('checkbox', { name }) as HTMLInputElement;
      expect(box.checked).toBe(true);
      await fireEvent.click(box);
      await waitFor(() => expect(patches(f)).toHaveLength(2 + i));
      expect(patches(f)[1 + i]).toEqual({ notifications: { [key]: false } });
    }
    await fireEvent.click(within(dialog).getByRole('checkbox', { name: /Desktop notifications/ }));
    await waitFor(() => expect(patches(f)).toHaveLength(6));
    expect(patches(f)[5]).toEqual({ notifications: { enabled: false } });
    await waitFor(() => expect(turns.disabled).toBe(true));
    expect((within(dialog).getByRole('checkbox', { name: /asks you a question/ }) as HTMLInputElement).disabled).toBe(true);
  });

  it('lists the agents with status and install hint, adds a custom one, and removes it', async () => {
    const f = new FakeTransport();
    f.agents.push({ id: 'gem', name: 'Gemini CLI', status: 'unavailable', command: 'gemini', reason: 'gemini not found on PATH', install: 'npm install -g @google/gemini-cli' });
    setup(f);
    const dialog = await open();
    const agents = within(dialog).getByRole('region', { name: 'Agents' });
    expect(within(agents).getByText('gone not found on PATH')).toBeTruthy();
    expect(within(agents).getByText('npm install -g @google/gemini-cli')).toBeTruthy();

    const id = within(agents).getByRole('textbox', { name: 'Id' });
    const command = within(agents).getByRole('textbox', { name: 'Command' });
    await fireEvent.input(id, { target: { value: 'My Agent' } });
    await fireEvent.click(within(agents).getByRole('button', { name: 'Add agent' }));
    expect(within(agents).getByText(/Use lowercase letters/)).toBeTruthy();
    expect(within(agents).getByText(/Give the command/)).toBeTruthy();
    expect(id.getAttribute('aria-invalid')).toBe('true');
    expect(patches(f)).toEqual([]);

    await fireEvent.input(id, { target: { value: 'mine' } });
    await fireEvent.input(within(agents).getByRole('textbox', { name: 'Name' }), { target: { value: 'My agent' } });
    await fireEvent.input(command, { target: { value: '/opt/mine' } });
    await fireEvent.input(within(agents).getByRole('textbox', { name: 'Arguments' }), { target: { value: '--acp --model "big one"' } });
    f.settingsError = new HubError('INVALID_ARGUMENT', 'agents.mine.command is required');
    await fireEvent.click(within(agents).getByRole('button', { name: 'Add agent' }));
    expect((await within(agents).findByRole('alert')).textContent).toBe('agents.mine.command is required (INVALID_ARGUMENT)');
    expect((command as HTMLInputElement).value).toBe('/opt/mine'); // nothing typed is lost

    await fireEvent.click(within(agents).getByRole('button', { name: 'Add agent' }));
    const remove = await within(agents).findByRole('button', { name: 'Remove My agent' });
    expect(await within(agents).findByText('Added mine.')).toBeTruthy();
    expect(patches(f).at(-1)).toEqual({ agents: { mine: { name: 'My agent', command: '/opt/mine', args: ['--acp', '--model', 'big one'] } } });
    expect((id as HTMLInputElement).value).toBe('');

    await fireEvent.click(remove);
    await waitFor(() => expect(within(agents).queryByText('My agent')).toBeNull());
    expect(patches(f).at(-1)).toEqual({ agents: { mine: null } });
  });

  it('without settings from the hub it shows the agents only', async () => {
    const f = new FakeTransport();
    render(Settings, {
      agents: f.agents,
      settings: undefined,
      onsave: (p: SettingsPatch) => f.updateSettings(p),
      onclose: () => {},
    });
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    expect(within(dialog).getByText(/no settings to change/)).toBeTruthy();
    expect(within(dialog).getByText('SDK agent')).toBeTruthy();
    expect(within(dialog).queryByRole('radiogroup')).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Add agent' })).toBeNull();
  });
});
