import { describe, expect, it } from 'vitest';
import { AuditLog } from './audit.svelte';
import { FakeTransport, permission } from '../test/fakeTransport';

describe('AuditLog', () => {
  it('pages with nextCursor, newest first, and a filter starts over', async () => {
    const f = new FakeTransport();
    f.audit = Array.from({ length: 5 }, (_, i) =>
      permission(`pe_${i}`, { status: i % 2 ? 'declined' : 'approved', decidedBy: i % 2 ? 'timeout' : 'rule:reads', agent: 'sdk' }),
    );
    const a = new AuditLog(f, 2);
    await a.load();
    expect(a.items.map((p) => p.id)).toEqual(['pe_0', 'pe_1']);
    expect(a.nextCursor).toBe('2');
    await a.more();
    await a.more();
    expect(a.items.map((p) => p.id)).toEqual(['pe_0', 'pe_1', 'pe_2', 'pe_3', 'pe_4']);
    expect(a.nextCursor).toBeUndefined();
    await a.more(); // nothing more to ask
    expect(f.calls.filter((c) => c.method === 'queryPermissions')).toHaveLength(3);

    a.filters.decidedBy = 'rule:';
    await a.load();
    expect(a.items.map((p) => p.decidedBy)).toEqual(['rule:reads', 'rule:reads']);
    const last = f.calls.filter((c) => c.method === 'queryPermissions').at(-1);
    expect(last?.args[0]).toEqual({ decidedBy: 'rule:', limit: 2 });
  });

  it('drops the answer of a query a newer one replaced, and says why one failed', async () => {
    const f = new FakeTransport();
    f.audit = [permission('old', { status: 'approved' }), permission('new', { status: 'declined' })];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = f.queryPermissions.bind(f);
    let first = true;
    f.queryPermissions = async (x) => {
      if (first) {
        first = false;
        await gate;
      }
      return q(x);
    };
    const a = new AuditLog(f);
    const slow = a.load();
    a.filters.status = 'declined';
    await a.load();
    release();
    await slow;
    expect(a.items.map((p) => p.id)).toEqual(['new']);

    f.queryPermissions = () => Promise.reject(new Error('hub gone'));
    await a.load();
    expect(a.error).toBe('hub gone');
    expect(a.loading).toBe(false);
  });
});
