import { describe, expect, it } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { FakeTransport, ev, permission } from '../test/fakeTransport';

describe('HubStore approvals', () => {
  it('keeps an escalated request pending, marked, and first in the inbox; a decision stays final', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    store.apply(ev(1, 'permission_required', { permission: permission('pe_1', { deadline: '2099-01-01T00:01:00Z' }) }));
    store.apply(ev(2, 'permission_required', { permission: permission('pe_2', { deadline: '2099-01-01T00:09:00Z' }) }));
    expect(store.inbox.map((p) => p.id)).toEqual(['pe_1', 'pe_2']);
    store.apply(ev(3, 'permission_escalated', { permission: permission('pe_2', { escalatedAt: '2099-01-01T00:02:00Z', agent: 'sdk' }) }));
    expect(store.permissions.pe_2).toMatchObject({ status: 'pending', escalatedAt: '2099-01-01T00:02:00Z', agent: 'sdk' });
    expect(store.inbox.map((p) => p.id)).toEqual(['pe_2', 'pe_1']);
    store.apply(ev(4, 'permission_resolved', { permission: permission('pe_2', { status: 'declined', decidedBy: 'timeout' }) }));
    store.apply(ev(5, 'permission_escalated', { permission: permission('pe_2', { escalatedAt: '2099-01-01T00:02:00Z' }) }));
    expect(store.permissions.pe_2.status).toBe('declined');
    expect(store.inbox.map((p) => p.id)).toEqual(['pe_1']);
  });

  it('shows a request a rule decided (permission_resolved alone) in its turn, once', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    store.apply(ev(1, 'turn_started', { input: 'x' }));
    const p = permission('pe_r', { status: 'approved', decidedBy: 'rule:reads-in-project', optionId: 'allow' });
    store.apply(ev(2, 'permission_resolved', { permission: p }));
    store.apply(ev(3, 'permission_required', { permission: { ...p, status: 'pending' } }));
    const items = store.conversation('th_1').turns[0].items.filter((i) => i.kind === 'permission');
    expect(items).toHaveLength(1);
    expect(store.permissions.pe_r).toMatchObject({ status: 'approved', decidedBy: 'rule:reads-in-project' });
  });

  it('decides a batch with one call: keeps each decided one, returns the failures (an id left unanswered too)', async () => {
    const f = new FakeTransport();
    f.permissions = [permission('pe_1'), permission('pe_2'), permission('pe_3')];
    f.conflicts.add('pe_2');
    const store = new HubStore(f, () => {});
    f.permissions.forEach((p) => store.upsertPermission(p));
    const answer = f.decidePermissions.bind(f);
    f.decidePermissions = async (b) => {
      const r = await answer(b);
      return { results: r.results.filter((x) => x.id !== 'pe_3') }; // a hub that left one out
    };
    const failed = await store.decideMany(['pe_1', 'pe_2', 'pe_x', 'pe_3'], 'approved');
    expect(failed.map((x) => [x.id, x.error?.code])).toEqual([
      ['pe_2', 'CONFLICT'],
      ['pe_x', 'NOT_FOUND'],
      ['pe_3', 'INTERNAL'],
    ]);
    expect(store.permissions.pe_1.status).toBe('approved');
    expect(store.pending.map((p) => p.id).sort()).toEqual(['pe_2', 'pe_3']);
    expect(await store.decideMany([], 'approved')).toEqual([]);
    expect(f.calls.filter((c) => c.method === 'decidePermissions')).toHaveLength(1);
  });

  it('remembers: the rule and shadowedBy by permission, the rule listed; loads and removes rules', async () => {
    const f = new FakeTransport();
    f.permissions = [permission('pe_1')];
    f.shadowedBy = 'no-rm';
    const store = new HubStore(f, () => {});
    store.upsertPermission(f.permissions[0]);
    const r = await store.decideRemember('pe_1', 'declined', 'agent');
    expect(f.calls.find((c) => c.method === 'decidePermission')?.args).toEqual(['pe_1', { outcome: 'declined', remember: 'agent' }]);
    expect(r.rule).toMatchObject({ scope: 'agent', decision: 'deny', command: 'rm -rf build' });
    expect(store.remembered.pe_1).toEqual({ rule: r.rule, shadowedBy: 'no-rm' });
    expect(store.permissions.pe_1.status).toBe('declined');
    expect(store.rules.map((x) => x.id)).toEqual(['ru_1']);
    await store.loadRules();
    expect(store.rules.map((x) => x.id)).toEqual(['ru_1']);
    await store.deleteRule('ru_1');
    expect(store.rules).toEqual([]);
    await expect(store.deleteRule('ru_1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
