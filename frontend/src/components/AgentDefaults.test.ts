// Settings → Agents → Session defaults: choices from what the agent last
// announced, a text field for an agent not seen yet, the whole defaults
// saved (and {} when cleared), the hub's error shown.
import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import AgentDefaults from './AgentDefaults.svelte';
import { announced, noteAnnounced } from '../lib/announced.svelte';
import { HubError } from '../lib/transport';
import type { AgentSettings, SettingsPatch } from '../lib/types';

const agent = { id: 'qwen', name: 'Qwen Code' };
const modes = {
  currentModeId: 'auto',
  availableModes: [
    { id: 'auto', name: 'Auto' },
    { id: 'default', name: 'Default' },
  ],
};
const model = {
  id: 'model',
  name: 'Model',
  category: 'model',
  type: 'select',
  currentValue: 'small',
  options: [
    { value: 'small', name: 'Small' },
    { value: 'large', name: 'Large' },
  ],
};

beforeEach(() => {
  localStorage.clear();
  for (const k of Object.keys(announced)) delete announced[k];
});

function setup(entry?: AgentSettings, fail?: HubError) {
  const patches: SettingsPatch[] = [];
  const onsave = async (p: SettingsPatch) => {
    patches.push(structuredClone(p));
    if (fail) throw fail;
  };
  render(AgentDefaults, { agent, entry, onsave });
  return patches;
}

describe('AgentDefaults', () => {
  it('offers the modes and options the agent announced, and saves the choice', async () => {
    noteAnnounced({ agent: 'qwen', modes, configOptions: [model] });
    const patches = setup({ id: 'qwen', builtin: true });
    expect(screen.getByText('the agent’s own')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Session defaults/ }));
    const mode = screen.getByLabelText('Mode') as HTMLSelectElement;
    expect([...mode.options].map((o) => o.value)).toEqual(['', 'auto', 'default']);
    await fireEvent.change(mode, { target: { value: 'default' } });
    await fireEvent.change(screen.getByLabelText('Model'), { target: { value: 'large' } });
    // Each choice saves as it is made (ADR 0037): no Save button.
    expect(screen.queryByRole('button', { name: /Save/ })).toBeNull();
    await waitFor(() =>
      expect(patches).toEqual([
        { agents: { qwen: { defaults: { mode: 'default' } } } },
        { agents: { qwen: { defaults: { mode: 'default', options: { model: 'large' } } } } },
      ]),
    );
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Saved'));
  });

  it('types the mode of an agent not seen yet, and keeps options already set editable', async () => {
    const patches = setup({ id: 'qwen', builtin: true, defaults: { mode: 'plan', options: { Model: 'x' } } });
    expect(screen.getByText('mode plan · Model x')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Session defaults/ }));
    const mode = screen.getByLabelText('Mode') as HTMLInputElement;
    expect(mode.tagName).toBe('INPUT');
    expect(mode.value).toBe('plan');
    expect(screen.getByText(/Open a thread with Qwen Code once/)).toBeTruthy();
    await fireEvent.input(mode, { target: { value: '' } });
    await fireEvent.input(screen.getByLabelText('Model'), { target: { value: '' } });
    await fireEvent.change(mode);
    await waitFor(() => expect(patches).toEqual([{ agents: { qwen: { defaults: {} } } }]));
  });

  it('shows the hub’s error at the field and puts back the default in force', async () => {
    noteAnnounced({ agent: 'qwen', modes, configOptions: [] });
    setup(undefined, new HubError('INVALID_ARGUMENT', 'agents.qwen.defaults.mode must be a mode id', { status: 400 }));
    await fireEvent.click(screen.getByRole('button', { name: /Session defaults/ }));
    await fireEvent.change(screen.getByLabelText('Mode'), { target: { value: 'auto' } });
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('must be a mode id'));
    await waitFor(() => expect((screen.getByLabelText('Mode') as HTMLSelectElement).value).toBe(''));
  });
});

describe('AgentDefaults built in', () => {
  it('says the catalogue’s own default is in force when the config sets none', async () => {
    noteAnnounced({ agent: 'qwen', modes, configOptions: [] });
    render(AgentDefaults, { agent: { ...agent, defaults: { mode: 'default' } }, entry: undefined, onsave: async () => {} });
    expect(screen.getByText('mode Default (built in)')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Session defaults/ }));
    const mode = screen.getByLabelText('Mode') as HTMLSelectElement;
    expect(mode.options[0].textContent).toBe('Built in: Default');
    expect(mode.value).toBe('');
  });
});
