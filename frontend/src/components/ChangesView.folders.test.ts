import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ChangesView from './ChangesView.svelte';
import type { Changes, WorkApi } from '../lib/work';
import { restoredFiles } from '../lib/work';
import type { Thread } from '../lib/types';
import { HubError } from '../lib/transport';

// A thread with extra folders (issue 32, ADR 0051): its changes are listed
// per folder, the main folder first, each extra folder named, paths
// relative to it; one outside git says so once; a file of an extra folder
// reverts with its folder.

const thread: Thread = {
  id: 'th_1',
  agent: 'sdk',
  cwd: '/home/me/app',
  title: 'Fix',
  clientId: 'window',
  status: 'idle',
  createdAt: '2026-11-25T00:00:00Z',
  updatedAt: '2026-11-25T00:00:00Z',
  additionalDirectories: ['/home/me/lib', '/home/me/notes'],
};

const diffOf = (path: string) =>
  `diff --git a/${path} b/${path}\nindex 1..2 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old\n+new\n`;

const changes: Changes = {
  source: 'git',
  files: [{ path: 'main.go', status: 'modified', diff: diffOf('main.go') }],
  folders: [
    { folder: '/home/me/lib', source: 'git', files: [{ path: 'src/util.go', status: 'modified', diff: diffOf('src/util.go') }] },
    { folder: '/home/me/notes', source: 'none', files: [] },
  ],
};

function view(revert = vi.fn(async () => ['/home/me/lib/src/util.go'])) {
  const work = {
    changes: vi.fn(async () => changes),
    revert,
    restore: vi.fn(async () => []),
  } as unknown as WorkApi;
  render(ChangesView, { thread, work, turnIds: [] });
  return work;
}

describe('ChangesView with extra folders', () => {
  it('lists the main folder first, then each extra folder named, paths relative to it', async () => {
    view();
    const list = await screen.findByRole('navigation', { name: 'Changed files' });
    const rows = [...list.querySelectorAll('li')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(rows).toEqual([
      'Main folder /home/me/app',
      'M main.go +1 −1',
      'Extra folder /home/me/lib',
      'M src/util.go +1 −1',
      'Extra folder /home/me/notes',
      'Not a git repository: the hub keeps no checkpoints here.',
    ]);
    expect(screen.getAllByText('Not a git repository: the hub keeps no checkpoints here.')).toHaveLength(1);
    const heads = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent?.replace(/\s+/g, ' ').trim());
    expect(heads).toEqual(['Main folder /home/me/app', 'Extra folder /home/me/lib']);
    expect(screen.getByRole('table', { name: 'Changes to src/util.go' })).toBeTruthy();
  });

  it('reverts a file of an extra folder with its folder, and offers a refused one again forced', async () => {
    const revert = vi
      .fn()
      .mockRejectedValueOnce(new HubError('CONFLICT', 'changed since', { status: 409, details: { reason: 'CHANGED_SINCE' } }))
      .mockResolvedValueOnce(['/home/me/lib/src/util.go']);
    const work = view(revert);
    const section = (await screen.findByRole('table', { name: 'Changes to src/util.go' })).closest('section') as HTMLElement;
    await fireEvent.click(within(section).getByRole('button', { name: 'Revert file' }));
    await fireEvent.click(within(section).getByRole('button', { name: 'Revert' }));
    expect(work.revert).toHaveBeenLastCalledWith('th_1', { path: 'src/util.go', folder: '/home/me/lib' });
    const again = await screen.findByRole('button', { name: 'Revert anyway' });
    expect(again.closest('p')?.textContent).toContain('/home/me/lib');
    await fireEvent.click(again);
    expect(work.revert).toHaveBeenLastCalledWith('th_1', { path: 'src/util.go', folder: '/home/me/lib', force: true });
    expect(await screen.findByRole('status')).toHaveProperty('textContent', 'Reverted /home/me/lib/src/util.go.');
  });

  it('lists every folder’s files before restoring a turn, an extra folder’s by their full path', async () => {
    const work = {
      changes: vi.fn(async () => changes),
      revert: vi.fn(async () => []),
      restore: vi.fn(async () => ['main.go', '/home/me/lib/src/util.go']),
    } as unknown as WorkApi;
    render(ChangesView, { thread, work, turnIds: ['tu_1'] });
    await fireEvent.change(await screen.findByRole('combobox', { name: 'Which changes' }), { target: { value: 'tu_1' } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Restore to before this turn' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Restore to before this turn' });
    expect(confirm.textContent).toContain('Bring the folders back');
    expect(within(confirm).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['main.go', '/home/me/lib/src/util.go']);
    expect(work.changes).toHaveBeenLastCalledWith('th_1', { since: 'tu_1' });
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Restore' }));
    expect(work.restore).toHaveBeenCalledWith('th_1', 'tu_1');
    expect((await screen.findByRole('status')).textContent).toBe('Restored: main.go, /home/me/lib/src/util.go.');
  });

  it('names an extra folder’s restored files by their full path', () => {
    expect(restoredFiles({ files: ['a.txt'], folders: [{ folder: '/x/lib/', files: ['b/c.txt'] }, { folder: '/y', files: null }] })).toEqual([
      'a.txt',
      '/x/lib/b/c.txt',
    ]);
    expect(restoredFiles(null)).toEqual([]);
  });
});
