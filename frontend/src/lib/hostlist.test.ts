import { describe, expect, it } from 'vitest';
import { HostList } from './hostlist.svelte';
import type { Host, HostState } from './types';

const host = (name: string, state: HostState): Host => ({ name, state, since: '2026-11-28T16:46:39Z' }) as Host;

/** A transport whose reads the test answers one by one, in any order. */
function reads() {
  const pending: ((hosts: Host[]) => void)[] = [];
  return {
    pending,
    transport: { listHosts: () => new Promise<Host[]>((r) => pending.push(r)) },
    /** Answers read i (0-based) with hosts, then lets the list take it. */
    async answer(i: number, hosts: Host[]) {
      pending[i](hosts);
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

describe('HostList', () => {
  it('reads again when a change arrives before the answer, so an older answer never hides it', async () => {
    // The CI run of stop 39: the page read "connecting", box then needed
    // attention, and the change reached the window before the read's
    // answer; the answer hid the change, and Retry never showed.
    const r = reads();
    const list = new HostList(r.transport);
    list.hosts = [host('local', 'connected'), host('box', 'unreachable')];
    const loading = list.load();
    list.follow({ n: 1, host: host('box', 'needs_attention') });
    expect(list.hosts[1].state).toBe('needs_attention');
    await r.answer(0, [host('local', 'connected'), host('box', 'connecting')]); // older than the change
    expect(list.hosts[1].state).toBe('needs_attention');
    expect(r.pending).toHaveLength(2);
    await r.answer(1, [host('local', 'connected'), host('box', 'needs_attention')]);
    await loading;
    expect(list.hosts.map((h) => h.state)).toEqual(['connected', 'needs_attention']);
  });

  it('shows a read with no change during it at once', async () => {
    const r = reads();
    const list = new HostList(r.transport);
    const loading = list.load();
    await r.answer(0, [host('local', 'connected'), host('box', 'connected')]);
    await loading;
    expect(r.pending).toHaveLength(1);
    expect(list.loaded).toBe(true);
    expect(list.hosts[1].state).toBe('connected');
  });

  it('keeps the later of two reads when the earlier answers last', async () => {
    const r = reads();
    const list = new HostList(r.transport);
    const first = list.load();
    const second = list.load();
    await r.answer(1, [host('box', 'connected')]);
    await r.answer(0, [host('box', 'unreachable')]);
    await Promise.all([first, second]);
    expect(list.hosts[0].state).toBe('connected');
  });

  it('stops reading again after a few changes in a row, and shows the last answer', async () => {
    const r = reads();
    const list = new HostList(r.transport);
    list.hosts = [host('box', 'unreachable')];
    const loading = list.load();
    for (let i = 0; i < 5; i++) {
      list.follow({ n: i + 1, host: host('box', i % 2 ? 'unreachable' : 'connecting') });
      await r.answer(i, [host('box', 'connecting')]);
    }
    await loading;
    expect(r.pending).toHaveLength(5);
    expect(list.hosts[0].state).toBe('connecting');
  });

  it('keeps the list when a read fails, and says it was read', async () => {
    const list = new HostList({ listHosts: () => Promise.reject(new Error('hub down')) });
    list.hosts = [host('box', 'connected')];
    await expect(list.load()).rejects.toThrow('hub down');
    expect(list.loaded).toBe(true);
    expect(list.hosts[0].state).toBe('connected');
  });
});
