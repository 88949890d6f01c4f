// App wiring of the thread header, the first-run panel and unread marks.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { FakeTransport, ev, thread } from './test/fakeTransport';
import { threadMenuItem } from './test/menu';

beforeEach(() => localStorage.clear());

function setup(f = new FakeTransport()) {
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

describe('App threads', () => {
  it('renames and deletes the shown thread from its header', async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_1', { title: 'Fix the build' }), thread('th_2', { title: 'Docs' })];
    const { store } = setup(f);
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await fireEvent.click(await within(nav).findByRole('button', { name: /Fix the build/ }));
    await fireEvent.click(await threadMenuItem('Rename'));
    const input = screen.getByRole('textbox', { name: 'Thread title' });
    await fireEvent.input(input, { target: { value: 'Build fixed' } });
    await fireEvent.submit(input.closest('form')!);
    await screen.findByRole('heading', { name: 'Build fixed' });
    expect(within(nav).getByRole('button', { name: /Build fixed/ })).toBeTruthy();

    await fireEvent.click(await threadMenuItem('Delete'));
    await fireEvent.click(screen.getByRole('button', { name: 'Delete thread' }));
    await vi.waitFor(() => expect(within(nav).queryByRole('button', { name: /Build fixed/ })).toBeNull());
    expect(f.calls.some((c) => c.method === 'deleteThread' && c.args[0] === 'th_1')).toBe(true);
    expect(store.selectedId).toBeNull();
    expect(screen.getByText(/Pick a thread/)).toBeTruthy();
  });

  it('marks a thread unread when its turn finishes while another is shown', async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_1', { title: 'One' }), thread('th_2', { title: 'Two' })];
    setup(f);
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await fireEvent.click(await within(nav).findByRole('button', { name: /One/ }));
    f.push(ev(1, 'turn_started', { input: 'x' }, 'th_2', 'tu_1'));
    f.push(ev(2, 'turn_completed', { turn: { id: 'tu_1', status: 'completed' } }, 'th_2', 'tu_1'));
    const two = await within(nav).findByRole('button', { name: /^Unread: ?Two/ });
    await fireEvent.click(two);
    await vi.waitFor(() => expect(within(nav).getByRole('button', { name: /^Two/ }).classList.contains('unread')).toBe(false));
  });

  it('with no agent installed, shows the first-run page until the first thread, whose Start a thread opens New thread', async () => {
    const f = new FakeTransport();
    f.agents = [
      { id: 'claude', name: 'Claude Code', status: 'unavailable', command: 'claude-agent-acp', reason: 'claude-agent-acp not found on PATH', install: 'npm install -g @agentclientprotocol/claude-agent-acp', npm: { package: '@agentclientprotocol/claude-agent-acp', version: '0.100.0' } },
    ];
    setup(f);
    const panel = await screen.findByRole('region', { name: 'Install an agent to start' });
    await fireEvent.click(within(panel).getByRole('button', { name: 'Install Claude Code' }));
    expect(f.calls.some((c) => c.method === 'installAgent' && c.args[0] === 'claude')).toBe(true);
    f.agents = [{ ...f.agents[0], status: 'available', reason: undefined, installed: { version: '0.100.0', path: '/d/x' } }];
    // The install's end reloads the agents.
    f.push({ ...ev(1, 'agent_install', { agent: 'claude', phase: 'done', fraction: 1, version: '0.100.0' }), threadId: '', turnId: '' });
    // Installed: the page stays, and says what comes next.
    const next = await screen.findByRole('region', { name: 'Start your first thread' });
    await fireEvent.click(within(next).getByRole('button', { name: 'Start a thread with Claude Code' }));
    const dialog = await screen.findByRole('dialog', { name: 'New thread' });
    expect((within(dialog).getByRole('radio', { name: /Claude Code/ }) as HTMLInputElement).checked).toBe(true);
  });
});
