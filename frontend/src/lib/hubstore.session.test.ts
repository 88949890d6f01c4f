// HubStore and a new thread's agent session (issue 29): the session is
// opened when the thread is created, and its modes and options reach the
// thread (the pickers) without a reload, from the answer or the events.
import { beforeEach, describe, expect, it } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { FakeTransport, ev, thread } from '../test/fakeTransport';
import { HubError } from './transport';

beforeEach(() => localStorage.clear());

const modes = { currentModeId: 'default', availableModes: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }] };
const model = { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fake-small', options: [{ value: 'fake-small', name: 'Small' }] };

async function started() {
  const f = new FakeTransport();
  f.threads = [thread('th_1')];
  const store = new HubStore(f, () => {});
  await store.start();
  return { f, store };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('HubStore new thread session', () => {
  it('opens the session of a thread it creates, and shows its modes from the answer', async () => {
    const { f, store } = await started();
    f.sessionModes = modes;
    const t = await store.createThread('sdk', '/src/one');
    await settle();
    expect(f.calls.filter((c) => c.method === 'openSession').map((c) => c.args[0])).toEqual([t.id]);
    expect(store.threads[t.id].modes?.currentModeId).toBe('default');
    store.stop();
  });

  it('creates the thread even when opening its session fails', async () => {
    const { f, store } = await started();
    f.openSession = () => Promise.reject(new Error('agent missing'));
    const t = await store.createThread('sdk', '/src/one');
    await settle();
    expect(store.selectedId).toBe(t.id);
    expect(store.threads[t.id].modes).toBeUndefined();
    expect(store.errors).toEqual([]);
    store.stop();
  });

  it('an agent that needs signing in: the thread asks for it at once, and opens its session once signed in', async () => {
    const { f, store } = await started();
    const open = f.openSession.bind(f);
    f.openSession = () =>
      Promise.reject(new HubError('UPSTREAM_UNAVAILABLE', 'sign in first', { status: 502, details: { reason: 'AUTH_REQUIRED' } }));
    const t = await store.createThread('sdk', '/src/one');
    await settle();
    expect(store.signInFirst).toEqual({ [t.id]: 'sdk' });
    expect(store.errors).toEqual([]);
    store.signedIn('other-agent');
    await settle();
    expect(f.calls.filter((c) => c.method === 'openSession')).toHaveLength(0); // the fake's own log: only the real one logs
    f.sessionModes = modes;
    f.openSession = open;
    store.signedIn('sdk');
    await settle();
    expect(f.calls.filter((c) => c.method === 'openSession').map((c) => c.args[0])).toEqual([t.id]);
    expect(store.signInFirst).toEqual({});
    expect(store.threads[t.id].modes?.currentModeId).toBe('default');
    store.stop();
  });

  it('another refusal of the early open asks nothing: the first prompt reports it', async () => {
    const { f, store } = await started();
    f.openSession = () => Promise.reject(new HubError('UPSTREAM_UNAVAILABLE', 'agent crashed', { status: 502 }));
    await store.createThread('sdk', '/src/one');
    await settle();
    expect(store.signInFirst).toEqual({});
    store.stop();
  });

  it('takes a first session’s state from its events: config_options at once, mode_changed by reading the thread', async () => {
    const { f, store } = await started();
    expect(store.threads['th_1'].modes).toBeUndefined();
    store.apply(ev(1, 'config_options', { configOptions: [model] }, 'th_1', ''));
    expect(store.threads['th_1'].configOptions?.[0].currentValue).toBe('fake-small');
    f.threads = [thread('th_1', { modes, configOptions: [model] })];
    store.apply(ev(2, 'mode_changed', { modeId: 'default' }, 'th_1', ''));
    await settle();
    expect(store.threads['th_1'].modes?.availableModes.map((m) => m.id)).toEqual(['default', 'plan']);
    store.stop();
  });
});
