// Toasts never outlive what they say (issue 29): one about something goes
// as soon as that works again, and the same sentence is never shown twice.
import { beforeEach, describe, expect, it } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { HubError } from './transport';
import { FakeTransport } from '../test/fakeTransport';

beforeEach(() => localStorage.clear());

class FlakyAgents extends FakeTransport {
  down = true;
  override async listAgents() {
    if (this.down) throw new HubError('UNAVAILABLE', 'the hub is restarting', { status: 503 });
    return super.listAgents();
  }
}

describe('HubStore: toasts', () => {
  it('takes a failed load’s toast away once the load works again', async () => {
    const t = new FlakyAgents();
    const store = new HubStore(t, () => {});
    await store.loadAgents().catch((e) => store.report(e, 'agents'));
    store.report(new HubError('CONFLICT', 'thread is busy', { status: 409, details: { reason: 'BUSY' } }));
    expect(store.errors).toHaveLength(2);
    t.down = false;
    await store.loadAgents();
    expect(store.errors).toHaveLength(1);
    expect(store.errors[0].about).toBeUndefined();
  });

  it('shows the same sentence once, the newer in place of the older', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    const busy = () => new HubError('CONFLICT', 'thread is busy', { status: 409, details: { reason: 'BUSY' } });
    store.report(busy());
    const first = store.errors[0].id;
    store.report(busy());
    expect(store.errors).toHaveLength(1);
    expect(store.errors[0].id).not.toBe(first);
  });
});
