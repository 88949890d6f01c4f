import { describe, expect, it, vi } from 'vitest';
import { Conversation } from './conversation.svelte';
import { HubStore } from './hubstore.svelte';
import { HubError } from './transport';
import { FakeTransport, ev, permission, thread } from '../test/fakeTransport';

function manual() {
  const flushes: (() => void)[] = [];
  return { schedule: (f: () => void) => flushes.push(f), flushes };
}

describe('Conversation', () => {
  it('builds turns from events: input, merged text, tool calls, plan, completion', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'Fix the build' }));
    c.add(ev(2, 'thought_delta', { text: 'Let me ' }));
    c.add(ev(3, 'thought_delta', { text: 'look.' }));
    c.add(ev(4, 'message_delta', { text: 'Hello' }));
    c.add(ev(5, 'message_delta', { text: ', world' }));
    c.add(ev(6, 'tool_call', { toolCall: { toolCallId: 'c1', title: 'Read file', kind: 'read', status: 'pending' } }));
    c.add(ev(7, 'plan', { entries: [{ content: 'one', status: 'pending' }] }));
    c.add(ev(8, 'tool_call_update', { toolCall: { toolCallId: 'c1', status: 'completed', title: null } }));
    c.add(ev(9, 'plan', { entries: [{ content: 'one', status: 'completed' }] }));
    c.add(ev(10, 'message_delta', { text: 'Done.' }));
    c.add(ev(11, 'turn_completed', { turn: { id: 'tu_1', status: 'completed', stopReason: 'end_turn' } }));

    expect(c.turns).toHaveLength(1);
    const t = c.turns[0];
    expect(t).toMatchObject({ id: 'tu_1', input: 'Fix the build', status: 'completed', stopReason: 'end_turn' });
    expect(t.items.map((i) => i.kind)).toEqual(['thought', 'message', 'tool', 'plan', 'message']);
    expect(t.items[0]).toMatchObject({ text: 'Let me look.' });
    expect(t.items[1]).toMatchObject({ text: 'Hello, world' });
    expect(t.items[2]).toMatchObject({ toolCall: { toolCallId: 'c1', title: 'Read file', kind: 'read', status: 'completed' } });
    expect(t.items[3]).toMatchObject({ entries: [{ content: 'one', status: 'completed' }] });
    expect(c.runningTurn).toBeUndefined();
  });

  it('ignores an event whose seq it has seen', () => {
    const c = new Conversation();
    expect(c.add(ev(1, 'turn_started', { input: 'x' }))).toBe(true);
    expect(c.add(ev(2, 'message_delta', { text: 'a' }))).toBe(true);
    expect(c.add(ev(2, 'message_delta', { text: 'a' }))).toBe(false);
    expect(c.add(ev(1, 'turn_started', { input: 'x' }))).toBe(false);
    expect(c.turns[0].items).toEqual([{ kind: 'message', key: expect.any(Number), seq: 2, text: 'a' }]);
    expect(c.runningTurn?.id).toBe('tu_1');
  });

  it('puts a late event in seq order', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'x' }));
    c.add(ev(2, 'message_delta', { text: 'a' }));
    c.add(ev(4, 'message_delta', { text: 'c' }));
    c.add(ev(3, 'message_delta', { text: 'b' }));
    expect(c.turns[0].items).toMatchObject([{ kind: 'message', text: 'abc' }]);
    expect(c.lastSeq).toBe(4);
  });

  it('merges history with live events already applied, without doubling', () => {
    const c = new Conversation();
    // Live events arrived first (the stream was open before history loaded).
    c.add(ev(5, 'message_delta', { text: ' there' }, 'th_1', 'tu_2'));
    c.loadHistory([
      {
        id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'first', output: 'ok', startedAt: '',
        events: [ev(1, 'turn_started', { input: 'first' }), ev(2, 'message_delta', { text: 'ok' }), ev(3, 'turn_completed', { turn: { status: 'completed' } })],
      },
      {
        id: 'tu_2', threadId: 'th_1', status: 'running', input: 'second', output: '', startedAt: '',
        events: [ev(4, 'message_delta', { text: 'hi' }, 'th_1', 'tu_2'), ev(5, 'message_delta', { text: ' there' }, 'th_1', 'tu_2')],
      },
    ]);
    expect(c.turns.map((t) => [t.id, t.input, t.status])).toEqual([
      ['tu_1', 'first', 'completed'],
      ['tu_2', 'second', 'running'],
    ]);
    expect(c.turns[1].items).toMatchObject([{ kind: 'message', text: 'hi there' }]);
    expect(c.loaded).toBe(true);
  });
});

describe('HubStore', () => {
  it('applies queued events once per frame, in one batch', () => {
    const f = new FakeTransport();
    const s = manual();
    const store = new HubStore(f, s.schedule);
    store.threads['th_1'] = thread('th_1');
    f.subscribe(-1, { onEvent: (e) => store.enqueue(e) });
    f.push(ev(1, 'turn_started', { input: 'go' }));
    for (let i = 0; i < 2000; i++) f.push(ev(2 + i, 'message_delta', { text: 'x' }));
    expect(s.flushes).toHaveLength(1); // one frame scheduled for all 2001 events
    expect(store.conversations['th_1']).toBeUndefined();
    s.flushes[0]();
    const turn = store.conversations['th_1'].turns[0];
    expect(turn.items).toMatchObject([{ kind: 'message', text: 'x'.repeat(2000) }]);
    expect(store.threads['th_1'].status).toBe('running');
    f.push(ev(3000, 'turn_completed', { turn: { status: 'completed' } }));
    expect(s.flushes).toHaveLength(2);
    s.flushes[1]();
    expect(store.threads['th_1'].status).toBe('idle');
  });

  it('ignores duplicates and tracks pending permissions', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    const p = permission('pe_1');
    expect(store.apply(ev(1, 'permission_required', { permission: p }))).toBe(true);
    expect(store.apply(ev(1, 'permission_required', { permission: p }))).toBe(false);
    expect(store.pending.map((x) => x.id)).toEqual(['pe_1']);
    expect(store.conversations['th_1'].turns[0].items).toMatchObject([{ kind: 'permission', permissionId: 'pe_1' }]);
    store.apply(ev(2, 'permission_resolved', { permission: { ...p, status: 'approved', decidedBy: 'tray' } }));
    expect(store.pending).toEqual([]);
    // A stale snapshot does not reopen a decided permission.
    store.upsertPermission(p);
    expect(store.permissions['pe_1'].status).toBe('approved');
  });

  it('starts: subscribes, loads threads (newest first), agents and pending permissions', async () => {
    const f = new FakeTransport();
    f.threads = [thread('a', { updatedAt: '2026-11-21T06:00:00Z' }), thread('b', { updatedAt: '2026-11-21T07:00:00Z' })];
    f.permissions = [permission('pe_9')];
    const store = new HubStore(f, () => {});
    await store.start();
    expect(f.calls[0]).toEqual({ method: 'subscribe', args: [-1] });
    expect(store.threadList.map((t) => t.id)).toEqual(['b', 'a']);
    expect(store.agents).toHaveLength(2);
    expect(store.pending.map((p) => p.id)).toEqual(['pe_9']);
    expect(store.connection).toBe('open');
    // thread_updated upserts (a newer copy wins).
    store.apply(ev(3, 'thread_updated', { thread: thread('a', { title: 'Renamed', updatedAt: '2026-11-21T08:00:00Z' }) }, '', ''));
    expect(store.threadList.map((t) => t.title)).toEqual(['Renamed', 'Thread b']);
    store.stop();
  });

  it('cancels the running turn of a thread', async () => {
    const f = new FakeTransport();
    const store = new HubStore(f, () => {});
    store.apply(ev(1, 'turn_started', { input: 'x' }, 'th_1', 'tu_7'));
    await store.cancel('th_1');
    expect(f.calls.at(-1)).toEqual({ method: 'cancelTurn', args: ['tu_7'] });
  });

  it("loads a thread it first sees through events (another client's)", async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_x', { title: 'From the editor' })];
    const store = new HubStore(f, () => {});
    store.apply(ev(1, 'turn_started', { input: 'x' }, 'th_x', 'tu_1'));
    store.apply(ev(2, 'message_delta', { text: 'y' }, 'th_x', 'tu_1'));
    await vi.waitFor(() => expect(store.threadList.map((t) => t.title)).toEqual(['From the editor']));
  });

  it('sets mode and model from the answer, and follows mode_changed / config_options events', async () => {
    const f = new FakeTransport();
    const modes = { currentModeId: 'default', availableModes: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }] };
    const model = { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fake-small', options: [{ value: 'fake-small', name: 'Small' }, { value: 'fake-large', name: 'Large' }] };
    f.threads = [thread('th_1', { modes, configOptions: [model] })];
    const store = new HubStore(f, () => {});
    await store.start();
    await store.setMode('th_1', 'plan');
    expect(f.calls.at(-1)).toEqual({ method: 'setMode', args: ['th_1', 'plan'] });
    expect(store.threads['th_1'].modes?.currentModeId).toBe('plan');
    await store.setConfigOption('th_1', 'model', 'fake-large');
    expect(store.threads['th_1'].configOptions?.[0].currentValue).toBe('fake-large');

    store.apply(ev(1, 'mode_changed', { modeId: 'default' }, 'th_1', ''));
    expect(store.threads['th_1'].modes).toEqual({ ...modes, currentModeId: 'default' });
    store.apply(ev(2, 'config_options', { configOptions: [{ ...model, currentValue: 'fake-small' }] }, 'th_1', ''));
    expect(store.threads['th_1'].configOptions?.[0].currentValue).toBe('fake-small');

    f.setError = new HubError('UPSTREAM_UNAVAILABLE', 'the agent could not start');
    await expect(store.setMode('th_1', 'plan')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(store.threads['th_1'].modes?.currentModeId).toBe('default');
    store.stop();
  });

  it('navigates to a permission (a notification click): selects its thread and asks to reveal it', async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_1'), thread('th_2')];
    const store = new HubStore(f, () => {});
    await store.start();
    // Not known yet: the pending list is asked for again.
    f.permissions = [permission('pe_5', { threadId: 'th_2' })];
    f.navigate?.({ kind: 'permission', id: 'pe_5' });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_2'));
    expect(f.calls.filter((c) => c.method === 'listPermissions').at(-1)?.args).toEqual(['pending']);
    expect(store.reveal).toMatchObject({ kind: 'permission', id: 'pe_5', threadId: 'th_2' });

    f.navigate?.({ kind: 'turn', id: 'tu_3', threadId: 'th_1' });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_1'));
    expect(store.reveal).toMatchObject({ kind: 'turn', id: 'tu_3', threadId: 'th_1' });

    // An unknown permission changes nothing.
    await store.navigate({ kind: 'permission', id: 'pe_none' });
    expect(store.selectedId).toBe('th_1');
    store.stop();
    expect(f.navigate).toBeUndefined();
  });
});
