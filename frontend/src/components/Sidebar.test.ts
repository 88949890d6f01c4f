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
  it('shows a status dot for needs you, running and failed, each with a text alternative; unread marks; the editor', () => {
    const onselect = vi.fn();
    render(Sidebar, { threads, selectedId: null, onselect, waiting: { th_fail: 2 }, marks });
    // Needs you outranks how the last turn ended.
    const failing = button(/^Failed one/);
    expect(failing.querySelector('.status')?.className).toMatch(/needs-you/);
    expect(failing.textContent).toMatch(/needs you: 2 waiting for approval/);
    const running = button(/^Running one/);
    expect(running.querySelector('.status')?.className).toMatch(/\brunning\b/);
    expect(running.textContent).toMatch(/, running/);
    expect(running.textContent).not.toMatch(/failed/); // running now: the old failure no longer shows
    expect(within(button(/^Interrupted one/)).getByText(/interrupted/)).toBeTruthy();
    expect(button(/^Cancelled one/).querySelector('.status')).toBeNull();

    // One line each: icon (a monogram of the agent), title, dot, time.
    expect(running.querySelector('.monogram')?.textContent).toBe('S');
    expect(running.querySelector('time')?.getAttribute('datetime')).toBe('2026-11-21T06:00:00Z');
    expect(running.querySelector('.meta')).toBeNull();

    // Unread: in the accessible name, and marked.
    expect(button(/^Unread: ?Finished unseen/).classList.contains('unread')).toBe(true);
    expect(screen.getAllByRole('button').filter((b) => b.classList.contains('unread'))).toHaveLength(1);

    // The editor badge names the editor, on the second line.
    expect(button(/^From Zed/).querySelector('.meta')?.textContent).toMatch(/editor: zed/);
    expect(screen.getAllByText(/^editor/)).toHaveLength(1);
  });

  it('names the agent from the agent list, and falls back to its id', () => {
    render(Sidebar, {
      threads: [thread('th_a', { title: 'Known', agent: 'claude' }), thread('th_b', { title: 'Unknown', agent: 'mystery' })],
      selectedId: null,
      onselect: () => {},
      agents: [{ id: 'claude', name: 'Claude Code', status: 'available', command: 'claude' }],
    });
    expect(button(/^Known ?, Claude Code/).querySelector('.monogram')?.textContent).toBe('CC');
    expect(button(/^Unknown ?, mystery/).querySelector('.monogram')?.getAttribute('title')).toBe('mystery');
  });

  it('keeps its order while the pointer or focus is in the list, and applies the new one when both leave', async () => {
    const a = thread('th_a', { title: 'Alpha' });
    const b = thread('th_b', { title: 'Beta' });
    const c = thread('th_c', { title: 'Gamma' });
    const r = render(Sidebar, { threads: [a, b], selectedId: null, onselect: () => {} });
    const nav = screen.getByRole('navigation', { name: 'Threads' });
    const titles = () => [...nav.querySelectorAll('.title')].map((e) => e.textContent);
    expect(titles()).toEqual(['Alpha', 'Beta']);

    await fireEvent.pointerEnter(nav);
    await r.rerender({ threads: [b, a, c] }); // Beta got newer, Gamma is new
    expect(titles()).toEqual(['Alpha', 'Beta', 'Gamma']);
    await fireEvent.pointerLeave(nav);
    expect(titles()).toEqual(['Beta', 'Alpha', 'Gamma']);

    // Keyboard focus holds it too, until it leaves the list.
    button(/^Beta/).focus();
    await r.rerender({ threads: [c, b, a] });
    expect(titles()).toEqual(['Beta', 'Alpha', 'Gamma']);
    await fireEvent.pointerEnter(nav);
    await fireEvent.pointerLeave(nav); // the pointer passing through does not release the keyboard's hold
    expect(titles()).toEqual(['Beta', 'Alpha', 'Gamma']);
    button(/^Beta/).blur();
    await fireEvent.focusOut(nav, { relatedTarget: null });
    expect(titles()).toEqual(['Gamma', 'Beta', 'Alpha']);
  });

  it("shows a worktree thread's branch and its ahead/behind counts", () => {
    const wt = (branch: string, extra: object = {}) => ({
      path: '/w/' + branch, branch, base: 'main', baseCommit: 'abc', top: '/w/' + branch, repo: '/r', ...extra,
    });
    render(Sidebar, {
      threads: [
        thread('th_wt', { title: 'In a worktree', worktree: wt('sb/fix-1', { ahead: 2, behind: 1 }) }),
        thread('th_wt2', { title: 'No counts yet', worktree: wt('sb/fix-2') }),
        thread('th_dirty', { title: 'Dirty', worktree: wt('sb/fix-4', { ahead: 0, behind: 0, dirty: 3 }) }),
        thread('th_merged', { title: 'Landed', worktree: wt('sb/fix-5', { ahead: 0, behind: 0, merged: true }) }),
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
    // Issue 31: uncommitted files and the merged state, from the list and thread_updated.
    expect(button(/^Dirty/).textContent).toMatch(/±3 \(3 uncommitted\)/);
    expect(button(/^Landed/).querySelector('.branch')?.textContent).toMatch(/sb\/fix-5 merged/);
    expect(button(/^Landed/).textContent).not.toMatch(/↑/);
    expect(button(/^No counts yet/).querySelector('.branch')?.textContent?.trim()).toBe('sb/fix-2');
    expect(button(/^No counts yet/).querySelector('.branch svg')).not.toBeNull(); // the branch icon
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
