import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport, permission, thread } from '../test/fakeTransport';
import type { PermissionQuery } from '../lib/types';

function setup() {
  const f = new FakeTransport();
  f.threads = [thread('th_1', { title: 'Fix the build' })];
  const by = ['rule:reads-in-project', 'remembered:ru_1', 'window', 'timeout', 'client:acp-zed'];
  f.audit = Array.from({ length: 60 }, (_, i) =>
    permission(`pe_${i}`, {
      status: i % 5 === 3 ? 'expired' : 'approved',
      decidedBy: by[i % 5],
      agent: i % 2 ? 'gone' : 'sdk',
      toolCall: { toolCallId: `c${i}`, title: `Read f${i}.go`, kind: 'read' },
      decidedAt: '2026-11-21T06:06:00Z',
    }),
  );
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

const queries = (f: FakeTransport) => f.calls.filter((c) => c.method === 'queryPermissions').map((c) => c.args[0] as PermissionQuery);

describe('the decision history', () => {
  it('says who or what decided each request, pages with Load more, and filters', async () => {
    const { f } = setup();
    await fireEvent.click(await screen.findByRole('button', { name: /^Approvals/ }));
    await fireEvent.click(screen.getByRole('button', { name: 'History…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Decision history' });
    await within(dialog).findByRole('table');
    // The table is made again when a filter empties it: looked up each time.
    const rows = () => within(within(dialog).getByRole('table')).getAllByRole('row').slice(1);
    const col = (i: number) => rows().map((r) => within(r).getAllByRole('cell')[i].textContent?.trim());
    await waitFor(() => expect(rows()).toHaveLength(50));
    expect(col(5).slice(0, 5)).toEqual(['rule: reads-in-project', 'a remembered decision', 'you, in the window', 'timed out', 'editor acp-zed']);
    expect(col(1).slice(0, 2)).toEqual(['SDK agent', 'Gone agent']);
    expect(col(2)[0]).toBe('Fix the build');
    expect(col(3)[0]).toBe('Agent request: read files “Read f0.go”');
    expect(col(6)[0]).toBe(new Date('2026-11-21T06:06:00Z').toLocaleString());
    expect(within(dialog).getByRole('status').textContent).toBe('50 shown, more to load.');

    await fireEvent.click(within(dialog).getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(rows()).toHaveLength(60));
    expect(within(dialog).queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(queries(f)).toEqual([{ limit: 50 }, { limit: 50, cursor: '50' }]);

    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Decided by' }), { target: { value: 'rule:' } });
    await waitFor(() => expect(rows()).toHaveLength(12));
    expect(new Set(col(5))).toEqual(new Set(['rule: reads-in-project']));
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Decided by' }), { target: { value: '' } });
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Status' }), { target: { value: 'expired' } });
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Agent' }), { target: { value: 'gone' } });
    await waitFor(() => expect(queries(f).at(-1)).toEqual({ status: 'expired', agent: 'gone', limit: 50 }));
    await waitFor(() => expect(new Set(col(4))).toEqual(new Set(['expired'])));
    expect(new Set(col(1))).toEqual(new Set(['Gone agent']));

    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Decision history' })).toBeNull();
    // Escape closed the history only; the Approvals panel stays.
    expect(screen.getByRole('region', { name: 'Pending approvals' })).toBeTruthy();
  });
});
