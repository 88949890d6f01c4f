// HubStore: unread marks, deleted threads, recent folders, thread actions.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { HubError } from './transport';
import { FakeTransport, ev, permission, thread } from '../test/fakeTransport';
import type { Thread } from './types';

beforeEach(() => localStorage.clear());

async function started(threads: Thread[] = [thread('th_1'), thread('th_2')]) {
  const f = new FakeTransport();
  f.threads = threads;
  const store = new HubStore(f, () => {});
  await store.start();
  return { f, store };
}

const done = (seq: number, threadId: string, status = 'completed') =>
  ev(seq, 'turn_completed', { turn: { id: `tu_${seq}`, status } }, threadId, `tu_${seq}`);

describe('HubStore unread marks', () => {
  it('marks a thread whose turn finished while it was not shown; selecting it clears the mark', async () => {
    const { store } = await started();
    await store.select('th_1');
    store.apply(done(1, 'th_1'));
    store.apply(done(2, 'th_2'));
    expect(store.marks.unread('th_1')).toBe(false); // seen as it happened
    expect(store.marks.unread('th_2')).toBe(true);
    await store.select('th_2');
    expect(store.marks.unread('th_2')).toBe(false);
    store.stop();
  });

  it('marks the shown thread when the window was hidden, and clears it when shown again', async () => {
    const { store } = await started();
    await store.select('th_1');
    store.setVisible(false);
    store.apply(done(3, 'th_1'));
    expect(store.marks.unread('th_1')).toBe(true);
    store.setVisible(true);
    expect(store.marks.unread('th_1')).toBe(false);
    store.stop();
  });

  it('keeps the marks over a reload (same client), not the hub’s internal turns', async () => {
    const a = await started();
    a.store.apply(done(4, 'th_2', 'failed'));
    a.store.apply(ev(5, 'turn_completed', { turn: { id: 'tu_x', status: 'completed', internal: true } }, 'th_1', 'tu_x'));
    a.store.stop();
    const b = await started();
    expect(b.store.marks.unread('th_2')).toBe(true);
    expect(b.store.marks.last('th_2')).toBe('failed');
    expect(b.store.marks.unread('th_1')).toBe(false);
    b.store.stop();
  });

  it('learns how the last turn ended from history', async () => {
    const { f, store } = await started();
    f.histories.set('th_1', [
      { id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'a', output: '', startedAt: '' },
      { id: 'tu_2', threadId: 'th_1', status: 'interrupted', input: 'b', output: '', startedAt: '' },
    ]);
    await store.select('th_1');
    expect(store.marks.last('th_1')).toBe('interrupted');
    store.apply(ev(9, 'turn_started', { input: 'again' }, 'th_1', 'tu_3'));
    expect(store.marks.last('th_1')).toBeUndefined();
    store.stop();
  });
});

describe('HubStore history past the hub bound', () => {
  it('pages a history the hub will not send whole, a turn too large for a page without its events', async () => {
    const { f, store } = await started();
    const turn = (id: string, seq: number) => ({
      id,
      threadId: 'th_1',
      status: 'completed' as const,
      input: id,
      output: '',
      startedAt: '',
      events: [ev(seq, 'message_delta', { text: id }, 'th_1', id)],
    });
    f.histories.set('th_1', [turn('tu_1', 1), turn('tu_big', 2), turn('tu_3', 3)]);
    f.history = async () => {
      throw new HubError('PAYLOAD_TOO_LARGE', 'page it', { status: 413 });
    };
    const paged = f.historyPage.bind(f);
    f.historyPage = async (id, q) => {
      const p = await paged(id, { ...q, limit: 1 });
      if (q.includeEvents && p.turns[0]?.id === 'tu_big') throw new HubError('PAYLOAD_TOO_LARGE', 'turn tu_big alone', { status: 413 });
      return q.includeEvents ? p : { ...p, turns: p.turns.map(({ events: _, ...t }) => t) };
    };
    await store.select('th_1');
    const c = store.conversations['th_1'];
    expect(c.loaded).toBe(true);
    expect(c.turns.map((t) => t.id)).toEqual(['tu_1', 'tu_big', 'tu_3']);
    expect(c.lastSeq).toBe(3);
    expect(c.turns.map((t) => t.items.length)).toEqual([1, 0, 1]);
    expect(f.calls.filter((x) => x.method === 'historyPage').length).toBe(4); // tu_1, tu_big (refused), tu_big without events, tu_3
    store.stop();
  });
});

describe('HubStore deleted threads', () => {
  it('drops a thread deleted elsewhere (thread_updated deleted:true): conversation, permissions, selection', async () => {
    const { f, store } = await started();
    f.permissions = [];
    store.apply(ev(1, 'permission_required', { permission: permission('pe_1', { threadId: 'th_1' }) }));
    store.apply(ev(2, 'permission_required', { permission: permission('pe_2', { threadId: 'th_2', turnId: 'tu_9' }) }, 'th_2', 'tu_9'));
    store.apply(done(3, 'th_1'));
    await store.select('th_1');
    expect(store.pending.map((p) => p.id)).toEqual(['pe_1', 'pe_2']);

    // A closed thread is not a deleted one.
    store.apply(ev(4, 'thread_updated', { thread: thread('th_2', { status: 'closed', updatedAt: '2026-11-21T06:01:00Z' }) }, 'th_2', ''));
    expect(store.threads['th_2'].status).toBe('closed');

    const gone = thread('th_1', { status: 'closed', updatedAt: '2026-11-21T09:00:00Z' });
    store.apply(ev(5, 'thread_updated', { thread: gone, deleted: true }, 'th_1', ''));
    expect(store.threads['th_1']).toBeUndefined();
    expect(store.conversations['th_1']).toBeUndefined();
    expect(store.selectedId).toBeNull();
    expect(store.pending.map((p) => p.id)).toEqual(['pe_2']);
    expect(store.marks.marks['th_1']).toBeUndefined();
    // Late events of it do not bring it back.
    expect(store.apply(ev(6, 'message_delta', { text: 'late' }))).toBe(false);
    store.apply(ev(7, 'thread_updated', { thread: { ...gone, updatedAt: '2026-11-21T10:00:00Z' } }, 'th_1', ''));
    expect(store.threads['th_1']).toBeUndefined();
    expect(store.conversations['th_1']).toBeUndefined();
    store.stop();
  });

  it('deletes through the transport and forgets the thread at once', async () => {
    const { f, store } = await started();
    await store.select('th_2');
    await store.deleteThread('th_2');
    expect(f.calls.at(-1)).toEqual({ method: 'deleteThread', args: ['th_2'] });
    expect(store.threadList.map((t) => t.id)).toEqual(['th_1']);
    expect(store.selectedId).toBeNull();
    store.stop();
  });

  it('after a reconnect, drops threads the list no longer has (deleted while the stream was down)', async () => {
    const { f, store } = await started();
    f.threads = [f.threads[1]];
    f.handlers?.onState?.('reconnecting', new HubError('NETWORK', 'the event stream ended'));
    f.handlers?.onState?.('open');
    await vi.waitFor(() => expect(store.threadList.map((t) => t.id)).toEqual(['th_2']));
    store.stop();
  });

  it('after a reconnect, keeps the archived threads it knows (the list hides them) unless the hub lost them', async () => {
    const { f, store } = await started([thread('th_1'), thread('th_2', { archived: true }), thread('th_3', { archived: true })]);
    f.listThreads = async () => ({ threads: f.threads.filter((t) => !t.archived) });
    f.threads = f.threads.filter((t) => t.id !== 'th_3'); // deleted while the stream was down
    f.handlers?.onState?.('reconnecting', new HubError('NETWORK', 'the event stream ended'));
    f.handlers?.onState?.('open');
    await vi.waitFor(() => expect(store.threadList.map((t) => t.id).sort()).toEqual(['th_1', 'th_2']));
    store.stop();
  });
});

describe('HubStore threads read while announced', () => {
  it('keeps a thread_updated that came while a read of the thread was under way, not the read', async () => {
    const { f, store } = await started([thread('th_1')]);
    // Another client's thread, seen first through its turn: read from the hub.
    let answer: (t: Thread) => void = () => {};
    const get = vi.spyOn(f, 'getThread').mockImplementation(() => new Promise<Thread>((r) => (answer = r)));
    const at = '2026-11-21T07:00:00Z';
    store.apply(ev(1, 'turn_started', { input: 'hello' }, 'th_9', 'tu_1'));
    expect(get).toHaveBeenCalledWith('th_9');
    // Its session opened meanwhile: announced with what the read did not see.
    const sent = thread('th_9', { status: 'running', updatedAt: at, instructions: { mode: 'append', text: 'x', from: ['agent'], delivery: 'not_sent' } });
    store.apply(ev(2, 'thread_updated', { thread: sent }, 'th_9', ''));
    answer(thread('th_9', { status: 'running', updatedAt: at, instructions: { mode: 'append', text: 'x', from: ['agent'] } }));
    await vi.waitFor(() => expect(get).toHaveReturned());
    await Promise.resolve();
    expect(store.threads['th_9'].instructions?.delivery).toBe('not_sent');

    // A read with no announcement meanwhile is kept.
    store.apply(ev(3, 'mode_changed', { modeId: 'ask' }, 'th_9', 'tu_1')); // no modes on the thread: read again
    answer(thread('th_9', { status: 'running', updatedAt: at, title: 'Read again', instructions: sent.instructions }));
    await vi.waitFor(() => expect(store.threads['th_9'].title).toBe('Read again'));
    store.stop();
  });
});

describe('HubStore thread actions and folders', () => {
  it('renames and compacts from the answers; compacting is set while in flight', async () => {
    const { f, store } = await started();
    await store.renameThread('th_1', 'New name');
    expect(store.threads['th_1'].title).toBe('New name');

    let finish!: (t: Thread) => void;
    f.compactThread = () => new Promise<Thread>((r) => (finish = r));
    const p = store.compactThread('th_1');
    expect(store.compacting['th_1']).toBe(true);
    await store.compactThread('th_1'); // a second click while one runs does nothing
    finish(thread('th_1', { title: 'New name', updatedAt: '2026-11-21T09:00:00Z' }));
    await p;
    expect(store.compacting['th_1']).toBeUndefined();
    expect(store.threads['th_1'].updatedAt).toBe('2026-11-21T09:00:00Z');

    f.compactThread = () => Promise.reject(new HubError('CONFLICT', 'a turn is running'));
    await expect(store.compactThread('th_1')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(store.compacting['th_1']).toBeUndefined();
    store.stop();
  });

  it('offers the folders used here first, then the threads’, and remembers them over a reload', async () => {
    const { store } = await started([
      thread('a', { cwd: '/src/one', updatedAt: '2026-11-21T08:00:00Z' }),
      thread('b', { cwd: '/src/two', updatedAt: '2026-11-21T07:00:00Z' }),
      thread('c', { cwd: '/src/one', updatedAt: '2026-11-21T06:00:00Z' }),
    ]);
    expect(store.recentFolders).toEqual(['/src/one', '/src/two']);
    await store.createThread('sdk', '/src/three');
    expect(store.recentFolders).toEqual(['/src/three', '/src/one', '/src/two']);
    store.stop();
    expect(new HubStore(new FakeTransport(), () => {}).recentFolders).toEqual(['/src/three']);
  });
});

describe('HubStore imported sessions', () => {
  it('shows an imported thread it did not know, read from the hub, and remembers its folder', async () => {
    const { f, store } = await started([thread('th_1')]);
    // Made by the import after the list was read (its thread_updated not seen yet).
    f.threads.push(thread('th_imp', { cwd: '/src/imported', title: 'Imported', imported: { sessionId: 's1', history: 'stored' } }));
    await store.openImported('th_imp');
    expect(store.selectedId).toBe('th_imp');
    expect(store.threadList.map((t) => t.id)).toContain('th_imp');
    expect(store.threads['th_imp']?.imported).toEqual({ sessionId: 's1', history: 'stored' });
    expect(store.recentFolders[0]).toBe('/src/imported');
    store.stop();
  });
});

describe('HubStore config file state', () => {
  // Hub-wide events have no thread ('' here, absent on the wire).
  const hubWide = (seq: number, type: string, payload: Record<string, unknown>) => ev(seq, type, payload, '', '');
  const settled = () => new Promise((r) => setTimeout(r, 0));

  it('shows why the config file was refused, from the settings and then from config_error events', async () => {
    const f = new FakeTransport();
    f.settings = { ...f.settings, configError: 'line 3: unknown key permissons' };
    const store = new HubStore(f, () => {});
    await store.start();
    await settled();
    expect(store.configError).toBe('line 3: unknown key permissons');
    store.apply(hubWide(1, 'config_error', { file: '/c.yaml', message: '' }));
    expect(store.configError).toBe('');
    expect(store.settings?.configError).toBeUndefined();
    store.apply(hubWide(2, 'config_error', { file: '/c.yaml', message: 'line 9: bad' }));
    expect(store.configError).toBe('line 9: bad');
    expect(store.settings?.configError).toBe('line 9: bad');
    store.stop();
  });

  it('reloads the settings after a gap in the stream (config_error events missed meanwhile)', async () => {
    const { f, store } = await started();
    expect(store.configError).toBe('');
    f.settings = { ...f.settings, configError: 'line 5: bad' };
    f.handlers?.onGap?.();
    await vi.waitFor(() => expect(store.configError).toBe('line 5: bad'));
    store.stop();
  });

  it('loads the settings again on config_applied, and the agents when they changed', async () => {
    const { f, store } = await started();
    await settled();
    const count = (m: string) => f.calls.filter((c) => c.method === m).length;
    const [settings0, agents0] = [count('getSettings'), count('listAgents')];
    f.settings = { ...f.settings, ui: { theme: 'dark' } };
    store.apply(hubWide(1, 'config_applied', { file: '/c.yaml', changed: ['ui.theme'] }));
    await settled();
    expect(count('getSettings')).toBe(settings0 + 1);
    expect(count('listAgents')).toBe(agents0);
    expect(store.settings?.ui.theme).toBe('dark');
    f.agents = [...f.agents, { id: 'mine', name: 'Mine', status: 'available', command: '/bin/mine' }];
    store.apply(hubWide(2, 'config_applied', { file: '/c.yaml', changed: ['agents.mine'] }));
    await settled();
    expect(count('listAgents')).toBe(agents0 + 1);
    expect(store.agents.map((a) => a.id)).toContain('mine');
    store.stop();
  });

  it('drops the budget line once the budgets change: what it said is over', async () => {
    const { store } = await started();
    await settled();
    store.apply(hubWide(1, 'budget_exceeded', { budget: 'daily', currency: 'USD', spent: 5.2, limit: 5 }));
    expect(store.budgetNotice).toMatch(/daily budget is spent/);
    store.apply(hubWide(2, 'config_applied', { file: '/c.yaml', changed: ['ui.theme'] }));
    expect(store.budgetNotice).toMatch(/daily budget is spent/); // another key: still true
    store.apply(hubWide(3, 'config_applied', { file: '/c.yaml', changed: ['budgets.daily'] }));
    expect(store.budgetNotice).toBe('');
    store.stop();
  });

  it('loads the agents again on agents_changed (the registry fetched in the background)', async () => {
    const { f, store } = await started();
    await settled();
    const count = () => f.calls.filter((c) => c.method === 'listAgents').length;
    const before = count();
    f.agents = [...f.agents, { id: 'fromreg', name: 'From the registry', status: 'available', command: '' }];
    store.apply(hubWide(1, 'agents_changed', { reason: 'registry' }));
    await settled();
    expect(count()).toBe(before + 1);
    expect(store.agents.map((a) => a.id)).toContain('fromreg');
    store.stop();
  });

  it('loads the agents again when a turn failed for want of a sign-in (their methods are known then)', async () => {
    const { f, store } = await started();
    await settled();
    const count = () => f.calls.filter((c) => c.method === 'listAgents').length;
    const before = count();
    store.apply(ev(1, 'error', { code: 'UPSTREAM_UNAVAILABLE', message: 'x' }, 'th_1', 'tu_1'));
    await settled();
    expect(count()).toBe(before);
    store.apply(ev(2, 'error', { code: 'UPSTREAM_UNAVAILABLE', message: 'Codex needs signing in', reason: 'AUTH_REQUIRED', agent: 'codex' }, 'th_1', 'tu_1'));
    await settled();
    expect(count()).toBe(before + 1);
    store.stop();
  });
});

describe('HubStore and hostile permissions', () => {
  it('does not show a turn running whose turn_completed came before the answer to its POST', async () => {
    const { f, store } = await started();
    await store.select('th_1');
    const post = f.startTurn.bind(f);
    f.startTurn = async (threadId, input) => {
      // The hub streams the whole (fast) turn before the POST is answered.
      store.apply(ev(1, 'turn_started', { input: 'x' }, 'th_1', 'tu_new'));
      store.apply(ev(2, 'turn_completed', { turn: { id: 'tu_new', status: 'completed' } }, 'th_1', 'tu_new'));
      return post(threadId, input);
    };
    await store.send('th_1', { input: 'x' });
    expect(store.threads['th_1'].status).toBe('idle');
    expect(store.conversations['th_1'].runningTurn).toBeUndefined();
    // A turn still running when the answer comes is shown running.
    f.startTurn = async (threadId, input) => ({ ...(await post(threadId, input)), id: 'tu_next' });
    await store.send('th_1', { input: 'y' });
    expect(store.threads['th_1'].status).toBe('running');
    store.stop();
  });

  it('keeps a permission normalised, from an event or a list', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    const raw = { ...permission('p1'), toolCall: { toolCallId: 'x', locations: { path: '/x' }, content: 'c', status: 4 } };
    store.apply(ev(1, 'permission_required', { permission: raw }));
    expect(store.permissions.p1.toolCall).toEqual({ toolCallId: 'x', status: '4' });
    store.upsertPermission({ ...permission('p2'), options: 'none' } as never);
    expect(store.permissions.p2.options).toEqual([]);
  });
});
