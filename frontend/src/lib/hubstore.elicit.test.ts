// HubStore: the agents' questions from events and the snapshot, answered
// through the transport; an ended one stays ended.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { FakeTransport, ev, thread } from '../test/fakeTransport';
import type { Elicitation } from './elicitation';

beforeEach(() => localStorage.clear());

const q = (id: string, over: Partial<Elicitation> = {}): Elicitation => ({
  id,
  threadId: 'th_1',
  turnId: 'tu_1',
  mode: 'form',
  message: 'Which?',
  requestedSchema: { type: 'object', properties: { b: { type: 'string' } } },
  status: 'pending',
  deadline: '2026-11-21T06:10:00Z',
  createdAt: `2026-11-21T06:00:0${id.slice(-1)}Z`,
  ...over,
});

describe('HubStore questions', () => {
  it('keeps pending questions from the snapshot and events, answers one, never revives an ended one', async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_1')];
    const answered: [string, unknown][] = [];
    const t = Object.assign(f, {
      listElicitations: vi.fn(async () => [q('el_1')]),
      answerElicitation: vi.fn(async (id: string, a: unknown) => {
        answered.push([id, a]);
        return q(id, { status: 'declined', decidedBy: 'browser' });
      }),
    });
    const store = new HubStore(t, () => {});
    await store.start();
    await vi.waitFor(() => expect(store.questions.map((x) => x.id)).toEqual(['el_1']));
    store.apply(ev(1, 'elicitation_required', { elicitation: q('el_2') }, 'th_1', 'tu_1'));
    expect(store.questions.map((x) => x.id)).toEqual(['el_1', 'el_2']);

    await store.answerElicitation('el_1', { action: 'decline' });
    expect(answered).toEqual([['el_1', { action: 'decline' }]]);
    expect(store.questions.map((x) => x.id)).toEqual(['el_2']);
    // A stale pending copy (a late snapshot) does not bring it back.
    store.upsertElicitation(q('el_1'));
    expect(store.questions.map((x) => x.id)).toEqual(['el_2']);

    store.apply(ev(2, 'elicitation_resolved', { elicitation: q('el_2', { status: 'expired', decidedBy: 'timeout' }) }, 'th_1', 'tu_1'));
    expect(store.questions).toEqual([]);
    // Odd payloads are ignored.
    store.apply(ev(3, 'elicitation_required', { elicitation: { id: 5 } }, 'th_1', 'tu_1'));
    expect(store.questions).toEqual([]);
    store.stop();
  });

  it('opens a link through the transport only for a question it knows', async () => {
    const f = new FakeTransport();
    const opened: string[] = [];
    const t = Object.assign(f, { openElicitationURL: vi.fn(async (el: Elicitation) => void opened.push(el.url ?? '')) });
    const store = new HubStore(t, () => {});
    await store.start();
    store.apply(ev(1, 'elicitation_required', { elicitation: q('el_3', { mode: 'url', url: 'https://example.com/x' }) }, 'th_1', 'tu_1'));
    await store.openElicitationURL('el_3');
    await store.openElicitationURL('el_nope');
    expect(opened).toEqual(['https://example.com/x']);
    store.stop();
  });
});
