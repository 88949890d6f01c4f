import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within, waitFor } from '@testing-library/svelte';
import ImportSessionsDialog from './ImportSessionsDialog.svelte';
import { HubError } from '../lib/transport';
import type { AgentSessionPage, ImportSessionRequest, SessionsApi } from '../lib/sessions';
import type { Agent, Thread } from '../lib/types';

const agents: Agent[] = [
  { id: 'qwen', name: 'Qwen Code', status: 'available', command: 'qwen' },
  { id: 'plain', name: 'Plain agent', status: 'available', command: 'plain' },
  { id: 'gone', name: 'Gone agent', status: 'unavailable', command: 'gone' },
];

const thread = (id: string): Thread => ({
  id,
  agent: 'qwen',
  cwd: '/src/app',
  title: 't',
  clientId: 'window',
  status: 'idle',
  createdAt: '',
  updatedAt: '',
});

/** Two pages: s1 (imported already) and s2, then s3 with a hostile title. */
function fakeSessions(): SessionsApi & { calls: string[]; imports: ImportSessionRequest[] } {
  const calls: string[] = [];
  const imports: ImportSessionRequest[] = [];
  const pages: Record<string, AgentSessionPage> = {
    '': {
      sessions: [
        { sessionId: 's1', cwd: '/src/app', title: 'Fix the parser', updatedAt: '2026-11-20T10:00:00Z', threadId: 'th_old' },
        { sessionId: 's2', cwd: '/src/app', title: 'Add a test' },
      ],
      nextCursor: 'c2',
    },
    c2: { sessions: [{ sessionId: 's3', cwd: '/src/app', title: '<img src=x onerror="window.pwned=1">' }] },
  };
  return {
    calls,
    imports,
    list: async (agent, cwd, cursor) => {
      calls.push(`${agent} ${cwd} ${cursor ?? ''}`);
      if (agent === 'plain') {
        throw new HubError('INVALID_ARGUMENT', 'no session/list', { details: { reason: 'SESSION_LIST_UNSUPPORTED' } });
      }
      return pages[cursor ?? ''];
    },
    importSession: async (req) => {
      imports.push(req);
      return { thread: thread('th_new'), created: true };
    },
  };
}

describe('ImportSessionsDialog', () => {
  it('lists a folder’s sessions, pages with More, imports one and opens its thread', async () => {
    const sessions = fakeSessions();
    const onopen = vi.fn();
    const onclose = vi.fn();
    render(ImportSessionsDialog, { agents, agent: 'qwen', cwd: '/src/app', sessions, onopen, onclose });
    const dialog = screen.getByRole('dialog', { name: 'Import sessions' });
    // Only available agents are offered.
    const select = within(dialog).getByRole('combobox', { name: 'Agent' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['qwen', 'plain']);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'List' }));
    const list = await within(dialog).findByRole('list', { name: "The agent's sessions" });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.getByRole('status').textContent).toBe('2 sessions, more to load.');
    // The first session's button has the keyboard; ↓ moves to the next.
    const open = within(list).getByRole('button', { name: 'Open thread of Fix the parser' });
    await waitFor(() => expect(document.activeElement).toBe(open));
    await fireEvent.keyDown(open, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(within(list).getByRole('button', { name: 'Import Add a test' }));

    await fireEvent.click(within(dialog).getByRole('button', { name: 'More' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(3));
    expect(sessions.calls).toEqual(['qwen /src/app ', 'qwen /src/app c2']);
    expect(within(dialog).queryByRole('button', { name: 'More' })).toBeNull();
    // An agent's title is text, never markup.
    const hostile = within(list).getByText('<img src=x onerror="window.pwned=1">');
    expect(hostile.querySelector('img')).toBeNull();
    expect(dialog.querySelector('img')).toBeNull();

    await fireEvent.click(within(list).getByRole('button', { name: 'Import Add a test' }));
    await waitFor(() => expect(onopen).toHaveBeenCalledWith('th_new'));
    expect(sessions.imports).toEqual([{ agent: 'qwen', sessionId: 's2', cwd: '/src/app', title: 'Add a test' }]);
    expect(onclose).toHaveBeenCalled();
  });

  it('opens the thread of a session imported before, without importing again', async () => {
    const sessions = fakeSessions();
    const onopen = vi.fn();
    render(ImportSessionsDialog, { agents, agent: 'qwen', cwd: '/src/app', sessions, onopen, onclose: () => {} });
    await fireEvent.click(screen.getByRole('button', { name: 'List' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Open thread of Fix the parser' }));
    expect(onopen).toHaveBeenCalledWith('th_old');
    expect(sessions.imports).toEqual([]);
  });

  it('says so when the agent does not list its sessions, and checks the folder', async () => {
    const sessions = fakeSessions();
    render(ImportSessionsDialog, { agents, agent: 'plain', cwd: 'relative/dir', sessions, onopen: () => {}, onclose: () => {} });
    const listButton = screen.getByRole('button', { name: 'List' }) as HTMLButtonElement;
    expect(listButton.disabled).toBe(true);
    const folder = screen.getByRole('textbox', { name: 'Folder' });
    await fireEvent.input(folder, { target: { value: '/src/app' } });
    expect(listButton.disabled).toBe(false);
    await fireEvent.submit(folder.closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toBe('Plain agent does not list its sessions.');
    expect(screen.queryByRole('list')).toBeNull();
  });

  it('starts on an agent that lists its sessions, and marks one known not to', async () => {
    const known: Agent[] = [
      { id: 'plain', name: 'Plain agent', status: 'available', command: 'plain', capabilities: { loadSession: true } },
      { id: 'qwen', name: 'Qwen Code', status: 'available', command: 'qwen', capabilities: { sessionCapabilities: { list: {} } } },
    ];
    render(ImportSessionsDialog, { agents: known, agent: 'plain', cwd: '/src/app', sessions: fakeSessions(), onopen: () => {}, onclose: () => {} });
    const select = screen.getByRole('combobox', { name: 'Agent' }) as HTMLSelectElement;
    expect(select.value).toBe('qwen');
    expect([...select.options].map((o) => o.textContent)).toEqual(['Plain agent (does not list its sessions)', 'Qwen Code']);
  });

  it('closes on Escape', async () => {
    const onclose = vi.fn();
    render(ImportSessionsDialog, { agents, cwd: '/src/app', sessions: fakeSessions(), onopen: () => {}, onclose });
    await fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(onclose).toHaveBeenCalled();
  });
});
