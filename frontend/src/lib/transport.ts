// The one way the UI talks to the hub. Two implementations:
//  - WailsTransport: the desktop window's bound object window.go.app.Bindings,
//    with events as Wails runtime events "hub:event" / "hub:resync";
//  - HttpTransport: the hub's HTTP API from the page the hub serves at "/",
//    authenticated by the browser login's secret (left in sessionStorage
//    by GET /auth?code=, sent as a bearer; never a cookie), SSE read with
//    fetch streaming (EventSource cannot send the header).
import { SseParser } from './sse';
import type { WailsBindings } from './bindings';
import { httpWork, wailsWork, type WorkApi } from './work';
import { httpSessions, wailsSessions, type SessionsApi } from './sessions';
import { httpHosts, wailsHosts, type HostsApi } from './hosts';
import { httpQueue, wailsQueue, type QueueApi } from './queue';
import { localZone, type UsageQuery, type UsageReport } from './ledger';
import { httpPolicy, policyBase, wailsHostPolicy, withAgents, type HubPolicy } from './hostpolicy';
import { linkParts, type Elicitation, type ElicitationAnswer, type ElicitationStatus } from './elicitation';
import type {
  Agent,
  NodeStatus,
  ArchivedFilter,
  ArchiveRequest,
  BatchDecision,
  BatchResult,
  CreateThreadRequest,
  ExportRequest,
  ImportResult,
  Decision,
  DecisionResult,
  HistoryPage,
  Host,
  HistoryQuery,
  HubEvent,
  Permission,
  PermissionPage,
  PermissionQuery,
  SearchPage,
  SearchQuery,
  PermissionStatus,
  RememberedRule,
  Settings,
  SettingsPatch,
  Thread,
  ThreadPage,
  Turn,
  TurnHistory,
  TurnInput,
} from './types';

/** An error from the hub (or from reaching it), with the hub's code. */
export class HubError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter: number | undefined;

  constructor(
    code: string,
    message: string,
    opts: { status?: number; details?: Record<string, unknown>; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.status = opts.status;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }
}

const statusCodes: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL',
  502: 'UPSTREAM_UNAVAILABLE',
  504: 'TIMEOUT',
};

/** Maps a non-2xx answer to a HubError: the hub's JSON error when there is one. */
export async function errorFromResponse(res: Response): Promise<HubError> {
  const fallback = statusCodes[res.status] ?? (res.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  const ra = res.headers.get('Retry-After');
  const retryAfter = ra && /^\d+$/.test(ra) ? Number(ra) : undefined;
  let body: unknown;
  try {
    body = JSON.parse(await res.text());
  } catch {
    body = undefined;
  }
  const e = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (e && typeof e.code === 'string') {
    return new HubError(e.code, typeof e.message === 'string' ? e.message : res.statusText, {
      status: res.status,
      details: e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
      retryAfter,
    });
  }
  return new HubError(fallback, res.statusText || `HTTP ${res.status}`, { status: res.status, retryAfter });
}

/** Maps whatever a Wails binding rejected with (a JSON string {"code","message"}) to a HubError. */
export function errorFromWails(err: unknown): HubError {
  if (err instanceof HubError) return err;
  let v: unknown = err;
  if (typeof err === 'string') {
    try {
      v = JSON.parse(err);
    } catch {
      return new HubError('INTERNAL', err);
    }
  }
  if (v && typeof v === 'object' && typeof (v as { code?: unknown }).code === 'string') {
    const o = v as { code: string; message?: unknown };
    return new HubError(o.code, typeof o.message === 'string' ? o.message : o.code);
  }
  if (err instanceof Error) return new HubError('INTERNAL', err.message);
  return new HubError('INTERNAL', String(err));
}

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface SubscribeHandlers {
  /** Each event once, in seq order. */
  onEvent(e: HubEvent): void;
  /** The connection changed; err is why it dropped, when it did. */
  onState?(s: ConnectionState, err?: HubError): void;
  /**
   * The stream (re)connected without a known position, so events may have
   * been missed: reload whatever snapshot the UI shows.
   */
  onGap?(): void;
}

export interface Subscription {
  close(): void;
}

/** A request to show something: from window:showPermission / window:showTurn. */
/** A choice in the window's Thread menu (app.MenuExportMarkdown, …). */
export type MenuAction = 'export-md' | 'export-jsonl' | 'open-browser';

const menuActions: readonly string[] = ['export-md', 'export-jsonl', 'open-browser'];

export type Navigate =
  | { kind: 'permission'; id: string }
  | { kind: 'turn'; id: string; threadId: string }
  | { kind: 'thread'; threadId: string };

export interface Transport {
  readonly kind: 'wails' | 'http';
  /** Worktrees, changes and checkpoints (lib/work.ts); absent in test fakes. */
  readonly work?: WorkApi;
  /** The agent's own sessions, listed and imported (lib/sessions.ts); absent in test fakes. */
  readonly sessions?: SessionsApi;
  /** The hosts' names, agents and folders (lib/hosts.ts, issue 30). */
  readonly hosts?: HostsApi;
  /** The threads' queued prompts (lib/queue.ts, issue 33); absent on a transport without them. */
  readonly queue?: QueueApi;
  /** This client's X-Client-ID (the hub records a decision by its surface: "window", "browser"). */
  readonly clientId: string;
  listAgents(): Promise<Agent[]>;
  createThread(req: CreateThreadRequest): Promise<Thread>;
  listThreads(limit?: number, cursor?: string): Promise<ThreadPage>;
  getThread(id: string): Promise<Thread>;
  renameThread(id: string, title: string): Promise<Thread>;
  deleteThread(id: string): Promise<void>;
  compactThread(id: string): Promise<Thread>;
  startTurn(threadId: string, input: TurnInput): Promise<Turn>;
  cancelTurn(turnId: string): Promise<Turn>;
  /** The whole history: a hub answers 413 PAYLOAD_TOO_LARGE (HISTORY_TOO_LARGE) past 64 MiB; then page it. */
  history(threadId: string, includeEvents: boolean, includeInternal?: boolean): Promise<TurnHistory[]>;
  /** One page of the history, oldest first. */
  historyPage(threadId: string, q: HistoryQuery): Promise<HistoryPage>;
  listPermissions(status?: PermissionStatus): Promise<Permission[]>;
  /** One decision; with remember, the answer has the rule added (and the config rule that shadows it). */
  decidePermission(id: string, decision: Decision): Promise<DecisionResult>;
  /** Several pending requests at once (POST /v1/permissions/decide): one result per id, in the order given. */
  decidePermissions(batch: BatchDecision): Promise<BatchResult>;
  /** The audit: decided (or any) requests, filtered, newest first, a page at a time. */
  queryPermissions(q: PermissionQuery): Promise<PermissionPage>;
  /** The remembered decisions (GET /v1/rules). */
  listRules(): Promise<RememberedRule[]>;
  /** Removes a remembered decision (DELETE /v1/rules/{id}). */
  deleteRule(id: string): Promise<void>;
  // Hosts (docs/API.md "Hosts"); optional so test fakes need not have them.
  /** GET /v1/hosts: local first, then each host. */
  listHosts?(): Promise<Host[]>;
  /** POST /v1/hosts. */
  addHost?(name: string, ssh: string): Promise<Host>;
  /** DELETE /v1/hosts/{name}. */
  removeHost?(name: string): Promise<void>;
  /** POST /v1/hosts/{name}/connect, trusting the unknown key trustKey names. */
  connectHost?(name: string, trustKey?: string): Promise<Host>;
  /** A host's settings, rules and usage (/v1/hosts/{name}/…, lib/hostpolicy.ts); absent where the transport cannot reach them. */
  hostPolicy?(name: string): HubPolicy;
  /** Full-text search across every thread this transport sees (GET /v1/search), newest first. */
  search(q: SearchQuery): Promise<SearchPage>;
  /**
   * Opens the thread's agent session now when none is open (its session
   * defaults set); answers the thread with its modes and config options.
   */
  openSession(threadId: string): Promise<Thread>;
  /** Switches the thread's agent session to a mode; answers the updated thread. */
  setMode(threadId: string, modeId: string): Promise<Thread>;
  /** Sets one of the session's config options (the model, …); answers the updated thread. */
  setConfigOption(threadId: string, configId: string, value: string): Promise<Thread>;
  /**
   * The window only: the native folder dialog; the folder picked, or ""
   * when cancelled. Absent in a browser, which types the path instead.
   */
  chooseFolder?(title: string): Promise<string>;
  /**
   * The window only: the user clicked a desktop notification, asking to show
   * a permission or a turn. Returns a function that stops listening.
   */
  onNavigate?(cb: (n: Navigate) => void): () => void;
  /**
   * The window only: a choice in its native Thread menu, about the thread
   * shown (app.EventMenu). Returns a function that stops listening.
   */
  onMenu?(cb: (action: MenuAction) => void): () => void;
  /** The window only: sets the native window's title (a page's <title> does not reach it). */
  setTitle?(title: string): void;
  /** The window only: quits the app (window, hub and tray), as the tray's Quit does. */
  quit?(): void;
  /** The settings page's part of the config file (GET /v1/settings). */
  getSettings(): Promise<Settings>;
  /** Changes the fields present in the config file; answers the settings now in force (PATCH /v1/settings). */
  updateSettings(patch: SettingsPatch): Promise<Settings>;
  /** Starts installing (or updating to version) an npm agent: agent_install events follow (POST /v1/agents/{id}/install). */
  installAgent(id: string, version?: string): Promise<void>;
  /** Removes what the hub installed for an agent (DELETE /v1/agents/{id}/install). */
  removeAgent(id: string): Promise<void>;
  /** Starts installing Node 22 into the hub's data dir (POST /v1/node/install). */
  installNode(): Promise<void>;
  /** The Node runtime installed agents run with (GET /v1/agents' node). */
  nodeStatus(): Promise<NodeStatus | undefined>;
  /** Signs an agent in with one of its methods: {} for an agent method (done), {authSessionId} for a terminal one. */
  signInAgent(agentId: string, methodId: string): Promise<{ authSessionId?: string }>;
  /** Signs an agent out with ACP logout (POST /v1/agents/{id}/logout); 409 LOGOUT_UNSUPPORTED where it offers none. */
  signOutAgent(agentId: string): Promise<void>;
  /** Streams a terminal sign-in: its output so far, then live, then its exit. Returns a function that stops. */
  watchAuth(id: string, onFrame: (f: AuthFrame) => void): () => void;
  authInput(id: string, data: string): Promise<void>;
  authResize(id: string, cols: number, rows: number): Promise<void>;
  closeAuth(id: string): Promise<void>;
  /** The usage ledger, grouped (GET /v1/usage); days in the browser's or window's time zone. */
  getUsage(q: UsageQuery): Promise<UsageReport>;
  /** Allows exactly one more turn past a spent budget (POST /v1/budgets/override). */
  overrideBudget(budget: string, threadId?: string): Promise<unknown>;
  /**
   * A browser only: whether the page holds a session secret at all (without
   * one, nothing is asked of the hub: the page says how to sign in).
   */
  signedIn?(): boolean;
  /** A browser only: ends the session (POST /v1/auth/logout) and forgets its secret. */
  logout?(): Promise<void>;
  /** Every event with seq > after (after < 0: live ones only), then live, resuming on its own. */
  subscribe(after: number, handlers: SubscribeHandlers): Subscription;

  // Issue 21: archive, export, import, open in browser.
  /** A page of threads with the archived filter (GET /v1/threads?archived=). */
  queryThreads(archived: ArchivedFilter, limit?: number, cursor?: string): Promise<ThreadPage>;
  /** PATCH /v1/threads/{id} {archived}: it cancels nothing. */
  setArchived(id: string, archived: boolean): Promise<Thread>;
  /** POST /v1/threads/archive; how many it archived. */
  archiveThreads(req: ArchiveRequest): Promise<number>;
  /** The export as text (Markdown or JSON lines). */
  exportThreads(req: ExportRequest): Promise<string>;
  /** Imports a JSON lines export (POST /v1/threads/import). */
  /** cwd: the folder the user chose for the file's threads (else the file's own, if the user uses it: IMPORT_FOLDER otherwise). */
  importThreads(jsonl: Blob, cwd?: string): Promise<ImportResult>;
  /** The window only: opens the thread in the user's browser through a one-time login link. */
  openInBrowser?(threadId: string): Promise<void>;
  /** The window only: the native Save dialog, then the export written there; the path, or "" when cancelled. */
  saveExport?(req: ExportRequest, name: string): Promise<string>;

  // Issue 16: the agents' questions (lib/elicitation.ts).
  /** GET /v1/elicitations, newest first (pending ones: status "pending"). */
  listElicitations?(status?: ElicitationStatus): Promise<Elicitation[]>;
  /** POST /v1/elicitations/{id}: answers it; answers it as it ended. */
  answerElicitation?(id: string, a: ElicitationAnswer): Promise<Elicitation>;
  /**
   * Opens a pending URL question's link in the user's browser, never in
   * this window: the desktop asks the hub to open the link it checked
   * (Wails' BrowserOpenURL); a browser opens a new tab with noopener.
   */
  openElicitationURL?(el: Elicitation): Promise<void>;
}

/** One message of a terminal sign-in's stream. */
export interface AuthFrame {
  output?: string;
  exit?: number;
}

/** A bound method may answer the bare value or the HTTP shape {key: value}. */
function unwrap<T>(v: unknown, key: string): T {
  if (v && typeof v === 'object' && !Array.isArray(v) && key in v) return (v as Record<string, T>)[key];
  return v as T;
}

/** Settings with agents never null (a Go nil slice). */
/** A decision's answer: {permission, rule?, shadowedBy?}, or a bare permission (a hub before remembered rules). */
export function decisionResult(v: unknown): DecisionResult {
  const o = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  if (o.permission && typeof o.permission === 'object') {
    const r: DecisionResult = { permission: o.permission as Permission };
    if (o.rule && typeof o.rule === 'object') r.rule = o.rule as RememberedRule;
    if (typeof o.shadowedBy === 'string' && o.shadowedBy) r.shadowedBy = o.shadowedBy;
    return r;
  }
  return { permission: v as Permission };
}

/** A page of the audit with its list never null and no empty cursor. */
function permissionPage(p: PermissionPage | undefined): PermissionPage {
  return { permissions: p?.permissions ?? [], nextCursor: p?.nextCursor || undefined };
}

/**
 * Keeps the highest seq delivered and drops anything at or below it. A
 * hub-wide event the hub could not store (seq 0: disk_full) passes without
 * moving the resume point.
 */
export class SeqGate {
  last: number;
  constructor(after = -1) {
    this.last = after;
  }
  accept(e: HubEvent): boolean {
    if (e.seq === 0 && !e.threadId) return true;
    if (typeof e.seq !== 'number' || !(e.seq > this.last)) return false;
    this.last = e.seq;
    return true;
  }
}

// ---------------------------------------------------------------- Wails

export type { WailsBindings };

export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
  EventsEmit?(name: string, ...data: unknown[]): void;
  WindowSetTitle?(title: string): void;
  Quit?(): void;
}

declare global {
  interface Window {
    go?: { app?: { Bindings?: WailsBindings } };
    runtime?: WailsRuntime;
  }
}

/** True inside the desktop window (Wails injects window.go). */
export function inWindow(w: Window = window): boolean {
  return !!w.go;
}

/** A runtime event's data: an object, or a JSON string of one. */
function parseObject(d: unknown): Record<string, unknown> | undefined {
  let v = d;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function parseEventData(d: unknown): HubEvent | undefined {
  return parseObject(d) as HubEvent | undefined;
}

export class WailsTransport implements Transport {
  readonly kind = 'wails';
  readonly clientId = 'window';
  private bindings: WailsBindings;
  readonly work: WorkApi;
  readonly sessions: SessionsApi;
  readonly hosts: HostsApi;
  readonly queue: QueueApi;
  private runtime: WailsRuntime;
  readonly chooseFolder?: (title: string) => Promise<string>;

  constructor(bindings?: WailsBindings, runtime?: WailsRuntime) {
    const b = bindings ?? window.go?.app?.Bindings;
    const r = runtime ?? window.runtime;
    if (!b || !r) throw new HubError('INTERNAL', 'the window bindings are not available');
    this.bindings = b;
    this.runtime = r;
    this.work = wailsWork(b, (f) => this.call(f));
    this.sessions = wailsSessions(b, (f) => this.call(f));
    this.hosts = wailsHosts(b, (f) => this.call(f));
    this.queue = wailsQueue(b, (f) => this.call(f));
    const choose = b.ChooseFolder;
    if (choose) {
      this.chooseFolder = (title) => this.call<string>(() => choose.call(b, title)).then((d) => (typeof d === 'string' ? d : ''));
    }
  }

  private async call<T>(f: () => Promise<unknown>, key?: string): Promise<T> {
    try {
      const v = await f();
      return key ? unwrap<T>(v, key) : (v as T);
    } catch (err) {
      throw errorFromWails(err);
    }
  }

  listAgents() {
    return this.call<Agent[]>(() => this.bindings.ListAgents(), 'agents').then((a) => a ?? []);
  }
  createThread(req: CreateThreadRequest) {
    // worktree is true/false or {branch}/{path}: hub.WorktreeRequest reads that JSON itself,
    // which the generated model (its Go fields) does not describe.
    return this.call<Thread>(() => this.bindings.CreateThread(req as unknown as Parameters<WailsBindings['CreateThread']>[0]), 'thread');
  }
  async listThreads(limit = 0, cursor = '') {
    const p = await this.call<ThreadPage>(() => this.bindings.ListThreads(limit, cursor));
    return { threads: p?.threads ?? [], nextCursor: p?.nextCursor || undefined };
  }
  getThread(id: string) {
    return this.call<Thread>(() => this.bindings.GetThread(id), 'thread');
  }
  renameThread(id: string, title: string) {
    return this.call<Thread>(() => this.bindings.RenameThread(id, title), 'thread');
  }
  async deleteThread(id: string) {
    await this.call(() => this.bindings.DeleteThread(id));
  }
  compactThread(id: string) {
    return this.call<Thread>(() => this.bindings.CompactThread(id), 'thread');
  }
  startTurn(threadId: string, input: TurnInput) {
    return this.call<Turn>(() => this.bindings.StartTurn(threadId, input), 'turn');
  }
  cancelTurn(turnId: string) {
    return this.call<Turn>(() => this.bindings.CancelTurn(turnId), 'turn');
  }
  history(threadId: string, includeEvents: boolean, includeInternal = false) {
    return this.call<TurnHistory[]>(() => this.bindings.History(threadId, includeEvents, includeInternal), 'turns').then(
      (t) => t ?? [],
    );
  }
  async historyPage(threadId: string, q: HistoryQuery) {
    const p = await this.call<HistoryPage>(() => this.bindings.HistoryPage(threadId, q));
    return { turns: p?.turns ?? [], nextCursor: p?.nextCursor || undefined };
  }
  listPermissions(status?: PermissionStatus) {
    return this.call<Permission[]>(() => this.bindings.ListPermissions(status ?? ''), 'permissions').then((p) => p ?? []);
  }
  async decidePermission(id: string, decision: Decision) {
    return decisionResult(await this.call<unknown>(() => this.bindings.DecidePermission(id, decision)));
  }
  async decidePermissions(batch: BatchDecision) {
    const r = await this.call<BatchResult>(() => this.bindings.DecidePermissions(batch));
    return { results: r?.results ?? [] };
  }
  async queryPermissions(q: PermissionQuery) {
    return permissionPage(await this.call<PermissionPage>(() => this.bindings.QueryPermissions(q)));
  }
  listRules() {
    return this.call<RememberedRule[]>(() => this.bindings.ListRules(), 'rules').then((r) => r ?? []);
  }
  async deleteRule(id: string) {
    await this.call(() => this.bindings.DeleteRule(id));
  }
  async listHosts() {
    return (await this.call<Host[]>(() => this.bindings.ListHosts())) ?? [];
  }
  async addHost(name: string, ssh: string) {
    return this.call<Host>(() => this.bindings.AddHost(name, ssh));
  }
  async removeHost(name: string) {
    await this.call(() => this.bindings.RemoveHost(name));
  }
  async connectHost(name: string, trustKey?: string) {
    return this.call<Host>(() => this.bindings.ConnectHost(name, { trustKey }));
  }
  async search(q: SearchQuery) {
    const p = await this.call<SearchPage>(() => this.bindings.Search(q as Parameters<WailsBindings['Search']>[0]));
    return { hits: p?.hits ?? [], nextCursor: p?.nextCursor || undefined, indexing: !!p?.indexing };
  }
  openSession(threadId: string) {
    return this.call<Thread>(() => this.bindings.OpenSession(threadId), 'thread');
  }
  setMode(threadId: string, modeId: string) {
    return this.call<Thread>(() => this.bindings.SetMode(threadId, modeId), 'thread');
  }
  setConfigOption(threadId: string, configId: string, value: string) {
    return this.call<Thread>(() => this.bindings.SetConfigOption(threadId, configId, value), 'thread');
  }
  getSettings() {
    return this.call<Settings>(() => this.bindings.GetSettings(), 'settings').then(withAgents);
  }
  updateSettings(patch: SettingsPatch) {
    return this.call<Settings>(() => this.bindings.UpdateSettings(patch), 'settings').then(withAgents);
  }
  hostPolicy(name: string) {
    return wailsHostPolicy(this.bindings, (f) => this.call(f), name);
  }
  async installAgent(id: string, version = '') {
    await this.call(() => this.bindings.InstallAgent(id, version));
  }
  async removeAgent(id: string) {
    await this.call(() => this.bindings.RemoveAgent(id));
  }
  async installNode() {
    await this.call(() => this.bindings.InstallNode());
  }
  nodeStatus() {
    return this.call<NodeStatus>(() => this.bindings.NodeStatus());
  }
  signInAgent(agentId: string, methodId: string) {
    return this.call<{ authSessionId?: string }>(() => this.bindings.SignInAgent(agentId, methodId));
  }
  async signOutAgent(agentId: string) {
    await this.call(() => this.bindings.SignOutAgent(agentId));
  }
  watchAuth(id: string, onFrame: (f: AuthFrame) => void) {
    const off = this.runtime.EventsOn('auth:frame', (d) => {
      const f = d as { id?: string; output?: string; exit?: number | null };
      if (f?.id !== id) return;
      onFrame({ output: f.output || undefined, exit: typeof f.exit === 'number' ? f.exit : undefined });
    });
    this.bindings.WatchAuth(id).catch((err: unknown) => onFrame({ output: `\n${errorFromWails(err).message}\n` }));
    return off;
  }
  async authInput(id: string, data: string) {
    await this.call(() => this.bindings.AuthInput(id, data));
  }
  async authResize(id: string, cols: number, rows: number) {
    await this.call(() => this.bindings.AuthResize(id, cols, rows));
  }
  async closeAuth(id: string) {
    await this.call(() => this.bindings.CloseAuth(id));
  }
  async queryThreads(archived: ArchivedFilter, limit = 0, cursor = '') {
    const p = await this.call<ThreadPage>(() => this.bindings.QueryThreads({ archived, limit, cursor }));
    return { threads: p?.threads ?? [], nextCursor: p?.nextCursor || undefined };
  }
  setArchived(id: string, archived: boolean) {
    return this.call<Thread>(() => this.bindings.SetArchived(id, archived), 'thread');
  }
  async archiveThreads(req: ArchiveRequest) {
    return (await this.call<{ archived: number }>(() => this.bindings.ArchiveThreads(req)))?.archived ?? 0;
  }
  exportThreads(req: ExportRequest) {
    return this.call<string>(() => this.bindings.ExportText(req));
  }
  async importThreads(jsonl: Blob, cwd?: string) {
    const r = await this.call<ImportResult>(async () => this.bindings.ImportText(await jsonl.text(), cwd ?? ''));
    return { threads: r?.threads ?? [], turns: r?.turns ?? 0, events: r?.events ?? 0 };
  }
  async openInBrowser(threadId: string) {
    await this.call(() => this.bindings.OpenInBrowser(threadId));
  }
  async listElicitations(status?: ElicitationStatus) {
    const p = await this.call<{ elicitations?: Elicitation[] }>(() =>
      this.bindings.QueryElicitations({ status: status ?? '' } as Parameters<WailsBindings['QueryElicitations']>[0]),
    );
    return p?.elicitations ?? [];
  }
  async answerElicitation(id: string, a: ElicitationAnswer) {
    return this.call<Elicitation>(() => this.bindings.AnswerElicitation(id, a as Parameters<WailsBindings['AnswerElicitation']>[1]));
  }
  async openElicitationURL(el: Elicitation) {
    await this.call(() => this.bindings.OpenElicitationURL(el.id));
  }
  async saveExport(req: ExportRequest, name: string) {
    const p = await this.call<string>(() => this.bindings.SaveExport(req, name));
    return typeof p === 'string' ? p : '';
  }
  getUsage(q: UsageQuery) {
    return this.call<UsageReport>(
      () => this.bindings.GetUsage({ ...q, tz: q.tz ?? localZone() }),
    );
  }
  overrideBudget(budget: string, threadId?: string) {
    return this.call<unknown>(() => this.bindings.OverrideBudget({ budget, threadId }));
  }

  onNavigate(cb: (n: Navigate) => void): () => void {
    const offPermission = this.runtime.EventsOn('window:showPermission', (d) => {
      const v = parseObject(d);
      if (typeof v?.id === 'string' && v.id) cb({ kind: 'permission', id: v.id });
    });
    const offTurn = this.runtime.EventsOn('window:showTurn', (d) => {
      const v = parseObject(d);
      if (typeof v?.id === 'string' && typeof v.threadId === 'string' && v.threadId) {
        cb({ kind: 'turn', id: v.id, threadId: v.threadId });
      }
    });
    const offThread = this.runtime.EventsOn('window:showThread', (d) => {
      const v = parseObject(d);
      if (typeof v?.threadId === 'string' && v.threadId) cb({ kind: 'thread', threadId: v.threadId });
    });
    // Listening now: a show the app was asked for while the page loaded
    // (`switchboard open`, a notification's click) comes again (app.EventWindowReady).
    this.runtime.EventsEmit?.('window:ready');
    return () => {
      offPermission();
      offTurn();
      offThread();
    };
  }

  onMenu(cb: (action: MenuAction) => void): () => void {
    return this.runtime.EventsOn('window:menu', (d) => {
      const a = parseObject(d)?.action;
      if (typeof a === 'string' && menuActions.includes(a)) cb(a as MenuAction);
    });
  }

  setTitle(title: string) {
    this.runtime.WindowSetTitle?.(title);
  }

  quit() {
    this.runtime.Quit?.();
  }

  subscribe(after: number, h: SubscribeHandlers): Subscription {
    const gate = new SeqGate(after);
    let closed = false;
    let retry = 0;
    const start = () => {
      if (closed) return;
      h.onState?.('connecting');
      this.bindings.Subscribe(gate.last).then(
        () => {
          retry = 0;
          if (!closed) h.onState?.('open');
        },
        (err) => {
          if (closed) return;
          h.onState?.('reconnecting', errorFromWails(err));
          setTimeout(start, backoff(retry++));
        },
      );
    };
    const offEvent = this.runtime.EventsOn('hub:event', (d) => {
      const e = parseEventData(d);
      if (!closed && e && gate.accept(e)) h.onEvent(e);
    });
    const offResync = this.runtime.EventsOn('hub:resync', () => {
      // Forwarding stopped; resume after the last event delivered.
      if (closed) return;
      h.onState?.('reconnecting');
      if (gate.last < 0) h.onGap?.();
      start();
    });
    start();
    return {
      close() {
        closed = true;
        offEvent();
        offResync();
        h.onState?.('closed');
      },
    };
  }
}

/** Reconnect delay: 0.5 s doubling to 15 s, with ±20 % jitter. */
export function backoff(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.8 + 0.4 * random()));
}

// ---------------------------------------------------------------- HTTP

const clientIdKey = 'switchboard.clientId';

/** "browser-<random>", kept in localStorage so threads stay this browser's. */
export function browserClientId(storage: Storage | undefined = globalThis.localStorage): string {
  try {
    const have = storage?.getItem(clientIdKey);
    if (have && /^[A-Za-z0-9._-]{1,64}$/.test(have)) return have;
  } catch {
    // storage refused (privacy mode): an id for this page only
  }
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  const id = 'browser-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    storage?.setItem(clientIdKey, id);
  } catch {
    // see above
  }
  return id;
}

/**
 * The sessionStorage key under which the sign-in page (GET /auth?code=)
 * leaves the browser login's secret: hub/httpapi SessionStorageKey.
 * sessionStorage is per origin (scheme, host and port), unlike a cookie,
 * which every port of 127.0.0.1 would receive.
 */
export const sessionKey = 'switchboard.session';

/** The session secret this page holds, or "". */
export function readSession(storage: Storage | undefined = globalThis.sessionStorage): string {
  try {
    return storage?.getItem(sessionKey) ?? '';
  } catch {
    return '';
  }
}

export interface HttpOptions {
  base?: string;
  clientId?: string;
  /** Where the session secret is kept (default sessionStorage). */
  storage?: Storage;
  fetch?: typeof fetch;
  /** Injected for tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

export class HttpTransport implements Transport {
  readonly kind = 'http';
  readonly clientId: string;
  private base: string;
  private fetch: typeof fetch;
  private sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private random: () => number;
  private storage: Storage | undefined;
  private session: string;
  readonly work: WorkApi = httpWork(
    (method, url, body) => this.request(method, url, body),
    (path, params) => this.url(path, params),
  );
  readonly sessions: SessionsApi = httpSessions(
    (method, url, body, status) => this.request(method, url, body, status),
    (path, params) => this.url(path, params),
  );
  readonly hosts: HostsApi = httpHosts(
    (method, url, body) => this.request(method, url, body),
    (path, params) => this.url(path, params),
  );
  readonly queue: QueueApi = httpQueue(
    (method, url, body) => this.request(method, url, body),
    (path) => this.url(path),
  );

  constructor(o: HttpOptions = {}) {
    this.base = o.base ?? '';
    this.clientId = o.clientId ?? browserClientId();
    this.storage = o.storage ?? globalThis.sessionStorage;
    this.session = readSession(this.storage);
    this.fetch = o.fetch ?? ((...a) => globalThis.fetch(...a));
    this.sleep = o.sleep ?? abortableSleep;
    this.random = o.random ?? Math.random;
  }

  url(path: string, params: Record<string, string | number | boolean | undefined> = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
    q.set('scope', 'all');
    return `${this.base}${path}?${q}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { 'X-Client-ID': this.clientId, Accept: 'application/json', ...extra };
    if (this.session) h.Authorization = `Bearer ${this.session}`;
    return h;
  }

  signedIn(): boolean {
    return this.session !== '';
  }

  /** Forgets the session secret (the hub refused it, or the user logged out). */
  private forget(): void {
    this.session = '';
    try {
      this.storage?.removeItem(sessionKey);
    } catch {
      // storage refused: the secret is gone from this transport anyway
    }
  }

  async logout(): Promise<void> {
    if (!this.session) return;
    try {
      await this.request('POST', this.url('/v1/auth/logout'));
    } catch (e) {
      // Already ended (401): signed out all the same.
      if (!(e instanceof HubError && e.code === 'UNAUTHORIZED')) throw e;
    } finally {
      this.forget();
    }
  }

  /** status, when given, receives the answer's HTTP status (an import's 201 or 200). */
  private async request<T>(method: string, url: string, body?: unknown, status?: { code: number }): Promise<T> {
    let res: Response;
    try {
      res = await this.fetch(url, {
        method,
        credentials: 'omit',
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new HubError('NETWORK', `cannot reach the hub: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok) {
      if (res.status === 401) this.forget();
      throw await errorFromResponse(res);
    }
    if (status) status.code = res.status;
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async listAgents() {
    return (await this.request<{ agents: Agent[] }>('GET', this.url('/v1/agents'))).agents ?? [];
  }
  async createThread(req: CreateThreadRequest) {
    return (await this.request<{ thread: Thread }>('POST', this.url('/v1/threads'), req)).thread;
  }
  async listThreads(limit?: number, cursor?: string) {
    const p = await this.request<ThreadPage>('GET', this.url('/v1/threads', { limit, cursor }));
    return { threads: p.threads ?? [], nextCursor: p.nextCursor };
  }
  async getThread(id: string) {
    return (await this.request<{ thread: Thread }>('GET', this.url(`/v1/threads/${encodeURIComponent(id)}`))).thread;
  }
  async renameThread(id: string, title: string) {
    const u = this.url(`/v1/threads/${encodeURIComponent(id)}`);
    return (await this.request<{ thread: Thread }>('PATCH', u, { title })).thread;
  }
  async deleteThread(id: string) {
    await this.request('DELETE', this.url(`/v1/threads/${encodeURIComponent(id)}`));
  }
  async compactThread(id: string) {
    const u = this.url(`/v1/threads/${encodeURIComponent(id)}/compact`);
    return (await this.request<{ thread: Thread }>('POST', u)).thread;
  }
  async startTurn(threadId: string, input: TurnInput) {
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/turns`);
    return (await this.request<{ turn: Turn }>('POST', u, input)).turn;
  }
  async cancelTurn(turnId: string) {
    const u = this.url(`/v1/turns/${encodeURIComponent(turnId)}/cancel`);
    return (await this.request<{ turn: Turn }>('POST', u)).turn;
  }
  async history(threadId: string, includeEvents: boolean, includeInternal = false) {
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/history`, { includeEvents, includeInternal });
    return (await this.request<{ turns: TurnHistory[] }>('GET', u)).turns ?? [];
  }
  async historyPage(threadId: string, q: HistoryQuery) {
    // limit is always sent: limit or cursor is what asks for a page.
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/history`, {
      includeEvents: q.includeEvents,
      includeInternal: q.includeInternal,
      limit: q.limit && q.limit > 0 ? q.limit : 50,
      cursor: q.cursor,
    });
    const p = await this.request<HistoryPage>('GET', u);
    return { turns: p.turns ?? [], nextCursor: p.nextCursor || undefined };
  }
  async search(q: SearchQuery) {
    const u = this.url('/v1/search', { ...q });
    const p = await this.request<SearchPage>('GET', u);
    return { hits: p.hits ?? [], nextCursor: p.nextCursor || undefined, indexing: !!p.indexing };
  }
  async listPermissions(status?: PermissionStatus) {
    const u = this.url('/v1/permissions', { status });
    return (await this.request<{ permissions: Permission[] }>('GET', u)).permissions ?? [];
  }
  async decidePermission(id: string, decision: Decision) {
    const u = this.url(`/v1/permissions/${encodeURIComponent(id)}`);
    return decisionResult(await this.request<DecisionResult>('POST', u, decision));
  }
  async decidePermissions(batch: BatchDecision) {
    const r = await this.request<BatchResult>('POST', this.url('/v1/permissions/decide'), batch);
    return { results: r?.results ?? [] };
  }
  async listElicitations(status?: ElicitationStatus) {
    const u = this.url('/v1/elicitations', { status });
    return (await this.request<{ elicitations?: Elicitation[] }>('GET', u))?.elicitations ?? [];
  }
  async answerElicitation(id: string, a: ElicitationAnswer) {
    const u = this.url(`/v1/elicitations/${encodeURIComponent(id)}`);
    return (await this.request<{ elicitation: Elicitation }>('POST', u, a)).elicitation;
  }
  async openElicitationURL(el: Elicitation) {
    // Only a link lib/elicitation accepts, in a new tab that cannot reach
    // back to this page (noopener, noreferrer): this window never navigates.
    const link = linkParts(el.url);
    if (!link) throw new HubError('INVALID_ARGUMENT', 'this link cannot be opened safely');
    window.open(link.href, '_blank', 'noopener,noreferrer');
  }
  async queryPermissions(q: PermissionQuery) {
    const u = this.url('/v1/permissions', {
      status: q.status,
      decidedBy: q.decidedBy,
      agent: q.agent,
      threadId: q.threadId,
      from: q.from,
      to: q.to,
      limit: q.limit || undefined,
      cursor: q.cursor,
    });
    return permissionPage(await this.request<PermissionPage>('GET', u));
  }
  listRules() {
    return this.policy().listRules();
  }
  deleteRule(id: string) {
    return this.policy().deleteRule(id);
  }
  async listHosts() {
    return (await this.request<{ hosts: Host[] }>('GET', this.url('/v1/hosts'))).hosts ?? [];
  }
  async addHost(name: string, ssh: string) {
    return this.request<Host>('POST', this.url('/v1/hosts'), { name, ssh });
  }
  async removeHost(name: string) {
    await this.request('DELETE', this.url(`/v1/hosts/${encodeURIComponent(name)}`));
  }
  async connectHost(name: string, trustKey?: string) {
    return this.request<Host>('POST', this.url(`/v1/hosts/${encodeURIComponent(name)}/connect`), trustKey ? { trustKey } : {});
  }
  async openSession(threadId: string) {
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/session`);
    return (await this.request<{ thread: Thread }>('POST', u)).thread;
  }
  async setMode(threadId: string, modeId: string) {
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/mode`);
    return (await this.request<{ thread: Thread }>('POST', u, { modeId })).thread;
  }
  async setConfigOption(threadId: string, configId: string, value: string) {
    const u = this.url(`/v1/threads/${encodeURIComponent(threadId)}/config-option`);
    return (await this.request<{ thread: Thread }>('POST', u, { configId, value })).thread;
  }
  getSettings() {
    return this.policy().getSettings();
  }
  updateSettings(patch: SettingsPatch) {
    return this.policy().updateSettings(patch);
  }
  hostPolicy(name: string) {
    return this.policy(name);
  }
  /** This hub's policy routes (under /v1), or a host's (under /v1/hosts/{name}). */
  private policy(host?: string): HubPolicy {
    return httpPolicy(
      (method, url, body) => this.request(method, url, body),
      (path, params) => this.url(path, params),
      policyBase(host),
    );
  }
  async installAgent(id: string, version?: string) {
    await this.request('POST', this.url(`/v1/agents/${encodeURIComponent(id)}/install`), version ? { version } : {});
  }
  async removeAgent(id: string) {
    await this.request('DELETE', this.url(`/v1/agents/${encodeURIComponent(id)}/install`));
  }
  async installNode() {
    await this.request('POST', this.url('/v1/node/install'));
  }
  async nodeStatus() {
    return (await this.request<{ node?: NodeStatus }>('GET', this.url('/v1/agents'))).node;
  }
  async signInAgent(agentId: string, methodId: string) {
    return (await this.request<{ authSessionId?: string }>('POST', this.url(`/v1/agents/${encodeURIComponent(agentId)}/auth`), { methodId })) ?? {};
  }
  async signOutAgent(agentId: string) {
    await this.request('POST', this.url(`/v1/agents/${encodeURIComponent(agentId)}/logout`));
  }
  watchAuth(id: string, onFrame: (f: AuthFrame) => void) {
    const ctl = new AbortController();
    void (async () => {
      try {
        const res = await this.fetch(this.url(`/v1/auth-sessions/${encodeURIComponent(id)}/stream`), {
          method: 'GET',
          credentials: 'omit',
          headers: this.headers({ Accept: 'text/event-stream' }),
          signal: ctl.signal,
          cache: 'no-store',
        });
        if (!res.ok || !res.body) {
          onFrame({ output: `\n${(await errorFromResponse(res)).message}\n` });
          return;
        }
        const parser = new SseParser();
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          for (const m of parser.push(decoder.decode(value, { stream: true }))) {
            try {
              onFrame(JSON.parse(m.data) as AuthFrame);
            } catch {
              // not a frame
            }
          }
        }
      } catch {
        // aborted, or the hub went away
      }
    })();
    return () => ctl.abort();
  }
  async authInput(id: string, data: string) {
    await this.request('POST', this.url(`/v1/auth-sessions/${encodeURIComponent(id)}/input`), { data });
  }
  async authResize(id: string, cols: number, rows: number) {
    await this.request('POST', this.url(`/v1/auth-sessions/${encodeURIComponent(id)}/resize`), { cols, rows });
  }
  async closeAuth(id: string) {
    await this.request('DELETE', this.url(`/v1/auth-sessions/${encodeURIComponent(id)}`));
  }
  async queryThreads(archived: ArchivedFilter, limit?: number, cursor?: string) {
    const p = await this.request<ThreadPage>('GET', this.url('/v1/threads', { archived, limit, cursor }));
    return { threads: p.threads ?? [], nextCursor: p.nextCursor };
  }
  async setArchived(id: string, archived: boolean) {
    const u = this.url(`/v1/threads/${encodeURIComponent(id)}`);
    return (await this.request<{ thread: Thread }>('PATCH', u, { archived })).thread;
  }
  async archiveThreads(req: ArchiveRequest) {
    return (await this.request<{ archived: number }>('POST', this.url('/v1/threads/archive'), req)).archived;
  }
  async exportThreads(req: ExportRequest) {
    const u = req.threadId
      ? this.url(`/v1/threads/${encodeURIComponent(req.threadId)}/export`, { format: req.format })
      : this.url('/v1/threads/export', { format: req.format, cwd: req.cwd });
    const res = await this.raw('GET', u);
    return res.text();
  }
  async importThreads(jsonl: Blob, cwd?: string) {
    const res = await this.raw('POST', this.url('/v1/threads/import', { cwd }), jsonl, 'application/x-ndjson');
    const r = (await res.json()) as ImportResult;
    return { threads: r.threads ?? [], turns: r.turns ?? 0, events: r.events ?? 0 };
  }

  /** A request whose body or answer is not JSON (export, import); a non-2xx answer throws. */
  private async raw(method: string, url: string, body?: Blob, contentType?: string): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetch(url, {
        method,
        credentials: 'omit',
        headers: this.headers(contentType ? { 'Content-Type': contentType } : {}),
        body,
      });
    } catch (err) {
      throw new HubError('NETWORK', `cannot reach the hub: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok) {
      if (res.status === 401) this.forget();
      throw await errorFromResponse(res);
    }
    return res;
  }
  getUsage(q: UsageQuery) {
    return this.policy().getUsage(q);
  }
  async overrideBudget(budget: string, threadId?: string) {
    return await this.request<unknown>('POST', this.url('/v1/budgets/override'), { budget, threadId });
  }

  subscribe(after: number, h: SubscribeHandlers): Subscription {
    const ctl = new AbortController();
    void this.streamLoop('/v1/events', after, h, ctl.signal);
    return {
      close() {
        ctl.abort();
        h.onState?.('closed');
      },
    };
  }

  /**
   * Reads an SSE endpoint until signal aborts: reconnects with backoff and
   * Last-Event-ID after a drop or a resync, and hands on each event once.
   */
  async streamLoop(path: string, after: number, h: SubscribeHandlers, signal: AbortSignal): Promise<void> {
    const gate = new SeqGate(after);
    let attempt = 0;
    let first = true;
    while (!signal.aborted) {
      if (first) h.onState?.('connecting');
      if (!first && gate.last < 0) h.onGap?.();
      first = false;
      let err: HubError | undefined;
      try {
        const headers = this.headers({ Accept: 'text/event-stream' });
        if (gate.last >= 0) headers['Last-Event-ID'] = String(gate.last);
        const res = await this.fetch(this.url(path, gate.last < 0 ? { after: -1 } : {}), {
          method: 'GET',
          credentials: 'omit',
          headers,
          signal,
          cache: 'no-store',
        });
        if (!res.ok) {
          err = await errorFromResponse(res);
          if (res.status === 401) {
            // Signed out (logout elsewhere, expiry, a restart, a token
            // rotation): retrying cannot help.
            this.forget();
            h.onState?.('closed', err);
            return;
          }
        } else if (!res.body) {
          err = new HubError('INTERNAL', 'the event stream has no body');
        } else {
          h.onState?.('open');
          const parser = new SseParser();
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          let resync = false;
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const m of parser.push(decoder.decode(value, { stream: true }))) {
              if (m.event === 'resync') {
                resync = true;
                continue;
              }
              let e: HubEvent;
              try {
                e = JSON.parse(m.data) as HubEvent;
              } catch {
                continue;
              }
              if (typeof e.seq !== 'number' && /^\d+$/.test(m.id)) e.seq = Number(m.id);
              if (gate.accept(e)) {
                attempt = 0; // data flowed: the next drop starts the backoff over
                h.onEvent(e);
              }
            }
          }
          if (resync) {
            attempt = 0;
            h.onState?.('reconnecting');
            continue; // reconnect at once from the last seq
          }
          err = new HubError('NETWORK', 'the event stream ended');
        }
      } catch (e) {
        if (signal.aborted) return;
        err = e instanceof HubError ? e : new HubError('NETWORK', e instanceof Error ? e.message : String(e));
      }
      if (signal.aborted) return;
      h.onState?.('reconnecting', err);
      let delay = backoff(attempt++, this.random);
      if (err?.retryAfter) delay = Math.max(delay, err.retryAfter * 1000);
      await this.sleep(delay, signal);
    }
  }
}

/** The transport for where the UI runs: the window's bindings, else HTTP. */
export function createTransport(): Transport {
  return inWindow() ? new WailsTransport() : new HttpTransport();
}
