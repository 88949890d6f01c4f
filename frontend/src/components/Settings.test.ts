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

/** The row of a control: the control with its save state. */
const row = (control: HTMLElement) => control.closest('.check, .line') as HTMLElement;

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
    expect(within(dialog).getAllByText('/home/me/.config/switchboard/config.yaml').length).toBeGreaterThan(0);
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
    const group = within(within(dialog).getByRole('region', { name: 'Appearance' })).getByRole('radiogroup', { name: 'Theme' });
    const system = within(group).getByRole('radio', { name: 'System' }) as HTMLInputElement;
    await waitFor(() => expect(system.checked).toBe(true));
    await fireEvent.click(within(group).getByRole('radio', { name: 'Dark' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    await within(dialog).findByText('Saved');
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
    await within(row(box)).findByText('Saved');
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
    await within(row(box)).findByText('Saved');
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
    await within(dialog).findByRole('radiogroup', { name: 'Theme' });
    expect(within(dialog).queryByRole('checkbox', { name: 'Start the tray at login' })).toBeNull();
  });

  it('a refused theme goes back to the one in force and says why', async () => {
    const { f } = setup();
    const dialog = await open();
    f.settingsError = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(within(dialog).getByRole('radio', { name: 'Light' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('the config file has an error; fix it first (CONFLICT)');
    expect(within(dialog).getByRole('radiogroup', { name: 'Theme' }).parentElement!.contains(within(dialog).getByRole('alert'))).toBe(true);
    await waitFor(() => expect((within(dialog).getByRole('radio', { name: 'System' }) as HTMLInputElement).checked).toBe(true));
    expect(document.documentElement.dataset.theme).toBe('system');
  });

  it('saves the timeout with its unit when committed, shows progress, and keeps what was typed on an error, at the field', async () => {
    const { f } = setup();
    const dialog = await open();
    const value = within(dialog).getByRole('spinbutton', { name: 'Refuse an unanswered permission after' }) as HTMLInputElement;
    const unit = within(dialog).getByRole('combobox', { name: 'Unit of the permission timeout' }) as HTMLSelectElement;
    const status = dialog.querySelector('#settings-timeout-status') as HTMLElement;
    await waitFor(() => expect(value.value).toBe('10'));
    expect(unit.value).toBe('m');

    await fireEvent.input(value, { target: { value: '0' } });
    await fireEvent.change(value);
    expect(within(status).getByRole('alert').textContent).toBe('Give a whole number greater than 0.');
    expect(value.getAttribute('aria-invalid')).toBe('true');
    expect(patches(f)).toEqual([]);

    await fireEvent.input(value, { target: { value: '90' } });
    let release!: () => void;
    f.settingsGate = new Promise((r) => (release = r));
    f.settingsError = new HubError('INVALID_ARGUMENT', 'permissions.timeout must be between 1s and 24h0m0s');
    await fireEvent.change(unit, { target: { value: 's' } });
    await within(status).findByText('Saving…');
    release();
    expect((await within(status).findByRole('alert')).textContent).toContain('(INVALID_ARGUMENT)');
    expect(value.value).toBe('90');
    f.settingsGate = undefined;

    await fireEvent.change(value);
    await within(status).findByText('Saved');
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
    await within(row(turns)).findByText('Saved');
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
    expect(within(agents).getByRole('note').textContent).toContain('Not found on PATH: Gemini CLI, Gone agent.');
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

describe('Settings as one page', () => {
  it('has a navigation of its sections: a click selects one and focuses its heading, arrows move between them', async () => {
    setup();
    const dialog = await open();
    const nav = within(dialog).getByRole('navigation', { name: 'Settings sections' });
    const entries = within(nav).getAllByRole('button');
    expect(entries.map((b) => b.textContent)).toEqual(['Agents', 'Folders', 'Approvals', 'Budgets', 'Notifications', 'Appearance', 'Hosts', 'Advanced']);
    expect(entries[0].getAttribute('aria-current')).toBe('true');
    // Every entry names a section of the page, headed with its name.
    for (const b of entries) expect(within(dialog).getByRole('region', { name: b.textContent! })).toBeTruthy();

    await fireEvent.click(within(nav).getByRole('button', { name: 'Budgets' }));
    expect(within(nav).getByRole('button', { name: 'Budgets' }).getAttribute('aria-current')).toBe('true');
    expect(entries[0].getAttribute('aria-current')).toBeNull();
    expect(document.activeElement).toBe(within(dialog).getByRole('heading', { name: 'Budgets' }));

    entries[2].focus();
    await fireEvent.keyDown(entries[2], { key: 'ArrowDown' });
    expect(document.activeElement).toBe(entries[3]);
    await fireEvent.keyDown(entries[3], { key: 'End' });
    expect(document.activeElement).toBe(entries[7]);
    await fireEvent.keyDown(entries[7], { key: 'Home' });
    expect(document.activeElement).toBe(entries[0]);
  });

  it('places every setting in its section', async () => {
    const f = new FakeTransport();
    f.settings.budgets = { currency: 'USD', daily: 5 };
    setup(f);
    const dialog = await open();
    const section = (name: string) => within(within(dialog).getByRole('region', { name }));
    await waitFor(() => expect(section('Agents').getByRole('button', { name: 'Add agent' })).toBeTruthy());
    const a = section('Approvals');
    a.getByRole('spinbutton', { name: 'Refuse an unanswered permission after' });
    a.getByRole('checkbox', { name: 'Escalate a request nobody answered' });
    a.getByRole('heading', { name: 'Rules' });
    a.getByRole('heading', { name: 'Remembered decisions' });
    const b = section('Budgets');
    b.getByRole('textbox', { name: 'Currency' });
    for (const name of ['Daily', 'Monthly', 'Per thread', 'Daily, in tokens', 'Monthly, in tokens', 'Per thread, in minutes', 'SDK agent, in minutes'])
      b.getByRole('spinbutton', { name });
    b.getByRole('table', { name: 'Prices' });
    const n = section('Notifications');
    for (const name of [/Desktop notifications/, /when a turn completes/, /A permission waits/, /asks you a question/, /A turn fails/, /A budget is/])
      n.getByRole('checkbox', { name });
    section('Appearance').getByRole('radiogroup', { name: 'Theme' });
    const adv = section('Advanced');
    adv.getByRole('checkbox', { name: 'Hide secrets before they are saved' });
    adv.getByRole('checkbox', { name: 'Start the tray at login' });
    expect(adv.getByText('/home/me/.config/switchboard/config.yaml')).toBeTruthy();
  });

  it('saves one way: no Save buttons, each field with its own state slot there before any save', async () => {
    setup();
    const dialog = await open();
    expect(within(dialog).queryAllByRole('button', { name: /^Save/ })).toEqual([]);
    const box = within(dialog).getByRole('checkbox', { name: 'Start the tray at login' });
    // The slot the state shows in is there (empty) before the save, so nothing moves when it fills.
    const slot = row(box).querySelector('.slot')!;
    expect(slot.textContent).toBe('');
    await fireEvent.click(box);
    await within(row(box)).findByText('Saved');
    expect(row(box).querySelector('.slot')).toBe(slot);
    // Only that field says so.
    expect(within(dialog).getAllByText('Saved')).toHaveLength(1);
  });

  it('saves a budget when committed, shows a refused one at its field with what was typed, and has no field for an agent not installed', async () => {
    const f = new FakeTransport();
    f.settings.budgets = { currency: 'USD', daily: 5, agents: { gone: { daily: 2 } } };
    setup(f);
    const dialog = await open();
    const budgets = within(within(dialog).getByRole('region', { name: 'Budgets' }));
    expect(budgets.getByRole('spinbutton', { name: 'SDK agent' })).toBeTruthy();
    expect(budgets.queryByRole('spinbutton', { name: 'Gone agent' })).toBeNull();

    const monthly = budgets.getByRole('spinbutton', { name: 'Monthly' }) as HTMLInputElement;
    f.settingsError = new HubError('INVALID_ARGUMENT', 'budgets.monthly is smaller than budgets.daily');
    await fireEvent.input(monthly, { target: { value: '3' } });
    await fireEvent.change(monthly);
    const refused = await within(row(monthly)).findByRole('alert');
    expect(refused.textContent).toBe('budgets.monthly is smaller than budgets.daily (INVALID_ARGUMENT)');
    expect(monthly.value).toBe('3');
    expect(monthly.getAttribute('aria-invalid')).toBe('true');
    expect(within(row(budgets.getByRole('spinbutton', { name: 'Daily' }))).queryByRole('alert')).toBeNull();

    await fireEvent.input(monthly, { target: { value: '50' } });
    await fireEvent.change(monthly);
    await within(row(monthly)).findByText('Saved');
    // The whole section with the one value changed; the limit of the agent not installed stays.
    expect(patches(f).at(-1)).toEqual({ budgets: { currency: 'USD', daily: 5, monthly: 50, agents: { gone: { daily: 2 } } } });

    const sdk = budgets.getByRole('spinbutton', { name: 'SDK agent' }) as HTMLInputElement;
    await fireEvent.input(sdk, { target: { value: '1.5' } });
    await fireEvent.change(sdk);
    await within(row(sdk)).findByText('Saved');
    expect(f.settings.budgets?.agents).toEqual({ gone: { daily: 2 }, sdk: { daily: 1.5 } });

    const currency = budgets.getByRole('textbox', { name: 'Currency' }) as HTMLInputElement;
    await fireEvent.input(currency, { target: { value: 'E' } });
    await fireEvent.change(currency);
    expect(within(row(currency)).getByRole('alert').textContent).toBe('Give a three-letter currency code, such as USD.');
  });

  it('saves limits in tokens and minutes, the shares in percent, and prices by model, each at its field', async () => {
    const f = new FakeTransport();
    f.settings.budgets = { currency: 'USD', daily: 5, tokens: { monthly: 9000000 } };
    setup(f);
    const dialog = await open();
    const budgets = within(within(dialog).getByRole('region', { name: 'Budgets' }));
    const commit = async (el: HTMLElement, value: string) => {
      await fireEvent.input(el, { target: { value } });
      await fireEvent.change(el);
    };

    const tokens = budgets.getByRole('spinbutton', { name: 'Daily, in tokens' }) as HTMLInputElement;
    await commit(tokens, '2000000');
    await within(row(tokens)).findByText('Saved');
    expect(patches(f).at(-1)).toEqual({ budgets: { currency: 'USD', daily: 5, agents: {}, tokens: { daily: 2000000, monthly: 9000000, agents: {} } } });
    // Only that field says so: the money "Daily" beside it has nothing to say.
    expect(within(row(budgets.getByRole('spinbutton', { name: 'Daily' }))).queryByText('Saved')).toBeNull();

    const sdkMinutes = budgets.getByRole('spinbutton', { name: 'SDK agent, in minutes' }) as HTMLInputElement;
    await commit(sdkMinutes, '90');
    await within(row(sdkMinutes)).findByText('Saved');
    expect(f.settings.budgets?.minutes?.agents).toEqual({ sdk: { daily: 90 } });
    await commit(sdkMinutes, '-1');
    expect(within(row(sdkMinutes)).getByRole('alert').textContent).toBe('Give an amount of 0 or more (0 is no limit).');

    const grace = budgets.getByRole('spinbutton', { name: 'Grace (%)' }) as HTMLInputElement;
    expect(grace.value).toBe('10');
    await commit(grace, '5');
    await within(row(grace)).findByText('Saved');
    expect(f.settings.budgets?.grace).toBe(0.05);

    const prices = within(budgets.getByRole('table', { name: 'Prices' }));
    await fireEvent.click(prices.getByRole('button', { name: 'Add' }));
    expect(prices.getByRole('alert').textContent).toBe('Name the model as the agent names it.');
    await fireEvent.input(prices.getByRole('textbox', { name: 'New price: model' }), { target: { value: 'Claude-Sonnet-4.5' } });
    await fireEvent.input(prices.getByRole('spinbutton', { name: 'New price: input' }), { target: { value: '3' } });
    await fireEvent.input(prices.getByRole('spinbutton', { name: 'New price: output' }), { target: { value: '15' } });
    await fireEvent.click(prices.getByRole('button', { name: 'Add' }));
    await prices.findByText('Claude-Sonnet-4.5');
    expect(f.settings.budgets?.prices).toEqual({ 'Claude-Sonnet-4.5': { input: 3, output: 15 } });
    const output = prices.getByRole('spinbutton', { name: 'Claude-Sonnet-4.5 output price' });
    await commit(output, '12');
    await waitFor(() => expect(f.settings.budgets?.prices?.['Claude-Sonnet-4.5']?.output).toBe(12));
    const remove = prices.getByRole('button', { name: 'Remove the price of Claude-Sonnet-4.5' });
    expect(remove.getAttribute('title')).toBe('Remove the price of Claude-Sonnet-4.5');
    await fireEvent.click(remove);
    await waitFor(() => expect(prices.queryByText('Claude-Sonnet-4.5')).toBeNull());
    expect(f.settings.budgets?.prices).toEqual({});
  });

  it('says once that agents are not found on PATH', async () => {
    const f = new FakeTransport();
    f.agents.push({ id: 'cx', name: 'Codex', status: 'unavailable', command: 'codex-acp', reason: 'codex-acp not found on PATH; install it with: npm i -g codex-acp', install: 'npm i -g codex-acp' });
    setup(f);
    const dialog = await open();
    const agents = within(dialog).getByRole('region', { name: 'Agents' });
    await within(agents).findByText('Codex');
    expect(agents.textContent!.match(/not found on PATH/gi)).toHaveLength(1);
    expect(within(agents).getAllByRole('note')).toHaveLength(1);
    expect(within(agents).getByRole('note').textContent).toContain('Codex, Gone agent');
    expect(within(agents).getAllByText('not installed')).toHaveLength(2);
    // The install command is still given, once, at its agent.
    expect(within(agents).getAllByText('npm i -g codex-acp')).toHaveLength(1);
  });
});
