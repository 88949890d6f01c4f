// The client system prompt (issue 32, ADR 0050): Settings → Agents →
// Instructions saves the mode and text per agent and says what the agent
// takes; Settings → Folders adds a folder's; the thread's line says where
// its instructions came from and whether its agent got them.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import SettingsAgents from './SettingsAgents.svelte';
import SettingsFolders from './SettingsFolders.svelte';
import ThreadInstructions from './ThreadInstructions.svelte';
import { HubError } from '../lib/transport';
import type { Agent, AgentSettings, SettingsPatch, ThreadInstructions as TI } from '../lib/types';

const claude: Agent = {
  id: 'claude',
  name: 'Claude Code',
  command: 'claude-agent-acp',
  status: 'available',
  capabilities: { sessionCapabilities: { systemPrompt: {} } },
} as Agent;

function settingsAgents(entry: AgentSettings, agent: Agent = claude, fail?: HubError) {
  const patches: SettingsPatch[] = [];
  const onsave = async (p: SettingsPatch) => {
    patches.push(structuredClone(p));
    if (fail) throw fail;
  };
  render(SettingsAgents, { agents: [agent], configured: [entry], onsave });
  return patches;
}

describe('Settings → Agents → Instructions', () => {
  it('shows the instructions in force and saves a new mode and text', async () => {
    const patches = settingsAgents({ id: 'claude', builtin: true, instructions: { mode: 'append', text: 'Answer in French.' } });
    expect(screen.getByText(/Add to the agent’s own · Answer in French\./)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /^Instructions/ }));
    expect(screen.getByText(/takes instructions added to its own only: a thread asking to replace them is refused/)).toBeTruthy();
    const text = screen.getByLabelText('Text') as HTMLTextAreaElement;
    expect(text.value).toBe('Answer in French.');
    await fireEvent.input(text, { target: { value: 'Answer in German.\nBe brief.' } });
    await fireEvent.change(text);
    await fireEvent.change(screen.getByLabelText('How'), { target: { value: 'override' } });
    await waitFor(() =>
      expect(patches).toEqual([
        { agents: { claude: { instructions: { mode: 'append', text: 'Answer in German.\nBe brief.' } } } },
        { agents: { claude: { instructions: { mode: 'override', text: 'Answer in German.\nBe brief.' } } } },
      ]),
    );
  });

  it('says when the agent does not take instructions, and shows a refusal', async () => {
    settingsAgents(
      { id: 'claude', builtin: true },
      { ...claude, capabilities: { sessionCapabilities: {} } },
      new HubError('INVALID_ARGUMENT', 'agents.claude.instructions.text is 40000 bytes: at most 32768', { status: 400 }),
    );
    expect(screen.getByText('None')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /^Instructions/ }));
    expect(screen.getByText(/Claude Code does not take instructions: its threads will say they were not sent/)).toBeTruthy();
    const text = screen.getByLabelText('Text') as HTMLTextAreaElement;
    await fireEvent.input(text, { target: { value: 'x'.repeat(40) } });
    await fireEvent.change(text);
    expect((await screen.findByRole('alert')).textContent).toMatch(/at most 32768/);
    await waitFor(() => expect(text.value).toBe(''));
  });
});

describe('Settings → Folders', () => {
  it('adds a folder and saves its instructions; refuses a relative folder', async () => {
    const patches: SettingsPatch[] = [];
    render(SettingsFolders, { folders: [], onsave: async (p: SettingsPatch) => void patches.push(structuredClone(p)) });
    const glob = screen.getByLabelText('Add folder');
    await fireEvent.input(glob, { target: { value: 'work/app' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(screen.getByRole('alert').textContent).toMatch(/absolute path or starts with ~\//);
    await fireEvent.input(glob, { target: { value: '~/work/**' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    const text = screen.getByLabelText('Text') as HTMLTextAreaElement; // opened for the new folder
    await fireEvent.input(text, { target: { value: 'Use tabs.' } });
    await fireEvent.change(text);
    await waitFor(() => expect(patches).toEqual([{ folders: { '~/work/**': { instructions: { mode: 'append', text: 'Use tabs.' } } } }]));
  });
});

describe('ThreadInstructions', () => {
  const ins: TI = { mode: 'append', text: 'Answer in French.\n\nUse tabs.', from: ['agent', 'folder'] };

  it('says where they came from, how, and that they were sent; the text behind the disclosure', async () => {
    render(ThreadInstructions, { thread: { id: 't1', agent: 'claude', instructions: { ...ins, delivery: 'sent' } }, agentName: 'Claude Code' });
    expect(screen.getByText('agent + folder (added to the agent’s own) · sent')).toBeTruthy();
    expect(screen.queryByText(/Use tabs/)).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /^Instructions/ }));
    expect(screen.getByText(/Answer in French\.\s+Use tabs\./)).toBeTruthy();
  });

  it('says the instructions were not sent to an agent that does not take them', () => {
    render(ThreadInstructions, {
      thread: { id: 't2', agent: 'plain', instructions: { ...ins, mode: 'override', from: ['folder'], delivery: 'not_sent' } },
      agentName: 'Plain',
    });
    expect(screen.getByText('folder (replacing the agent’s own) · not sent: Plain does not take instructions')).toBeTruthy();
  });

  it('shows nothing for a thread without instructions', () => {
    const { container } = render(ThreadInstructions, { thread: { id: 't3', agent: 'claude' } });
    expect(container.querySelector('[data-instructions]')).toBeNull();
  });
});
