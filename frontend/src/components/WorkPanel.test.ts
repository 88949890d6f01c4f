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
    commitSuggestion: vi.fn(async () => ({ message: 'Fix\n\n- make the greeting say hello\n', files: ['a.txt', 'new.txt'] })),
    commit: vi.fn(async () => ({ commit: 'c0ffee1234567890', files: ['a.txt', 'new.txt'], thread })),
    push: vi.fn(async () => ({ remote: 'origin', branch: 'switchboard/fix-1', thread })),
    openPullRequest: vi.fn(async () => {}),
    cancelSetup: vi.fn(async () => thread),
    ...over,
  };
}

const dirtyThread: Thread = { ...thread, worktree: { ...thread.worktree!, ahead: 0, behind: 0, dirty: 2 } };

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

describe('WorkPanel landing (issue 31)', () => {
  it('Commit prefills the message, says hooks run, and commits the edited one', async () => {
    const work = fakeWork({ thread: vi.fn(async () => dirtyThread) });
    render(WorkPanel, { thread: dirtyThread, work, turnIds: [] });
    expect((await screen.findByText(/2 uncommitted/)).textContent).toContain('2 uncommitted');
    await fireEvent.click(screen.getByRole('button', { name: 'Commit' }));
    const confirm = screen.getByRole('alertdialog');
    const box = (await within(confirm).findByRole('textbox', { name: 'Commit message' })) as HTMLTextAreaElement;
    expect(box.value).toBe('Fix\n\n- make the greeting say hello');
    expect(confirm.textContent).toContain('hooks and signing run');
    expect(within(confirm).getByRole('list', { name: 'Files to commit' }).textContent).toContain('new.txt');
    await fireEvent.input(box, { target: { value: 'Say hello' } });
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Commit' }));
    expect(work.commit).toHaveBeenCalledWith('th_1', { message: 'Say hello', confirm: false });
    expect((await screen.findByRole('status')).textContent).toContain('Committed 2 file(s)');
  });

  it('a failing hook shows its output and offers to commit again; changed hooks run only once confirmed', async () => {
    const commit = vi
      .fn()
      .mockRejectedValueOnce(
        new HubError('CONFLICT', 'A git hook refused the commit; nothing changed. Fix what it says, then commit again.', {
          status: 409,
          details: { reason: 'HOOK_FAILED', output: 'lint: a.txt has a tab' },
        }),
      )
      .mockRejectedValueOnce(
        new HubError('CONFLICT', 'The commit would run git hooks this thread changed', {
          status: 409,
          details: { reason: 'HOOKS_CHANGED', files: ['.githooks/pre-commit'] },
        }),
      )
      .mockResolvedValueOnce({ commit: 'c0ffee1234567890', files: ['a.txt'], thread });
    const work = fakeWork({ thread: vi.fn(async () => dirtyThread), commit });
    render(WorkPanel, { thread: dirtyThread, work, turnIds: [] });
    await screen.findByText(/2 uncommitted/);
    await fireEvent.click(screen.getByRole('button', { name: 'Commit' }));
    await screen.findByRole('textbox', { name: 'Commit message' });
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Commit' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByLabelText("Git's output").textContent).toBe('lint: a.txt has a tab');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Commit again' }));
    await screen.findByRole('textbox', { name: 'Commit message' });
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Commit' }));
    const named = await screen.findByRole('alert');
    expect(named.textContent).toContain('.githooks/pre-commit');
    expect(commit).toHaveBeenLastCalledWith('th_1', expect.objectContaining({ confirm: false }));
    await fireEvent.click(within(named).getByRole('button', { name: 'Run these hooks and commit' }));
    await screen.findByRole('textbox', { name: 'Commit message' });
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Commit' }));
    expect(commit).toHaveBeenLastCalledWith('th_1', expect.objectContaining({ confirm: true }));
  });

  it('Merge of uncommitted work commits it first, with the message shown', async () => {
    const order: string[] = [];
    const work = fakeWork({
      thread: vi.fn(async () => dirtyThread),
      commit: vi.fn(async () => (order.push('commit'), { commit: 'c1', files: ['a.txt'], thread })),
      merge: vi.fn(async () => (order.push('merge'), { how: 'fast-forward' as const, commit: 'c1', thread: { ...thread, worktree: { ...thread.worktree!, merged: true, ahead: 0, behind: 0 } } })),
    });
    render(WorkPanel, { thread: dirtyThread, work, turnIds: [] });
    await screen.findByText(/2 uncommitted/);
    await fireEvent.click(screen.getByRole('button', { name: 'Merge' }));
    const confirm = screen.getByRole('alertdialog');
    expect(confirm.textContent).toContain('2 uncommitted file(s) are committed first');
    await within(confirm).findByRole('textbox', { name: 'Commit message' });
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Merge' }));
    expect((await screen.findByRole('status')).textContent).toContain('Merged into main');
    expect(order).toEqual(['commit', 'merge']);
    expect(screen.getByText(/merged/)).toBeTruthy();
  });

  it('Push, then Open pull request hands the thread to the opener', async () => {
    const pushed = { ...thread, worktree: { ...thread.worktree!, pullRequestUrl: 'https://github.com/acme/app/compare/main...switchboard/fix-1?expand=1' } };
    const work = fakeWork({ push: vi.fn(async () => ({ remote: 'origin', branch: 'switchboard/fix-1', pullRequestUrl: pushed.worktree.pullRequestUrl, thread: pushed })) });
    render(WorkPanel, { thread, work, turnIds: [] });
    expect(screen.queryByRole('button', { name: 'Open pull request' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Push' }));
    expect((await screen.findByRole('status')).textContent).toContain('Pushed switchboard/fix-1 to origin');
    await fireEvent.click(await screen.findByRole('button', { name: 'Open pull request' }));
    expect(work.openPullRequest).toHaveBeenCalledWith(expect.objectContaining({ worktree: expect.objectContaining({ pullRequestUrl: pushed.worktree.pullRequestUrl }) }));
  });

  it('a rejected push says why and offers to push again', async () => {
    const work = fakeWork({
      push: vi.fn(async () => {
        throw new HubError('CONFLICT', 'The remote rejected the push; nothing was forced. Pull or rebase the branch, then push again.', {
          status: 409,
          details: { reason: 'PUSH_REJECTED', output: ' ! [rejected] switchboard/fix-1 (fetch first)' },
        });
      }),
    });
    render(WorkPanel, { thread, work, turnIds: [] });
    await fireEvent.click(screen.getByRole('button', { name: 'Push' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('fetch first');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Push again' }));
    expect(work.push).toHaveBeenCalledTimes(2);
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
    await w.commitSuggestion('th_1');
    await w.commit('th_1', { message: 'm' });
    await w.push('th_1');
    expect(calls).toEqual([
      'DELETE /v1/threads/th%201?discard=true',
      'GET /v1/threads/th_1/changes?turn=tu_1',
      'POST /v1/threads/th_1/checkpoints/tu_1/restore',
      'POST /v1/threads/th_1/merge',
      'GET /v1/threads/th_1/commit',
      'POST /v1/threads/th_1/commit',
      'POST /v1/threads/th_1/push',
    ]);
  });
});

describe('NewThreadDialog worktree', () => {
  it('offers a worktree only for a folder in a git working tree', async () => {
    const gitFolder = vi.fn(async (path: string) => ({ git: path === '/home/me/repo' }));
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
    const gitFolder = async () => ({ git: true });
    render(NewThreadDialog, { agents: new FakeTransport().agents, cwd: '/home/me/app', gitFolder, oncreate, onclose: () => {} });
    await fireEvent.click(await screen.findByRole('checkbox', { name: /In a new worktree/ }));
    expect(screen.getByText(/uncommitted changes stay in the folder/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('sdk', '/home/me/app', '', true);
  });
});

describe('WorkPanel worktree setup (issue 31)', () => {
  it('shows the running setup as a terminal with Cancel; a failure says the thread is usable', async () => {
    const running: Thread = {
      ...thread,
      worktree: { ...thread.worktree!, setup: { commands: ['npm ci'], status: 'running', output: '$ npm ci\nadded 12 packages\n' } },
    };
    const cancelled: Thread = { ...running, worktree: { ...running.worktree!, setup: { ...running.worktree!.setup!, status: 'cancelled' } } };
    const work = fakeWork({ thread: vi.fn(async () => running), cancelSetup: vi.fn(async () => cancelled) });
    const r = render(WorkPanel, { thread: running, work, turnIds: [] });
    expect((await screen.findByLabelText('Setup output')).textContent).toContain('added 12 packages');
    expect(screen.getByRole('status').textContent).toContain('Setting up the worktree');
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel setup' }));
    expect(work.cancelSetup).toHaveBeenCalledWith('th_1');
    expect((await screen.findByText(/Worktree setup cancelled/)).textContent).toContain('The thread is usable');
    expect(screen.queryByRole('button', { name: 'Cancel setup' })).toBeNull();
    const failed: Thread = { ...running, worktree: { ...running.worktree!, setup: { commands: ['npm ci'], status: 'failed', exitCode: 3, output: '$ npm ci\nERR!\n' } } };
    r.unmount();
    render(WorkPanel, { thread: failed, work: fakeWork({ thread: vi.fn(async () => failed) }), turnIds: [] });
    expect((await screen.findByRole('alert')).textContent).toContain('failed (exit 3). The thread is usable');
  });
});
