import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import SettingsAgents from './SettingsAgents.svelte';
import { HubError } from '../lib/transport';
import { FakeInstaller } from '../test/fakeInstaller.svelte';
import type { Agent } from '../lib/types';

const claude: Agent = {
  id: 'claude',
  name: 'Claude Code',
  status: 'unavailable',
  command: 'claude-agent-acp',
  reason: 'claude-agent-acp not found on PATH',
  npm: { package: '@agentclientprotocol/claude-agent-acp', version: '0.100.0', minNode: 22 },
};

describe('Settings → Agents: install', () => {
  it('installs with live progress, then shows the version, offers the update and removes', async () => {
    const inst = new FakeInstaller();
    let agents = $state<Agent[]>([claude]);
    render(SettingsAgents, { props: { get agents() { return agents; }, configured: [], onsave: async () => {}, installer: inst } });

    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    expect(inst.calls).toEqual(['install claude']);
    inst.event({ agent: 'claude', phase: 'downloading', fraction: 0.4 });
    flushSync();
    const bar = screen.getByRole('progressbar', { name: 'Installing Claude Code' }) as HTMLProgressElement;
    expect(bar.value).toBeCloseTo(0.4);
    expect(screen.getByText('Downloading…')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Install Claude Code' })).toBeNull();

    inst.event({ agent: 'claude', phase: 'done', fraction: 1, version: '0.100.0' });
    agents = [{ ...claude, status: 'available', reason: undefined, installed: { version: '0.100.0', path: '/d/agents/claude/x' }, update: '0.101.0' }];
    flushSync();
    expect(screen.getByText('Installed 0.100.0')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Update Claude Code to 0.101.0' }));
    expect(inst.calls).toContain('install claude@0.101.0');

    inst.event({ agent: 'claude', phase: 'done', fraction: 1, version: '0.101.0' });
    flushSync();
    await fireEvent.click(screen.getByRole('button', { name: "Remove Claude Code's install" }));
    expect(inst.calls).toContain('remove claude');
  });

  it('says why an install failed, and a refusal', async () => {
    const inst = new FakeInstaller();
    render(SettingsAgents, { props: { agents: [claude], configured: [], onsave: async () => {}, installer: inst } });
    inst.refuse = new HubError('CONFLICT', 'this agent needs Node.js 22 or newer', { status: 409, details: { reason: 'NODE_TOO_OLD' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Install Claude Code' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('needs Node.js 22'));

    inst.refuse = undefined;
    inst.event({ agent: 'claude', phase: 'failed', fraction: 0.3, error: 'cannot reach the npm registry: check the network connection', reason: 'NO_NETWORK' });
    flushSync();
    expect(screen.getAllByRole('alert').some((a) => a.textContent?.includes('cannot reach the npm registry'))).toBe(true);
    expect(screen.getByRole('button', { name: 'Install Claude Code' })).toBeTruthy(); // try again
  });

  it('offers Node when the one found is too old, says so once, and Install installs Node first, then the agent', async () => {
    const inst = new FakeInstaller();
    inst.node = { path: '/usr/bin/node', version: '20.20.2', major: 20, required: 22, ok: false };
    const gem = { ...claude, id: 'gem', name: 'Gemini CLI' };
    render(SettingsAgents, { props: { agents: [claude, gem], configured: [], onsave: async () => {}, installer: inst } });
    expect(screen.getByText(/need Node.js 22 or newer; this computer has 20.20.2/)).toBeTruthy();
    // Said once, by the notice: not again beside each agent.
    expect(screen.queryAllByText(/Needs Node\.js 22/)).toHaveLength(0);
    expect(screen.queryByRole('note')).toBeNull(); // and no "Not found on PATH" for agents it can install
    const install = screen.getByRole('button', { name: 'Install Claude Code' });
    expect(install.getAttribute('title')).toBe('Installs Node.js 22 first, then Claude Code');
    await fireEvent.click(install);
    expect(inst.calls).toEqual(['install node']);
    inst.node = { path: '/data/node/bin/node', version: '22.3.0', major: 22, required: 22, ok: true };
    inst.event({ agent: 'node', phase: 'done', fraction: 1 });
    await waitFor(() => expect(inst.calls).toEqual(['install node', 'install claude']));
  });
});
