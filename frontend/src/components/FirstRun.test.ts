import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import FirstRun from './FirstRun.svelte';
import type { Agent } from '../lib/types';

const agents: Agent[] = [
  {
    id: 'claude',
    name: 'Claude Code',
    status: 'unavailable',
    command: 'claude-agent-acp',
    reason: 'claude-agent-acp not found on PATH; install it with: npm install -g @agentclientprotocol/claude-agent-acp',
    install: 'npm install -g @agentclientprotocol/claude-agent-acp',
  },
  {
    id: 'goose',
    name: 'Goose',
    status: 'unavailable',
    command: 'goose acp',
    reason: 'goose not found on PATH; install it with: install Goose from https://block.github.io/goose/',
  },
  { id: 'mine', name: 'My agent', status: 'unavailable', command: 'mine', reason: 'disabled in the config file' },
];

describe('FirstRun', () => {
  it('lists each agent with why it is missing and how to install it, with a copy button', async () => {
    const copy = vi.fn(async () => {});
    render(FirstRun, { agents, oncheck: async () => {}, copy });
    const list = screen.getByRole('list', { name: 'Agents' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(within(items[0]).getByText('claude-agent-acp not found on PATH')).toBeTruthy();
    expect(within(items[0]).getByText('npm install -g @agentclientprotocol/claude-agent-acp').tagName).toBe('CODE');
    // Not a command: said in words, no copy button.
    expect(within(items[1]).getByText(/To install it: install Goose from/)).toBeTruthy();
    expect(within(items[1]).queryByRole('button')).toBeNull();
    expect(within(items[2]).getByText('disabled in the config file')).toBeTruthy();

    await fireEvent.click(screen.getByRole('button', { name: 'Copy the install command for Claude Code' }));
    expect(copy).toHaveBeenCalledWith('npm install -g @agentclientprotocol/claude-agent-acp');
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/Copied/));
  });

  it('says when copying is refused', async () => {
    render(FirstRun, { agents, oncheck: async () => {}, copy: () => Promise.reject(new Error('denied')) });
    await fireEvent.click(screen.getByRole('button', { name: 'Copy the install command for Claude Code' }));
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/copy it by hand/));
  });

  it('checks again: reloads the agents, busy meanwhile', async () => {
    let finish!: () => void;
    const oncheck = vi.fn(() => new Promise<void>((r) => (finish = r)));
    render(FirstRun, { agents, oncheck });
    await fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    expect(oncheck).toHaveBeenCalledTimes(1);
    expect((screen.getByRole('button', { name: 'Checking…' }) as HTMLButtonElement).disabled).toBe(true);
    finish();
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/still no agent/));
  });
});

describe('FirstRun: install from Settings', () => {
  it('offers Settings when an npm agent is missing', async () => {
    let opened = 0;
    render(FirstRun, {
      props: {
        agents: [{ id: 'claude', name: 'Claude Code', status: 'unavailable', command: 'claude-agent-acp', npm: { package: '@agentclientprotocol/claude-agent-acp', version: '0.100.0' } }],
        oncheck: async () => {},
        onsettings: () => opened++,
      },
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Install from Settings' }));
    expect(opened).toBe(1);
  });
});
