import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import OverlapNotice from './OverlapNotice.svelte';
import { thread } from '../test/fakeTransport';
import type { Thread } from '../lib/types';

const wt = { path: '/wt/a', branch: 'b', base: 'main', baseCommit: 'c', top: '/wt/a', repo: '/r' };

function show(t: Thread, threads: Thread[]) {
  return render(OverlapNotice, { thread: t, threads: Object.fromEntries(threads.map((x) => [x.id, x])) });
}

describe('OverlapNotice', () => {
  it('shows nothing without overlaps', () => {
    show(thread('th_1', {}), []);
    expect(screen.queryByRole('region', { name: 'Overlapping work' })).toBeNull();
  });

  it('names each file and links the other thread; a conflict says it would not merge', () => {
    const other = thread('th_2', { title: 'Refactor the parser', worktree: { ...wt, path: '/wt/b' } });
    const me = thread('th_1', {
      title: 'Fix the build',
      worktree: wt,
      overlaps: [
        { path: 'a.go', threadId: 'th_2', conflict: true },
        { path: 'b.go', threadId: 'th_2', conflict: false },
      ],
    });
    show(me, [me, other]);
    const region = screen.getByRole('region', { name: 'Overlapping work' });
    expect(region.textContent).toContain('Another agent changed the same files');
    const link = within(region).getByRole('link', { name: 'Refactor the parser' });
    expect(link.getAttribute('href')).toBe('#/t/th_2');
    const codes = within(region).getAllByText(/\.go$/);
    expect(codes.map((c) => c.textContent)).toEqual(['a.go', 'b.go']);
    expect(codes[0].classList.contains('bad')).toBe(true);
    expect(codes[1].classList.contains('bad')).toBe(false);
    expect(region.textContent).toContain('would conflict if merged');
    expect(region.classList.contains('conflict')).toBe(true);
    expect(region.textContent).not.toContain('keep their work apart');
  });

  it('two worktrees that merge cleanly say so', () => {
    const me = thread('th_1', { worktree: wt, overlaps: [{ path: 'a.go', threadId: 'th_9', conflict: false }] });
    show(me, [me]);
    const region = screen.getByRole('region', { name: 'Overlapping work' });
    expect(region.textContent).toContain('merges cleanly');
    expect(within(region).getByRole('link', { name: 'Another thread' }).getAttribute('href')).toBe('#/t/th_9');
    expect(region.classList.contains('conflict')).toBe(false);
  });

  it('in the same checkout, the second thread is told to use a worktree; the first is not', () => {
    const first = thread('th_1', { title: 'First', createdAt: '2026-01-01T10:00:00Z', overlaps: [{ path: 'a.txt', threadId: 'th_2' }] });
    const second = thread('th_2', { title: 'Second', createdAt: '2026-01-01T11:00:00Z', overlaps: [{ path: 'a.txt', threadId: 'th_1' }] });
    const { unmount } = show(second, [first, second]);
    let region = screen.getByRole('region', { name: 'Overlapping work' });
    expect(region.textContent).toContain('same checkout');
    expect(region.textContent).toContain('to keep their work apart, start this one as a new thread “In a new worktree”');
    unmount();
    show(first, [first, second]);
    region = screen.getByRole('region', { name: 'Overlapping work' });
    expect(region.textContent).toContain('same checkout');
    expect(region.textContent).not.toContain('worktree');
  });

  it('counts several other threads', () => {
    const me = thread('th_1', {
      overlaps: [
        { path: 'a', threadId: 'th_2' },
        { path: 'a', threadId: 'th_3' },
      ],
    });
    show(me, [me]);
    expect(screen.getByRole('region', { name: 'Overlapping work' }).textContent).toContain('2 other agents changed the same files');
  });
});

describe('OverlapNotice link', () => {
  it('opens the other thread through the router (the page never follows a link itself)', async () => {
    const { fireEvent } = await import('@testing-library/svelte');
    location.hash = '#/t/th_1';
    const me = thread('th_1', { overlaps: [{ path: 'a', threadId: 'th_2' }] });
    show(me, [me, thread('th_2', { title: 'Other' })]);
    await fireEvent.click(screen.getByRole('link', { name: 'Other' }));
    expect(location.hash).toBe('#/t/th_2');
  });
});
