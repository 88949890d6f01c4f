import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport, ev, permission, thread } from '../test/fakeTransport';
import type { BatchDecision } from '../lib/types';

function setup() {
  const f = new FakeTransport();
  f.threads = [thread('th_1', { title: 'Fix the build' }), thread('th_2', { title: 'Docs', agent: 'gone' })];
  const tc = (title: string, command: string, kind = 'execute') => ({ toolCallId: title, title, kind, rawInput: { command } });
  f.permissions = [
    permission('pe_1', { threadId: 'th_1', agent: 'sdk', toolCall: tc('make', 'make'), deadline: '2099-01-01T00:10:00Z' }),
    permission('pe_2', { threadId: 'th_2', agent: 'gone', toolCall: tc('ls', 'ls -la'), deadline: '2099-01-01T00:05:00Z' }),
    permission('pe_3', { threadId: 'th_2', agent: 'gone', toolCall: tc('Read a.go', '', 'read'), deadline: '2099-01-01T00:20:00Z' }),
  ];
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

const rows = (list: HTMLElement) => within(list).getAllByRole('option');
/** A row's text without what is hidden from assistive technology (the agent's monogram). */
const rowText = (el: HTMLElement) => {
  const copy = el.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('[aria-hidden="true"]').forEach((n) => n.remove());
  return copy.textContent?.replace(/\s+/g, ' ').trim() ?? '';
};
const batches = (f: FakeTransport) => f.calls.filter((c) => c.method === 'decidePermissions').map((c) => c.args[0] as BatchDecision);

describe('the Approvals inbox', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => vi.useRealTimers());

  async function open() {
    const button = await screen.findByRole('button', { name: 'Approvals: 3 pending' });
    await fireEvent.click(button);
    const panel = screen.getByRole('region', { name: 'Pending approvals' });
    const list = within(panel).getByRole('listbox', { name: 'Pending requests' });
    return { button, panel, list };
  }

  it('lists every pending request with agent, thread, kind, what and time left; keys shown; focus on the list', async () => {
    setup();
    const { panel, list } = await open();
    await vi.waitFor(() => expect(document.activeElement).toBe(list));
    expect(list.getAttribute('aria-multiselectable')).toBe('true');
    const texts = rows(list).map(rowText);
    // The least time left first.
    expect(texts[0]).toMatch(/^Gone agent Docs Agent request: run a command ls -la \d+:\d\d:\d\d left$/);
    expect(texts[1]).toMatch(/^SDK agent Fix the build Agent request: run a command make /);
    expect(texts[2]).toMatch(/^Gone agent Docs Agent request: read files “Read a\.go” /);
    expect(within(panel).getByText(/↑\/↓ move · Space select · Ctrl\+A all · Enter approve · Delete deny · Esc close/)).toBeTruthy();
  });

  it('selects with Space and approves three across two threads with one batch call on Enter, after the 500 ms guard', async () => {
    const { f, store } = setup();
    const { panel, list } = await open();
    // Within 500 ms of the requests appearing, Enter does nothing.
    await fireEvent.keyDown(list, { key: ' ' });
    await fireEvent.keyDown(list, { key: 'Enter' });
    expect(batches(f)).toEqual([]);
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.keyDown(list, { key: 'ArrowDown' });
    await fireEvent.keyDown(list, { key: ' ' });
    await fireEvent.keyDown(list, { key: 'ArrowDown' });
    await fireEvent.keyDown(list, { key: ' ' });
    expect(rows(list).map((r) => r.getAttribute('aria-selected'))).toEqual(['true', 'true', 'true']);
    expect(list.getAttribute('aria-activedescendant')).toBe('inbox-pe_3');
    expect(within(panel).getByRole('button', { name: 'Approve selected (3)' })).toBeTruthy();
    await fireEvent.keyDown(list, { key: 'Enter' });
    await vi.waitFor(() => expect(store.pending).toHaveLength(0));
    expect(batches(f)).toEqual([{ ids: ['pe_2', 'pe_1', 'pe_3'], outcome: 'approved' }]);
    expect(panel.querySelector('.batch-status')?.textContent).toBe('Approved 3 of 3.');
    expect(within(panel).getByText('Nothing waits for you.')).toBeTruthy();
  });

  it('shows the ones the batch could not decide (already decided) and keeps them out of the selection', async () => {
    const { f, store } = setup();
    f.conflicts.add('pe_1');
    const { panel, list } = await open();
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.keyDown(list, { key: 'a', ctrlKey: true });
    expect(rows(list).every((r) => r.getAttribute('aria-selected') === 'true')).toBe(true);
    await fireEvent.keyDown(list, { key: 'Delete' });
    await vi.waitFor(() => expect(panel.querySelector('.batch-status')?.textContent).toBe('Denied 2 of 3.'));
    const failed = within(panel).getByRole('list', { name: 'Not decided' });
    expect(rowText(failed)).toBe('Fix the build: make: already decided (CONFLICT)');
    expect(batches(f)).toEqual([{ ids: ['pe_2', 'pe_1', 'pe_3'], outcome: 'declined' }]);
    expect(store.permissions.pe_2.status).toBe('declined');
    expect(store.pending.map((p) => p.id)).toEqual(['pe_1']);
    // The one left is not selected: a second Delete would act on it alone, as the current row.
    expect(rows(list).map((r) => r.getAttribute('aria-selected'))).toEqual(['false']);
  });

  it('marks an escalated request and lists it first when permission_escalated arrives; a new one re-arms the guard', async () => {
    const { f } = setup();
    const { list } = await open();
    await vi.advanceTimersByTimeAsync(500);
    expect(within(list).queryByText('escalated')).toBeNull();
    const escalated = { ...f.permissions[2], escalatedAt: '2099-01-01T00:02:00Z' };
    f.push(ev(10, 'permission_escalated', { permission: escalated }, 'th_2'));
    await vi.waitFor(() => expect(rowText(rows(list)[0])).toMatch(/^escalated Gone agent Docs Agent request: read files “Read a\.go”/));
    expect(rows(list)[0].classList.contains('escalated')).toBe(true);
    expect(screen.getByRole('button', { name: 'Approvals: 3 pending, 1 escalated' })).toBeTruthy();

    // A request that just arrived cannot be approved by a key for 500 ms.
    f.push(ev(11, 'permission_required', { permission: permission('pe_4', { threadId: 'th_1', deadline: '2099-01-01T00:01:00Z' }) }));
    await vi.waitFor(() => expect(rows(list)).toHaveLength(4));
    await fireEvent.keyDown(list, { key: 'Enter' });
    expect(batches(f)).toEqual([]);
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.keyDown(list, { key: 'Enter' });
    await vi.waitFor(() => expect(batches(f)).toHaveLength(1));
    expect(batches(f)[0].ids).toHaveLength(1); // nothing selected: the current row alone
  });

  it('Escape closes the panel and gives focus back to its button', async () => {
    setup();
    const { button, list } = await open();
    await fireEvent.keyDown(list, { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Pending approvals' })).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it("shows the current request's card with Always…, which remembers through the store", async () => {
    const { f, store } = setup();
    f.shadowedBy = 'reads-in-project';
    const { panel } = await open();
    await vi.advanceTimersByTimeAsync(500);
    const card = within(panel).getByRole('region', { name: 'Permission request in Docs: ls' });
    await fireEvent.click(within(card).getByRole('button', { name: 'Always…' }));
    await fireEvent.click(within(card).getByRole('menuitem', { name: 'Always allow in this thread' }));
    await vi.waitFor(() => expect(store.permissions.pe_2.status).toBe('approved'));
    expect(f.calls.find((c) => c.method === 'decidePermission')?.args).toEqual(['pe_2', { outcome: 'approved', remember: 'thread' }]);
    expect(store.remembered.pe_2).toEqual({ rule: f.rules[0], shadowedBy: 'reads-in-project' });
    expect(store.rules.map((r) => r.id)).toEqual(['ru_1']);
    // In its thread the decided card says what was remembered, with the thread's title.
    store.apply(ev(20, 'permission_required', { permission: f.permissions[1] }, 'th_2'));
    await store.select('th_2');
    const note = await screen.findByText(/^Remembered:/, { selector: 'main p' });
    expect(note.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'Remembered: Always allow execute “ls -la” in thread Docs. The config rule reads-in-project decides such requests first.',
    );
  });
});
