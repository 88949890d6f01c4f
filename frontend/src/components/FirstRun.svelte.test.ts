import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import FirstRun from './FirstRun.svelte';
import { FakeInstaller } from '../test/fakeInstaller.svelte';
import type { Agent } from '../lib/types';

const claude: Agent = {
  id: 'claude',
  name: 'Claude Code',
  status: 'unavailable',
  command: 'claude-agent-acp',
  reason: 'claude-agent-acp not found on PATH; install it with: npm install -g @agentclientprotocol/claude-agent-acp',
  install: 'npm install -g @agentclientprotocol/claude-agent-acp',
  npm: { package: '@agentclientprotocol/claude-agent-acp', version: '0.100.0', minNode: 22 },
};
const agents: Agent[] = [
  claude,
  {
    id: 'goose',
    name: 'Goose',
    status: 'unavailable',
    command: 'goose acp',
    reason: 'goose not found on PATH; install it with: install Goose from https://block.github.io/goose/',
    install: 'install Goose from https://block.github.io/goose/',
  },
  { id: 'mine', name: 'My agent', status: 'unavailable', command: 'mine', reason: 'disabled in the config file' },
];

/** Renders FirstRun with agents the test can change, as the hub store's reload would. */
function setup(inst: FakeInstaller, initial = agents, onstart = vi.fn()) {
  let list = $state(initial);
  render(FirstRun, {
    props: {
      get agents() {
        return list;
      },
      oncheck: async () => {},
      installer: inst,
      onstart,
    },
  });
  return { set: (a: Agent[]) => ((list = a), flushSync()), onstart };
}

describe('FirstRun', () => {
  it('gives each installable agent an Install button in place, and says plainly why the others cannot start', () => {
    setup(new FakeInstaller());
    expect(screen.getByRole('heading', { name: 'Install an agent to start' })).toBeTruthy();
    const list = screen.getByRole('list', { name: 'Agents' });
    const cards = within(list).getAllByRole('listitem');
    expect(cards.map((c) => c.getAttribute('aria-label'))).toEqual(['Claude Code', 'Goose', 'My agent']);
    expect(within(cards[0]).getByRole('button', { name: 'Install Claude Code' })).toBeTruthy();
    expect(within(cards[1]).getByText('Not on this computer. Install it from https://block.github.io/goose/, then check again.')).toBeTruthy();
    expect(within(cards[1]).queryByRole('button')).toBeNull();
    expect(within(cards[2]).getByText('Turned off in the config file.')).toBeTruthy();
    // No command to copy, no "unavailable" badge.
    const text = document.body.textContent ?? '';
    expect(text).not.toMatch(/npm install|unavailable|not found on PATH/);
  });

  it('installs in place: progress, then "Installed" and Start a thread', async () => {
    const inst = new FakeInstaller();
    const { set, onstart } = setup(inst);
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    expect(inst.calls).toEqual(['install claude']);
    inst.event({ agent: 'claude', phase: 'downloading', fraction: 0.4 });
    flushSync();
    const card = screen.getByRole('listitem', { name: 'Claude Code' });
    expect((within(card).getByRole('progressbar', { name: 'Installing Claude Code' }) as HTMLProgressElement).value).toBeCloseTo(0.4);
    expect(within(card).getByText('Downloading…')).toBeTruthy();
    expect(card.querySelector('.pct')?.textContent).toBe('40%');
    expect(within(card).queryByRole('button', { name: 'Install Claude Code' })).toBeNull();

    inst.event({ agent: 'claude', phase: 'done', fraction: 1, version: '0.100.0' });
    set([{ ...claude, status: 'available', reason: undefined, installed: { version: '0.100.0', path: '/d/agents/claude/x' } }, ...agents.slice(1)]);
    expect(screen.getByRole('heading', { name: 'Start your first thread' })).toBeTruthy();
    expect(within(card).getByRole('status').textContent).toContain('Installed');
    await fireEvent.click(within(card).getByRole('button', { name: 'Start a thread with Claude Code' }));
    expect(onstart).toHaveBeenCalledWith('claude');
  });

  it('says why an install failed, in words, with the detail behind Details, and retries', async () => {
    const inst = new FakeInstaller();
    setup(inst);
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    inst.event({ agent: 'claude', phase: 'failed', fraction: 0.3, error: 'npm ERR! code E404 https://registry/x', reason: 'INSTALL_FAILED' });
    flushSync();
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('.title')?.textContent).toBe('Claude Code could not be installed.');
    expect(within(alert).getByText('Details').closest('details')?.open).toBe(false);
    expect(alert.querySelector('pre')?.textContent).toContain('npm ERR! code E404');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(inst.calls).toEqual(['install claude', 'install claude']);
  });

  it('installs Node first when the agents need it, with its progress and its end', async () => {
    const inst = new FakeInstaller();
    inst.node = { required: 22, ok: false };
    setup(inst);
    expect(screen.getByText('The agents need Node.js 22 or newer, and this computer has none.')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Install Node 22' }));
    expect(inst.calls).toEqual(['install node']);
    inst.event({ agent: 'node', phase: 'downloading', fraction: 0.5 });
    flushSync();
    expect((screen.getByRole('progressbar', { name: 'Installing Node' }) as HTMLProgressElement).value).toBeCloseTo(0.5);
    inst.event({ agent: 'node', phase: 'done', fraction: 1, version: '22.12.0' });
    inst.node = { path: '/d/node/bin/node', version: '22.12.0', major: 22, own: true, required: 22, ok: true };
    flushSync();
    expect(screen.getByText('Node.js 22.12.0 is installed.')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    expect(inst.calls).toEqual(['install node', 'install claude']);
  });

  it("an agent's Install with Node missing installs Node first, then the agent by itself", async () => {
    const inst = new FakeInstaller();
    inst.node = { path: '/usr/bin/node', version: '20.20.2', major: 20, required: 22, ok: false };
    setup(inst);
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    expect(inst.calls).toEqual(['install node']);
    const card = screen.getByRole('listitem', { name: 'Claude Code' });
    expect(within(card).getByText('Installing Node.js 22 first…')).toBeTruthy();
    inst.event({ agent: 'node', phase: 'downloading', fraction: 0.6 });
    flushSync();
    expect((within(card).getByRole('progressbar', { name: 'Installing Node for Claude Code' }) as HTMLProgressElement).value).toBeCloseTo(0.6);
    expect(inst.calls).toEqual(['install node']); // not before Node is there
    inst.event({ agent: 'node', phase: 'done', fraction: 1, version: '22.12.0' });
    inst.node = { path: '/d/node/bin/node', version: '22.12.0', major: 22, own: true, required: 22, ok: true };
    flushSync();
    await vi.waitFor(() => expect(inst.calls).toEqual(['install node', 'install claude']));
  });

  it("Node's install failing drops the agent's install, and says why once", async () => {
    const inst = new FakeInstaller();
    inst.node = { required: 22, ok: false };
    setup(inst);
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    inst.event({ agent: 'node', phase: 'failed', fraction: 0.2, error: 'getaddrinfo ENOTFOUND registry.npmjs.org', reason: 'NO_NETWORK' });
    flushSync();
    const alerts = screen.getAllByRole('alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0].querySelector('.title')?.textContent).toBe('Node.js could not be downloaded: this computer cannot reach the npm registry. Check the network connection.');
    expect(screen.getByRole('button', { name: 'Install Claude Code' })).toBeTruthy();
    expect(inst.calls).toEqual(['install node']);
  });

  it('an agent found on this computer is ready, first, with Start a thread', async () => {
    const { onstart } = setup(new FakeInstaller(), [
      ...agents,
      { id: 'sdk', name: 'SDK agent', status: 'available', command: 'sdk', version: '1.2.0' },
    ]);
    const cards = within(screen.getByRole('list', { name: 'Agents' })).getAllByRole('listitem');
    expect(cards[0].getAttribute('aria-label')).toBe('SDK agent');
    await fireEvent.click(within(cards[0]).getByRole('button', { name: 'Start a thread with SDK agent' }));
    expect(onstart).toHaveBeenCalledWith('sdk');
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
