// Worktrees, review and checkpoints (issue 19): the hub's WorkService over
// either transport. docs/API.md "Worktrees, changes and checkpoints".
import type { WailsBindings } from './bindings';
import type { Thread } from './types';

export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  oldPath?: string;
  /** A unified diff (git's format). */
  diff: string;
}

export interface Changes {
  /** "git": diffed by the hub; "agent": a folder outside git, the diffs as reported by the agent. */
  source: 'git' | 'agent';
  base?: string;
  /** The main folder's. */
  files: FileChange[];
  /** The thread's extra folders' (ADR 0051), in the thread's order; absent when none. */
  folders?: FolderChanges[];
}

/** One extra folder's changes, paths relative to it; "none": not a git repository, no checkpoints. */
export interface FolderChanges {
  folder: string;
  source: 'git' | 'none';
  base?: string;
  files: FileChange[];
}

/** A restore's or revert's answer: the main folder's files, and each extra folder's. */
interface RestoreAnswer {
  files?: string[] | null;
  folders?: { folder: string; files: string[] | null }[] | null;
}

/** The files a restore or revert touched: the main folder's as named, an extra folder's joined to it. */
export function restoredFiles(r: RestoreAnswer | null | undefined): string[] {
  const out = [...(r?.files ?? [])];
  for (const f of r?.folders ?? []) for (const p of f.files ?? []) out.push(`${f.folder.replace(/\/+$/, '')}/${p}`);
  return out;
}

export interface MergeResult {
  how: 'up-to-date' | 'fast-forward' | 'merge' | 'commit-tree';
  commit: string;
  /** The commit Merge made first of the worktree's uncommitted work (issue 31). */
  committed?: string;
  thread: Thread;
}

/** What Commit would commit and the message it suggests (GET /v1/threads/{id}/commit, issue 31). */
export interface CommitSuggestion {
  message: string;
  files: string[];
}

/** The commit Commit made (POST /v1/threads/{id}/commit). */
export interface CommitResult {
  commit: string;
  files: string[];
  thread: Thread;
}

/** Where Push pushed (POST /v1/threads/{id}/push); pullRequestUrl for a GitHub, GitLab or Gitea remote. */
export interface PushResult {
  remote: string;
  branch: string;
  pullRequestUrl?: string;
  thread: Thread;
}

export interface Checkpoint {
  turnId: string;
  commit: string;
  ref: string;
}

export interface GitFolder {
  git: boolean;
  /** The working tree's top folder. */
  repo?: string;
  /** The extra folders a new thread here gets by default (folders.<glob>.additionalDirectories, ADR 0051). */
  additionalDirectories?: string[];
}

export interface DeleteOptions {
  discard?: boolean;
  keepBranch?: boolean;
}

export interface RevertRequest {
  path?: string;
  /** One of the thread's extra folders: revert there only, path relative to it. */
  folder?: string;
  sinceTurn?: string;
  /** Revert files changed since the agent's last turn too (else 409 CHANGED_SINCE). */
  force?: boolean;
}

/** The calls, the same in the window (bindings) and a browser (HTTP). */
export interface WorkApi {
  /** The thread with its worktree's ahead/behind counts (GET /v1/threads/{id}). */
  thread(id: string): Promise<Thread>;
  merge(id: string): Promise<MergeResult>;
  /** Whether a folder is in a git working tree, where a worktree thread can be made (GET /v1/folders/git). */
  gitFolder(path: string): Promise<GitFolder>;
  discard(id: string): Promise<Thread>;
  deleteWith(id: string, o: DeleteOptions): Promise<void>;
  /** Since the thread started; one turn's ({turn}); or since a turn began ({since}: what a restore undoes). */
  changes(id: string, q?: { turn?: string; since?: string }): Promise<Changes>;
  revert(id: string, r: RevertRequest): Promise<string[]>;
  checkpoints(id: string): Promise<Checkpoint[]>;
  restore(id: string, turnId: string): Promise<string[]>;
  /** Issue 31: the files Commit would commit and its suggested message. */
  commitSuggestion(id: string): Promise<CommitSuggestion>;
  /** Commit the worktree's uncommitted work (message "": the suggestion; confirm: run hooks the thread changed). */
  commit(id: string, r: { message?: string; confirm?: boolean }): Promise<CommitResult>;
  push(id: string): Promise<PushResult>;
  /** Open the thread's pull request page (worktree.pullRequestUrl, set by a push) in the user's browser. */
  openPullRequest(thread: Thread): Promise<void>;
  /** Stop the worktree's running setup (POST /v1/threads/{id}/setup/cancel). */
  cancelSetup(id: string): Promise<Thread>;
}

type Request = <T>(method: string, url: string, body?: unknown) => Promise<T>;
type Url = (path: string, params?: Record<string, string | number | boolean | undefined>) => string;

/** WorkApi over HTTP (HttpTransport's request and url). */
export function httpWork(request: Request, url: Url): WorkApi {
  const t = (id: string, rest = '') => `/v1/threads/${encodeURIComponent(id)}${rest}`;
  return {
    thread: async (id) => (await request<{ thread: Thread }>('GET', url(t(id)))).thread,
    merge: (id) => request<MergeResult>('POST', url(t(id, '/merge'))),
    gitFolder: (path) => request<GitFolder>('GET', url('/v1/folders/git', { path })),
    discard: async (id) => (await request<{ thread: Thread }>('POST', url(t(id, '/discard')))).thread,
    deleteWith: async (id, o) => {
      await request('DELETE', url(t(id), { discard: o.discard || undefined, keepBranch: o.keepBranch || undefined }));
    },
    changes: async (id, q = {}) => {
      const c = await request<Changes>('GET', url(t(id, '/changes'), { turn: q.turn || undefined, since: q.since || undefined }));
      return { ...c, files: c.files ?? [] };
    },
    revert: async (id, r) => restoredFiles(await request<RestoreAnswer>('POST', url(t(id, '/changes/revert')), r)),
    checkpoints: async (id) =>
      (await request<{ checkpoints: Checkpoint[] }>('GET', url(t(id, '/checkpoints')))).checkpoints ?? [],
    restore: async (id, turnId) =>
      restoredFiles(await request<RestoreAnswer>('POST', url(t(id, `/checkpoints/${encodeURIComponent(turnId)}/restore`)))),
    commitSuggestion: async (id) => {
      const s = await request<CommitSuggestion>('GET', url(t(id, '/commit')));
      return { ...s, files: s.files ?? [] };
    },
    commit: (id, r) => request<CommitResult>('POST', url(t(id, '/commit')), r),
    push: (id) => request<PushResult>('POST', url(t(id, '/push'))),
    cancelSetup: async (id) => (await request<{ thread: Thread }>('POST', url(t(id, '/setup/cancel')))).thread,
    openPullRequest: async (thread) => {
      const link = thread.worktree?.pullRequestUrl;
      if (link && /^https?:\/\//.test(link)) window.open(link, '_blank', 'noopener');
    },
  };
}

/** The bindings WorkApi calls in the window (app/bindings_work.go), as generated. */
export type WorkBindings = Pick<
  WailsBindings,
  | 'GetThread'
  | 'MergeThread'
  | 'GitFolder'
  | 'DiscardThread'
  | 'DeleteThreadWith'
  | 'Changes'
  | 'RevertChanges'
  | 'ListCheckpoints'
  | 'RestoreCheckpoint'
  | 'CommitSuggestion'
  | 'CommitThread'
  | 'PushThread'
  | 'OpenPullRequest'
  | 'CancelSetup'
>;

/** WorkApi over the window's bindings; call maps a rejection to a HubError. */
export function wailsWork(b: WorkBindings, call: <T>(f: () => Promise<unknown>) => Promise<T>): WorkApi {
  return {
    thread: (id) => call<Thread>(() => b.GetThread(id)),
    merge: (id) => call<MergeResult>(() => b.MergeThread(id)),
    gitFolder: (path) => call<GitFolder>(() => b.GitFolder(path)),
    discard: (id) => call<Thread>(() => b.DiscardThread(id)),
    deleteWith: async (id, o) => {
      await call(() => b.DeleteThreadWith(id, { Discard: !!o.discard, KeepBranch: !!o.keepBranch }));
    },
    changes: async (id, q = {}) => {
      const c = await call<Changes>(() => b.Changes(id, q));
      return { ...c, files: c?.files ?? [] };
    },
    revert: async (id, r) => restoredFiles(await call<RestoreAnswer>(() => b.RevertChanges(id, r))),
    checkpoints: async (id) => (await call<Checkpoint[] | null>(() => b.ListCheckpoints(id))) ?? [],
    restore: async (id, turnId) => restoredFiles(await call<RestoreAnswer>(() => b.RestoreCheckpoint(id, turnId))),
    commitSuggestion: async (id) => {
      const s = await call<CommitSuggestion>(() => b.CommitSuggestion(id));
      return { ...s, files: s?.files ?? [] };
    },
    commit: (id, r) => call<CommitResult>(() => b.CommitThread(id, { message: r.message ?? '', confirm: !!r.confirm })),
    push: (id) => call<PushResult>(() => b.PushThread(id)),
    cancelSetup: (id) => call<Thread>(() => b.CancelSetup(id)),
    openPullRequest: async (thread) => {
      await call(() => b.OpenPullRequest(thread.id));
    },
  };
}
