import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import WorkPanel from './WorkPanel.svelte';
import { HubError } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';
import { httpWork, type WorkApi } from '../lib/work';
import type { Thread } from '../lib/types';

const thread: Thread = {
  id: 'th_1',
  agent: 'sdk',
  cwd: '/home/me/app',
  title: 'Fix',
  clientId: 'window',
  status: 'idle',
  createdAt: '2026-11-25T00:00:00Z',
  updatedAt: '2026-11-25T00:00:00Z',
  worktree: {
    path: '/home/me/app-worktrees/switchboard/fix-1',
    branch: 'switchboard/fix-1',
    base: 'main',
    baseCommit: 'abcdef1234567890',
    top: '/home/me/app-worktrees/switchboard/fix-1',
    repo: '/home/me/app',
  },
};

function fakeWork(over: Partial<WorkApi> = {}): WorkApi {
  return {
    thread: vi.fn(async () => ({ ...thread, worktree: { ...thread.worktree!, ahead: 2, behind: 0 } })),
    merge: vi.fn(),
    gitFolder: vi.fn(async () => ({ git: true })),
    discard: vi.fn(async () => thread),
    deleteWith: vi.fn(async () => {}),
    changes: vi.fn(async () => ({
      source: 'git' as const,
      files: [
        {
          path: 'a.txt',
          status: 'modified' as const,
          diff: 'diff --git a/a.txt b/a.txt\n@@ -1 +1,2 @@\n-old\n+new\n+<img src=x onerror=alert(1)><script>x</script>\n',
        },
        { path: 'main.go', status: 'added' as const, diff: 'diff --git a/main.go b/main.go\n@@ -0,0 +1 @@\n+func main() {}\n' },
      ],
    })),
    revert: vi.fn(async () => ['a.txt']),
    checkpoints: vi.fn(async () => []),
    restore: vi.fn(async () => []),
    ...over,
  };
}

describe('WorkPanel', () => {
  it('shows the branch and counts; a conflicting merge names the files', async () => {
    const work = fakeWork({
      merge: vi.fn(async () => {
        throw new HubError('CONFLICT', 'the merge conflicts in shared.txt', { status: 409, details: { files: ['shared.txt'] } });
      }),
    });
    render(WorkPanel, { thread, work, turnIds: [] });
    expect((await screen.findByText(/2 ahead, 0 behind/)).textContent).toContain('2 ahead');
    await fireEvent.click(screen.getByRole('button', { name: 'Merge' }));
    const confirm = screen.getByRole('alertdialog');
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Merge' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('shared.txt');
    expect(work.merge).toHaveBeenCalledWith('th_1');
  });

  it('discard asks first, naming the worktree, the branch and what is lost', async () => {
    const work = fakeWork();
    render(WorkPanel, { thread, work, turnIds: [] });
    await screen.findByText(/2 ahead/);
    await fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(work.discard).not.toHaveBeenCalled();
    const confirm = screen.getByRole('alertdialog');
    expect(confirm.textContent).toContain('switchboard/fix-1');
    expect(confirm.textContent).toContain('2');
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Discard' }));
    expect(work.discard).toHaveBeenCalledWith('th_1');
  });

  it('keep removes the thread with ?keepBranch', async () => {
    const work = fakeWork();
    render(WorkPanel, { thread, work, turnIds: [] });
    await fireEvent.click(screen.getByRole('button', { name: 'Keep branch' }));
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Keep branch' }));
    expect(work.deleteWith).toHaveBeenCalledWith('th_1', { keepBranch: true });
  });

  it('the Changes view shows each file’s diff, and an agent-reported source says so', async () => {
    const work = fakeWork();
    render(WorkPanel, { thread, work, turnIds: ['tu_1'] });
    await fireEvent.click(screen.getByRole('button', { name: 'Changes' }));
    const diff = await screen.findByLabelText('Changes to a.txt');
    expect(diff.querySelector('.add .c')?.textContent).toBe('+new');
    expect(diff.querySelector('.del .c')?.textContent).toBe('-old');
    // Agent text is never markup: a diff line holding tags shows them as text.
    expect(diff.querySelector('img, script')).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Side by side' }));
    const table = await screen.findByRole('table', { name: 'Changes to a.txt' });
    const cells = [...table.querySelectorAll('td')].map((td) => td.textContent);
    expect(cells).toContain('-old');
    expect(cells).toContain('+new');
    expect(table.querySelector('img, script')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Unified' }));
    const code = await screen.findByLabelText('Changes to main.go');
    expect(code.querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(diff.textContent).toContain('<img src=x onerror=alert(1)>');

    const agentWork = fakeWork({ changes: vi.fn(async () => ({ source: 'agent' as const, files: [] })) });
    const plain = { ...thread, id: 'th_2', worktree: undefined };
    render(WorkPanel, { thread: plain, work: agentWork, turnIds: [] });
    await fireEvent.click(screen.getAllByRole('button', { name: 'Changes' })[1]);
    expect(await screen.findByText(/As reported by the agent/)).toBeTruthy();
  });
});

describe('ChangesView revert', () => {
  it('a file changed since the agent’s turn is offered again, forced', async () => {
    const revert = vi
      .fn()
      .mockRejectedValueOnce(
        new HubError('CONFLICT', 'these files changed since the agent’s last turn', {
          status: 409,
          details: { files: ['a.txt'], reason: 'CHANGED_SINCE' },
        }),
      )
      .mockResolvedValueOnce(['a.txt']);
    const work = fakeWork({ revert });
    render(WorkPanel, { thread, work, turnIds: [] });
    await fireEvent.click(screen.getByRole('button', { name: 'Changes' }));
    await fireEvent.click((await screen.findAllByRole('button', { name: 'Revert file' }))[0]);
    await fireEvent.click(screen.getByRole('button', { name: 'Revert' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Revert anyway' }));
    expect(revert).toHaveBeenNthCalledWith(1, 'th_1', { path: 'a.txt' });
    expect(revert).toHaveBeenNthCalledWith(2, 'th_1', { path: 'a.txt', force: true });
  });
});

describe('ChangesView restore', () => {
  it('lists what restoring a turn would undo before it does', async () => {
    const changes = vi.fn(async (_id: string, q?: { turn?: string; since?: string }) => ({
      source: 'git' as const,
      files: q?.since
        ? [
            { path: 'a.txt', status: 'modified' as const, diff: '' },
            { path: 'later.txt', status: 'added' as const, diff: '' },
          ]
        : [{ path: 'a.txt', status: 'modified' as const, diff: '' }],
    }));
    const restore = vi.fn(async () => ['a.txt', 'later.txt']);
    const work = fakeWork({ changes, restore });
    render(WorkPanel, { thread, work, turnIds: ['tu_1', 'tu_2'] });
    await fireEvent.click(screen.getByRole('button', { name: 'Changes' }));
    await fireEvent.change(screen.getByRole('combobox', { name: 'Which changes' }), { target: { value: 'tu_1' } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Restore to before this turn' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Restore to before this turn' });
    expect(confirm.textContent).toContain('later.txt');
    expect(changes).toHaveBeenCalledWith('th_1', { since: 'tu_1' });
    expect(restore).not.toHaveBeenCalled();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Restore' }));
    expect(restore).toHaveBeenCalledWith('th_1', 'tu_1');
  });
});

describe('work transport', () => {
  it('calls the documented routes', async () => {
    const calls: string[] = [];
    const w = httpWork(
      async (method, url) => {
        calls.push(`${method} ${url}`);
        return { files: [], checkpoints: [], thread } as never;
      },
      (path, params = {}) => {
        const q = Object.entries(params)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        return q ? `${path}?${q}` : path;
      },
    );
    await w.deleteWith('th 1', { discard: true });
    await w.changes('th_1', { turn: 'tu_1' });
    await w.restore('th_1', 'tu_1');
    await w.merge('th_1');
    expect(calls).toEqual([
      'DELETE /v1/threads/th%201?discard=true',
      'GET /v1/threads/th_1/changes?turn=tu_1',
      'POST /v1/threads/th_1/checkpoints/tu_1/restore',
      'POST /v1/threads/th_1/merge',
    ]);
  });
});

describe('NewThreadDialog worktree', () => {
  it('offers a worktree only for a folder in a git working tree', async () => {
    const gitFolder = vi.fn(async (path: string) => path === '/home/me/repo');
    const oncreate = vi.fn();
    render(NewThreadDialog, { agents: new FakeTransport().agents, cwd: '/home/me/plain', gitFolder, oncreate, onclose: () => {} });
    await vi.waitFor(() => expect(gitFolder).toHaveBeenCalledWith('/home/me/plain'));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('checkbox', { name: /In a new worktree/ })).toBeNull();
    const folder = screen.getByRole('textbox', { name: 'Folder' });
    await fireEvent.input(folder, { target: { value: '/home/me/repo' } });
    const box = await screen.findByRole('checkbox', { name: /In a new worktree/ });
    await fireEvent.click(box);
    // Back to a plain folder: the choice is gone and not sent.
    await fireEvent.input(folder, { target: { value: '/home/me/plain' } });
    expect(screen.queryByRole('checkbox', { name: /In a new worktree/ })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenLastCalledWith('sdk', '/home/me/plain', '');
  });

  it('asks for a worktree only when ticked', async () => {
    const oncreate = vi.fn();
    const gitFolder = async () => true;
    render(NewThreadDialog, { agents: new FakeTransport().agents, cwd: '/home/me/app', gitFolder, oncreate, onclose: () => {} });
    await fireEvent.click(await screen.findByRole('checkbox', { name: /In a new worktree/ }));
    expect(screen.getByText(/uncommitted changes stay in the folder/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('sdk', '/home/me/app', '', true);
  });
});
