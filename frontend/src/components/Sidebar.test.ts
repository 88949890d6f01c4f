import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import Sidebar from './Sidebar.svelte';
import { thread } from '../test/fakeTransport';
import type { Mark } from '../lib/marks.svelte';

const threads = [
  thread('th_run', { title: 'Running one', status: 'running' }),
  thread('th_fail', { title: 'Failed one' }),
  thread('th_int', { title: 'Interrupted one' }),
  thread('th_can', { title: 'Cancelled one' }),
  thread('th_new', { title: 'Finished unseen' }),
  thread('th_zed', { title: 'From Zed', clientId: 'acp-zed', cwd: '/home/me/src/site' }),
];
const marks: Record<string, Mark> = {
  th_fail: { done: 3, seen: 3, last: 'failed' },
  th_int: { done: 4, seen: 4, last: 'interrupted' },
  th_can: { done: 5, seen: 5, last: 'cancelled' },
  th_new: { done: 9, seen: 2, last: 'completed' },
  th_run: { done: 1, seen: 1, last: 'failed' }, // running now: the old failure no longer shows
};

function button(name: RegExp) {
  return screen.getByRole('button', { name });
}

describe('Sidebar', () => {
  it('shows running, waiting, failed and interrupted badges, unread marks and the editor badge', () => {
    const onselect = vi.fn();
    render(Sidebar, { threads, selectedId: null, onselect, waiting: { th_run: 2 }, marks });
    expect(button(/^Running one/).textContent).toMatch(/running/);
    expect(button(/^Running one/).textContent).not.toMatch(/failed/);
    expect(button(/^Running one/).textContent).toMatch(/2 ⚑ ?waiting for approval/);
    expect(within(button(/^Failed one/)).getByText('failed').className).toMatch(/badge failed/);
    expect(within(button(/^Interrupted one/)).getByText('interrupted')).toBeTruthy();
    expect(button(/^Cancelled one/).querySelector('.badge')).toBeNull();

    // Unread: in the accessible name, and marked.
    expect(button(/^Unread: ?Finished unseen/).classList.contains('unread')).toBe(true);
    expect(screen.getAllByRole('button').filter((b) => b.classList.contains('unread'))).toHaveLength(1);

    // The editor badge names the editor.
    expect(button(/^From Zed/).textContent).toMatch(/editor: zed/);
    expect(screen.getAllByText(/^editor/)).toHaveLength(1);
  });

  it("shows a worktree thread's branch and its ahead/behind counts", () => {
    const wt = (branch: string, extra: object = {}) => ({
      path: '/w/' + branch, branch, base: 'main', baseCommit: 'abc', top: '/w/' + branch, repo: '/r', ...extra,
    });
    render(Sidebar, {
      threads: [
        thread('th_wt', { title: 'In a worktree', worktree: wt('sb/fix-1', { ahead: 2, behind: 1 }) }),
        thread('th_wt2', { title: 'No counts yet', worktree: wt('sb/fix-2') }),
        thread('th_gone', { title: 'Discarded', worktree: wt('sb/fix-3', { discarded: true }) }),
        thread('th_plain', { title: 'Plain folder' }),
      ],
      selectedId: null,
      onselect: () => {},
      marks: {},
    });
    const b = button(/^In a worktree/);
    expect(b.querySelector('.branch')?.textContent).toMatch(/sb\/fix-1 ↑2 ↓1/);
    expect(b.textContent).toMatch(/2 ahead, 1 behind/);
    expect(button(/^No counts yet/).querySelector('.branch')?.textContent?.trim()).toBe('⎇ sb/fix-2');
    expect(button(/^Discarded/).querySelector('.branch')).toBeNull();
    expect(button(/^Plain folder/).querySelector('.branch')).toBeNull();
  });

  it('filters by title or folder', async () => {
    render(Sidebar, { threads, selectedId: 'th_zed', onselect: () => {}, marks });
    const nav = screen.getByRole('navigation', { name: 'Threads' });
    await fireEvent.input(within(nav).getByRole('searchbox', { name: 'Filter threads' }), { target: { value: 'site' } });
    expect(within(nav).getAllByRole('button').map((b) => b.querySelector('.title')?.textContent)).toEqual(['From Zed']);
    expect(within(nav).getByRole('button', { name: /From Zed/ }).getAttribute('aria-current')).toBe('true');
  });
});
