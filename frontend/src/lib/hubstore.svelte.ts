// The UI's state: threads, agents, pending permissions, settings, and a
// Conversation (conversation.svelte.ts) per thread. Events are queued and
// applied once per animation frame, so a stream of 1000+ message chunks a
// second costs one render a frame; within a thread they apply in seq order,
// and a seq seen twice is ignored.
import { ThreadQueues } from './queuestore.svelte';
import { noteAnnounced } from './announced.svelte';
import { budgetNotice, budgetRefusal } from './ledger';
import type { ConnectionState, Navigate, Subscription, Transport } from './transport';
import { errorLine, rawError } from './errors';
import { HubError } from './transport';
import { Conversation } from './conversation.svelte';
import { normalizePermission } from './shapes';
import type { Elicitation, ElicitationAnswer } from './elicitation';
import { inboxOrder } from './inbox';
import { ThreadMarks } from './marks.svelte';
import { loadRecent, mergeRecent, rememberFolder } from './recent';
import { applyTheme } from './theme';
import type { HostChange } from './hostlink';
import type {
  Agent,
  AgentInstallProgress,
  NodeStatus,
  AvailableCommand,
  BatchItem,
  ConfigOption,
  DecisionResult,
  Host,
  HubEvent,
  Outcome,
  Permission,
  RememberedRule,
  RememberScope,
  SearchHit,
  Settings,
  SettingsPatch,
  Thread,
  TurnHistory,
  TurnInput,
} from './types';

export type Scheduler = (flush: () => void) => void;

/** Once per animation frame; a timer stands in when frames do not come (a hidden tab). */
export const frameScheduler: Scheduler = (flush) => {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    flush();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(run);
  setTimeout(run, 100);
};

/** Something to scroll into view once its thread shows it; n tells repeats apart. */
export interface Reveal {
  /** event: a search hit, in turn id at seq. */
  kind: 'permission' | 'turn' | 'event';
  id: string;
  threadId: string;
  n: number;
  seq?: number;
}

export interface Toast {
  id: number;
  message: string;
  /** What it is about ('threads', 'agents', 'stream', …): settle(about) takes it away once that works again. */
  about?: string;
}

function newer(a: Thread | undefined, b: Thread): boolean {
  return !a || b.updatedAt >= a.updatedAt;
}

export class HubStore {
  threads = $state<Record<string, Thread>>({});
  agents = $state<Agent[]>([]);
  permissions = $state<Record<string, Permission>>({});
  /** The agents' questions seen (elicitation_required/_resolved, GET /v1/elicitations), by id. */
  elicitations = $state<Record<string, Elicitation>>({});
  conversations = $state<Record<string, Conversation>>({});
  connection = $state<ConnectionState>('connecting');
  selectedId = $state<string | null>(null);
  errors = $state<Toast[]>([]);
  /** What a notification click asked to show; ThreadView clears it once shown. */
  reveal = $state<Reveal | null>(null);
  /** Unread marks and last-turn statuses, per thread (kept in localStorage). */
  readonly marks: ThreadMarks;
  /** The page is visible: a turn that ends while it is not stays unread. */
  visible = $state(true);
  /** Threads being compacted (POST …/compact in flight). */
  compacting = $state<Record<string, boolean>>({});
  /**
   * Threads whose agent session could not open because the agent needs
   * signing in (POST …/session answered AUTH_REQUIRED), to their agent:
   * the thread asks for the sign-in before its first message.
   */
  signInFirst = $state<Record<string, string>>({});
  /** Folders this client created threads in, most recent first (localStorage). */
  usedFolders = $state<string[]>(loadRecent());
  /** The settings (GET /v1/settings); undefined until loaded, or when the hub has none. */
  settings = $state<Settings | undefined>();
  /**
   * Why the config file on disk was refused while the hub runs on its last
   * good version (settings.configError, then config_error events); '' when
   * the file is in force.
   */
  configError = $state('');
  /** Why nothing is being saved (disk_full: the data dir's disk is full); '' when writes succeed. */
  diskFull = $state('');
  /** The last budget_warning or budget_exceeded, as a line (lib/ledger.ts); '' when none or dismissed. */
  budgetNotice = $state('');
  /**
   * The hosts' last change (issue 30), for Settings → Hosts: n counts the
   * changes; host is the Host a host_changed event carried, absent when the
   * list itself changed (config_applied naming hosts: a host added or
   * removed here, from the CLI or by hand), so it is read again.
   */
  hostChange = $state<HostChange>({ n: 0 });
  /**
   * A browser without a valid session (none yet, expired, logged out, the
   * hub restarted or its token rotated): the page says to open the link
   * again from Switchboard instead of the UI. loggedOut: by its own Log out.
   */
  signedOut = $state(false);
  loggedOut = $state(false);
  /** Agent installs under way or just ended, by agent id ("node" for Node), from agent_install events. */
  installs = $state<Record<string, AgentInstallProgress>>({});
  /** The Node runtime installed agents run with; undefined until loaded or when the hub does not install agents. */
  node = $state<NodeStatus | undefined>();

  /**
   * What deciding with "always here" remembered, by permission id: the
   * rule added and the config rule that shadows it (the answer's
   * shadowedBy). Kept for this page's life, so the card says it in the
   * thread too after the Approvals panel decided.
   */
  remembered = $state<Record<string, Omit<DecisionResult, 'permission'>>>({});
  /** The remembered decisions (GET /v1/rules), once loadRules ran. */
  rules = $state<RememberedRule[]>([]);

  pending = $derived(
    Object.values(this.permissions)
      .filter((p) => p.status === 'pending')
      .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '')),
  );
  /** The pending questions, oldest first (the Approvals inbox lists them apart: never in a batch). */
  questions = $derived(
    Object.values(this.elicitations)
      .filter((q) => q.status === 'pending')
      .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '')),
  );
  /** The pending requests as the Approvals inbox lists them: escalated first, then the least time left. */
  inbox = $derived(inboxOrder(this.pending));
  threadList = $derived(Object.values(this.threads).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)));
  selected = $derived(this.selectedId ? this.threads[this.selectedId] : undefined);
  /** For New thread: the folders used here first, then the threads' own, at most 8. */
  recentFolders = $derived(mergeRecent(this.usedFolders, this.threadList.filter((t) => !t.host).map((t) => t.cwd)));

  readonly transport: Transport;
  /** The threads' queued prompts (lib/queuestore.svelte.ts, issue 33). */
  readonly queues: ThreadQueues;
  private schedule: Scheduler;
  private queue: HubEvent[] = [];
  private scheduled = false;
  private sub: Subscription | undefined;
  private offNavigate: (() => void) | undefined;
  private revealN = 0;
  private toastId = 0;
  private connError = '';
  private fetching = new Set<string>();
  /** thread_updated events applied, by thread: a read begun before the last one is older than it (readThread). */
  private announced = new Map<string, number>();
  /** Deleted threads: their late events are ignored. */
  private gone = new Set<string>();

  constructor(transport: Transport, schedule: Scheduler = frameScheduler) {
    this.queues = new ThreadQueues(transport.queue, (e) => this.report(e, 'queue'));
    this.transport = transport;
    this.schedule = schedule;
    this.marks = new ThreadMarks(transport.clientId);
  }

  /** Subscribes to every event, then loads threads, agents, pending permissions and settings. */
  async start(): Promise<void> {
    if (this.transport.signedIn && !this.transport.signedIn()) {
      this.signedOut = true; // nothing to ask the hub with
      return;
    }
    this.sub = this.transport.subscribe(-1, {
      onEvent: (e) => this.enqueue(e),
      onState: (s, err) => {
        const was = this.connection;
        this.connection = s;
        // A deletion while the stream was down is not replayed: list again.
        if (s === 'open' && was === 'reconnecting') void this.loadThreads().catch((e) => this.report(e, 'threads'));
        if (s === 'open') {
          this.connError = '';
          this.settle('stream');
        }
        // Say why the stream dropped once, not on every retry.
        if (err && err.code !== this.connError) {
          this.connError = err.code;
          if (err.code !== 'NETWORK') this.report(err, 'stream');
        }
      },
      onGap: () => void this.refresh(),
    });
    this.offNavigate = this.transport.onNavigate?.((n) => void this.navigate(n));
    await this.refresh();
  }

  /** Loads the settings and applies their theme. A hub without settings (404) keeps the OS theme. */
  async loadSettings(): Promise<void> {
    try {
      this.settings = await this.transport.getSettings();
      this.configError = this.settings.configError ?? '';
      applyTheme(this.settings.ui.theme);
    } catch (e) {
      if (!(e instanceof HubError && e.code === 'NOT_FOUND')) this.report(e);
    }
  }

  /**
   * Changes settings (PATCH /v1/settings): applies the new theme, and
   * reloads the agents when the patch adds or removes one. Throws the
   * hub's error, changing nothing.
   */
  async updateSettings(patch: SettingsPatch): Promise<Settings> {
    const s = await this.transport.updateSettings(patch);
    this.settings = s;
    applyTheme(s.ui.theme);
    if (patch.agents) await this.loadAgents().catch((e) => this.report(e, 'agents'));
    return s;
  }

  stop(): void {
    this.sub?.close();
    this.sub = undefined;
    this.offNavigate?.();
    this.offNavigate = undefined;
  }

  /** A browser: ends its session (POST /v1/auth/logout); the page then says how to sign in again. */
  async logout(): Promise<void> {
    this.sub?.close();
    this.sub = undefined;
    try {
      await this.transport.logout?.();
    } finally {
      this.loggedOut = true;
      this.signedOut = true;
    }
  }

  /**
   * Shows what a notification click asked for: selects the permission's (or
   * turn's) thread and asks its view to scroll the card (or turn) into view.
   */
  async navigate(n: Navigate): Promise<void> {
    if (n.kind === 'thread') {
      // A link to a thread (/#/t/<id>, `switchboard open`): an archived one
      // is not in the list, so it is read on its own.
      if (!this.threads[n.threadId]) this.fetchThread(n.threadId);
      await this.select(n.threadId);
      return;
    }
    let threadId: string | undefined;
    if (n.kind === 'turn') {
      threadId = n.threadId;
    } else {
      threadId = this.permissions[n.id]?.threadId;
      if (!threadId) {
        // Not seen yet (the window was just opened): ask for the pending list.
        try {
          (await this.transport.listPermissions('pending')).forEach((p) => this.upsertPermission(p));
        } catch (e) {
          this.report(e);
          return;
        }
        threadId = this.permissions[n.id]?.threadId;
      }
    }
    if (!threadId) return;
    if (!this.threads[threadId]) this.fetchThread(threadId);
    this.reveal = { kind: n.kind, id: n.id, threadId, n: ++this.revealN };
    await this.select(threadId);
  }

  /** Opens a search hit's thread scrolled to its event (a title hit: the thread). */
  async openHit(hit: SearchHit): Promise<void> {
    if (!this.threads[hit.threadId]) this.fetchThread(hit.threadId);
    this.reveal = hit.turnId
      ? { kind: 'event', id: hit.turnId, seq: hit.seq, threadId: hit.threadId, n: ++this.revealN }
      : null;
    await this.select(hit.threadId);
  }

  /** Switches the thread's session mode; the thread updates from the answer. */
  async setMode(threadId: string, modeId: string): Promise<void> {
    const t = await this.transport.setMode(threadId, modeId);
    if (t?.id) this.upsertThread(t);
  }

  /** Sets a session config option (the model, …); the thread updates from the answer. */
  async setConfigOption(threadId: string, configId: string, value: string): Promise<void> {
    const t = await this.transport.setConfigOption(threadId, configId, value);
    if (t?.id) this.upsertThread(t);
  }

  /**
   * Reloads the snapshot: threads, agents, pending permissions, and the
   * settings (with why the config file is refused, if it is: after a gap
   * its config_error events are not all seen).
   */
  async refresh(): Promise<void> {
    await Promise.all([
      this.loadSettings(),
      this.loadThreads().catch((e) => this.report(e, 'threads')),
      this.loadAgents().catch((e) => this.report(e, 'agents')),
      this.transport
        .listPermissions('pending')
        .then((ps) => {
          ps.forEach((p) => this.upsertPermission(p));
          this.settle('permissions');
        })
        .catch((e) => this.report(e, 'permissions')),
      this.transport.listElicitations
        ?.('pending')
        .then((qs) => {
          qs.forEach((q) => this.upsertElicitation(q));
          this.settle('questions');
        })
        .catch((e) => this.report(e, 'questions')),
    ]);
  }

  /**
   * Loads every thread. A thread known before that a complete list lacks
   * was deleted unseen (a deletion is not replayed on reconnect): dropped.
   */
  async loadThreads(): Promise<void> {
    const before = Object.keys(this.threads);
    const listed = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const p = await this.transport.listThreads(100, cursor);
      for (const t of p.threads) {
        listed.add(t.id);
        this.upsertThread(t);
      }
      cursor = p.nextCursor;
      if (!cursor) break;
    }
    this.settle('threads');
    if (cursor) return; // not the whole list
    for (const id of before) {
      if (listed.has(id)) continue;
      // Archived threads are not listed (GET /v1/threads hides them): ask.
      if (this.threads[id]?.archived) this.recheck(id);
      else this.forget(id);
    }
    this.marks.keepOnly(new Set(Object.keys(this.threads)));
  }

  async loadAgents(): Promise<void> {
    this.agents = await this.transport.listAgents();
    this.settle('agents');
  }

  /** Loads the Node status (Settings → Agents); a hub that installs nothing leaves it undefined. */
  async loadNode(): Promise<void> {
    try {
      this.node = await this.transport.nodeStatus();
    } catch (e) {
      if (!(e instanceof HubError && e.code === 'NOT_FOUND')) this.report(e);
    }
  }

  /** Starts installing (or updating) an agent; progress arrives as agent_install events. Throws the hub's refusal. */
  async installAgent(id: string, version?: string): Promise<void> {
    await this.track(id, () => this.transport.installAgent(id, version));
  }

  /** Shows install id queued while start asks the hub; a refusal takes it out again and is thrown. */
  private async track(id: string, start: () => Promise<void>): Promise<void> {
    this.installs = { ...this.installs, [id]: { agent: id, phase: 'queued', fraction: 0 } };
    try {
      await start();
    } catch (e) {
      const { [id]: _, ...rest } = this.installs;
      this.installs = rest;
      throw e;
    }
  }

  /** Removes an installed agent. */
  async removeAgent(id: string): Promise<void> {
    await this.transport.removeAgent(id);
    await this.loadAgents();
  }

  /** Starts installing Node 22 into the hub's data dir; progress arrives as agent_install events. Throws the hub's refusal. */
  async installNode(): Promise<void> {
    await this.track('node', () => this.transport.installNode());
  }

  enqueue(e: HubEvent): void {
    this.queue.push(e);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Applies every queued event now. */
  flush(): void {
    this.scheduled = false;
    const q = this.queue;
    this.queue = [];
    for (const e of q) this.apply(e);
  }

  /** Applies one event: false when it was a duplicate. */
  apply(e: HubEvent): boolean {
    if (typeof e.seq !== 'number') return false;
    if (e.type === 'thread_updated') {
      const t = e.thread as Thread | undefined;
      if (t?.id) this.announced.set(t.id, (this.announced.get(t.id) ?? 0) + 1);
      if (t?.id && e.deleted === true) this.forget(t.id);
      else if (t?.id && !this.gone.has(t.id)) this.upsertThread(t);
      return true;
    }
    if (e.threadId && this.gone.has(e.threadId)) return false;
    if (e.type === 'permission_required' || e.type === 'permission_resolved' || e.type === 'permission_escalated') {
      const p = e.permission as Permission | undefined;
      if (p?.id) this.upsertPermission(p);
    }
    if (e.type === 'elicitation_required' || e.type === 'elicitation_resolved') {
      const q = e.elicitation as Elicitation | undefined;
      if (q?.id) this.upsertElicitation(q);
    }
    if (!e.threadId) {
      this.applyHubWide(e);
      return true;
    }
    const fresh = this.conversation(e.threadId).add(e);
    if (!fresh) return false;
    this.queues.apply(e); // prompt_queued, prompt_dequeued
    // The agent needs signing in: its sign-in methods (from the initialize
    // of the process that refused) are on the agent list.
    if (e.type === 'error' && e.reason === 'AUTH_REQUIRED') this.loadAgents().catch((err) => this.report(err, 'agents'));
    if (e.type === 'turn_started') this.marks.started(e.threadId);
    else if (e.type === 'turn_completed') {
      const done = e.turn as Partial<TurnHistory> | undefined;
      if (!done?.internal) {
        this.marks.completed(e.threadId, e.seq, done?.status ?? 'completed', this.selectedId === e.threadId && this.visible);
      }
    }
    const t = this.threads[e.threadId];
    if (!t) this.fetchThread(e.threadId);
    else {
      if (e.type === 'turn_started') this.threads[e.threadId] = { ...t, status: 'running', updatedAt: max(t.updatedAt, e.at) };
      else if (e.type === 'turn_completed') this.threads[e.threadId] = { ...t, status: t.status === 'closed' ? 'closed' : 'idle', updatedAt: max(t.updatedAt, e.at) };
      else if (e.type === 'mode_changed' && typeof e.modeId === 'string') {
        if (t.modes) this.threads[e.threadId] = { ...t, modes: { ...t.modes, currentModeId: e.modeId } };
        else this.fetchThread(e.threadId, true); // the modes on offer are on the thread
      } else if (e.type === 'available_commands' && Array.isArray(e.commands)) {
        this.threads[e.threadId] = { ...t, availableCommands: e.commands as AvailableCommand[] };
      } else if (e.type === 'config_options' && Array.isArray(e.configOptions)) {
        this.threads[e.threadId] = { ...t, configOptions: e.configOptions as ConfigOption[] };
        noteAnnounced(this.threads[e.threadId]);
      }
    }
    return true;
  }

  /**
   * A hub-wide event: the data dir's disk full (disk_full, never stored;
   * message '' once writes succeed again), a config file refused (config_error; message '' once
   * a valid one applies), or applied live (config_applied: a hand edit,
   * another window's settings page): the settings, and the agents when
   * they changed, are loaded again, so an open settings page and New
   * thread show the file in force (and Settings → Hosts the hosts, through
   * hostChange, as with host_changed). agents_changed (the ACP registry
   * fetched in the background brought other agents): the agents.
   */
  private applyHubWide(e: HubEvent): void {
    if (e.type === 'agent_install' && typeof e.agent === 'string') {
      const p = e as unknown as AgentInstallProgress;
      this.installs = { ...this.installs, [p.agent]: { agent: p.agent, phase: p.phase, fraction: p.fraction ?? 0, version: p.version, error: p.error, reason: p.reason } };
      if (p.phase === 'done' || p.phase === 'removed' || p.phase === 'failed') {
        this.loadAgents().catch((err) => this.report(err, 'agents'));
        void this.loadNode();
      }
    } else if (e.type === 'disk_full') {
      this.diskFull = typeof e.message === 'string' ? e.message : '';
    } else if (e.type === 'config_error') {
      this.configError = typeof e.message === 'string' ? e.message : '';
      if (this.settings) this.settings = { ...this.settings, configError: this.configError || undefined };
    } else if (e.type === 'budget_warning' || e.type === 'budget_exceeded') {
      this.budgetNotice = budgetNotice(e) ?? '';
    } else if (e.type === 'host_changed' && typeof e.name === 'string') {
      this.hostChange = { n: this.hostChange.n + 1, host: e as unknown as Host };
    } else if (e.type === 'agents_changed') {
      this.loadAgents().catch((err) => this.report(err, 'agents'));
    } else if (e.type === 'config_applied') {
      void this.loadSettings();
      const changed = Array.isArray(e.changed) ? e.changed : [];
      if (changed.some((k) => typeof k === 'string' && k.startsWith('agents'))) {
        this.loadAgents().catch((err) => this.report(err, 'agents'));
      }
      // The budgets changed: what the budget line said is over (a new
      // warning comes with the next turn that crosses a limit).
      if (changed.some((k) => typeof k === 'string' && k.startsWith('budgets'))) this.budgetNotice = '';
      if (changed.some((k) => typeof k === 'string' && (k === 'hosts' || k.startsWith('hosts.')))) this.hostChange = { n: this.hostChange.n + 1 };
    }
  }

  /** Reads a thread again: kept when the hub still has it, forgotten when it is gone. */
  private recheck(id: string): void {
    this.readThread(id).catch((e) => {
      if (e instanceof HubError && e.code === 'NOT_FOUND') this.forget(id);
    });
  }

  /**
   * Reads a thread and keeps it, unless a thread_updated for it was
   * applied while the read was under way: that copy may be newer than
   * what the read saw (with the same updatedAt), and every later change
   * comes as its own thread_updated. Rejects with the read's error.
   */
  private async readThread(id: string): Promise<void> {
    const seen = this.announced.get(id);
    const t = await this.transport.getThread(id);
    if (this.announced.get(id) === seen) this.upsertThread(t);
  }

  /** A thread seen first through its events (another client's): load it once (again: once more). */
  private fetchThread(id: string, again = false): void {
    if (this.fetching.has(id) && !again) return;
    this.fetching.add(id);
    this.readThread(id).catch(() => {});
  }

  conversation(threadId: string): Conversation {
    let c = this.conversations[threadId];
    if (!c) {
      c = new Conversation();
      this.conversations[threadId] = c;
    }
    return c;
  }

  upsertThread(t: Thread): void {
    if (newer(this.threads[t.id], t)) this.threads[t.id] = t;
    noteAnnounced(t); // for Settings → Agents → Session defaults
  }

  /** Keeps a permission, normalised (shapes.ts): the one way permissions enter the store. */
  upsertPermission(raw: Permission): void {
    const p = normalizePermission(raw);
    if (!p) return;
    const have = this.permissions[p.id];
    // A decision is final: a stale snapshot never makes it pending again.
    if (have && have.status !== 'pending' && p.status === 'pending') return;
    this.permissions[p.id] = p;
  }

  /** Keeps a question; an ended one is final (a stale snapshot never makes it pending again). */
  upsertElicitation(q: Elicitation): void {
    if (!q || typeof q.id !== 'string' || typeof q.threadId !== 'string' || typeof q.message !== 'string') return;
    const have = this.elicitations[q.id];
    if (have && have.status !== 'pending' && q.status === 'pending') return;
    this.elicitations[q.id] = q;
  }

  /** Answers a question; its end is kept (the event would say the same). */
  async answerElicitation(id: string, a: ElicitationAnswer): Promise<void> {
    if (!this.transport.answerElicitation) throw new HubError('INTERNAL', 'this client cannot answer questions');
    const q = await this.transport.answerElicitation(id, a);
    if (q?.id) this.upsertElicitation(q);
  }

  /** Opens a URL question's link in the user's browser (never this window). */
  async openElicitationURL(id: string): Promise<void> {
    const q = this.elicitations[id];
    if (!q || !this.transport.openElicitationURL) return;
    await this.transport.openElicitationURL(q);
  }

  /** Shows a thread (null: none); it is read from then on. */
  async select(id: string | null): Promise<void> {
    this.selectedId = id;
    if (!id) return;
    this.marks.see(id);
    void this.queues.load(id);
    const c = this.conversation(id);
    if (c.loaded || c.loading) return;
    c.loading = true;
    try {
      const turns = await this.wholeHistory(id);
      c.loadHistory(turns);
      // Decided requests keep their cards after a reload: each stored
      // permission event carries the permission as it was then, the
      // latest last (only pending ones are listed at start).
      for (const t of turns) for (const e of t.events ?? []) if (isPermissionEvent(e)) this.upsertPermission(e.permission as Permission);
      this.marks.learn(id, turns[turns.length - 1]?.status);
    } catch (e) {
      this.report(e);
    } finally {
      c.loading = false;
    }
  }

  /**
   * A thread's history with events. Past the hub's 64 MiB bound (413
   * PAYLOAD_TOO_LARGE) it is read a page at a time, and a turn too large
   * for a page with its events comes without them (its input and status
   * show, its events do not).
   */
  private async wholeHistory(id: string): Promise<TurnHistory[]> {
    const tooLarge = (e: unknown) => e instanceof HubError && e.code === 'PAYLOAD_TOO_LARGE';
    try {
      return await this.transport.history(id, true);
    } catch (e) {
      if (!tooLarge(e)) throw e;
    }
    const out: TurnHistory[] = [];
    let cursor: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.transport.historyPage(id, { includeEvents: true, cursor });
      } catch (e) {
        if (!tooLarge(e)) throw e;
        page = await this.transport.historyPage(id, { includeEvents: false, cursor, limit: 1 });
      }
      out.push(...page.turns);
      if (!page.nextCursor) return out;
      cursor = page.nextCursor;
    }
  }

  /** Shows a thread made from (or already bound to) an agent's own session: read again, since its history was stored before the answer. */
  async openImported(id: string): Promise<void> {
    const t = await this.transport.getThread(id);
    this.usedFolders = rememberFolder(t.cwd);
    this.upsertThread(t);
    await this.select(t.id);
  }

  /**
   * Creates a thread and shows it, then opens its agent session in the
   * background (openSession, not awaited): the mode and model pickers
   * appear when the session's state arrives, before the first prompt. A
   * failure there is not the user's concern yet: the first prompt starts
   * the agent again and says what went wrong.
   */
  /** host: another machine's (issue 30); absent for this one. additionalDirectories: the thread's extra folders (issue 32). */
  async createThread(agent: string, cwd: string, title?: string, worktree?: boolean, host?: string, additionalDirectories?: string[]): Promise<Thread> {
    const t = await this.transport.createThread({
      agent,
      cwd,
      ...(title ? { title } : {}),
      ...(worktree ? { worktree } : {}),
      ...(host ? { host } : {}),
      ...(additionalDirectories ? { additionalDirectories } : {}), // []: none, not the folder's configured ones
    });
    if (!t.host) this.usedFolders = rememberFolder(t.cwd); // this machine's recent folders
    this.upsertThread(t);
    void this.openSession(t.id);
    await this.select(t.id);
    return t;
  }

  /**
   * Opens the thread's agent session and takes its modes and config
   * options from the answer. An agent that needs signing in marks the
   * thread (signInFirst), so it asks for the sign-in at once; any other
   * failure waits for the first prompt, which tries again and reports.
   */
  async openSession(threadId: string): Promise<void> {
    try {
      const t = await this.transport.openSession(threadId);
      delete this.signInFirst[threadId];
      if (t?.id) this.upsertThread(t);
    } catch (e) {
      const agent = this.threads[threadId]?.agent;
      if (rawError(e).reason === 'AUTH_REQUIRED' && agent) {
        this.signInFirst[threadId] = agent;
        this.loadAgents().catch((err) => this.report(err, 'agents'));
      }
    }
  }

  /** The thread's agent is signed in now: every thread of it waiting for that opens its session. */
  signedIn(agent: string): void {
    for (const [id, a] of Object.entries(this.signInFirst)) if (a === agent) void this.openSession(id);
  }

  /**
   * Starts a turn and shows its thread running — unless the turn's own
   * events got here first and it has ended already (a fast turn's
   * turn_completed can beat the POST's answer): then marking it running
   * would keep Stop on screen for a turn that is over.
   */
  async send(threadId: string, input: TurnInput): Promise<void> {
    const turn = await this.transport.startTurn(threadId, input);
    const t = this.threads[threadId];
    const seen = this.conversations[threadId]?.turns.find((v) => v.id === turn?.id);
    if (t && turn && (!seen || seen.status === 'running')) this.threads[threadId] = { ...t, status: 'running' };
  }

  async cancel(threadId: string): Promise<void> {
    const turn = this.conversations[threadId]?.runningTurn;
    if (turn) await this.transport.cancelTurn(turn.id);
  }

  async decide(id: string, optionId: string): Promise<void> {
    const r = await this.transport.decidePermission(id, { optionId });
    if (r?.permission) this.upsertPermission(r.permission);
  }

  /**
   * Decides and remembers the decision for later requests like this one in
   * scope ("always here"): what was remembered is kept in remembered[id]
   * and the rule joins rules.
   */
  async decideRemember(id: string, outcome: Outcome, remember: RememberScope): Promise<DecisionResult> {
    const r = await this.transport.decidePermission(id, { outcome, remember });
    if (r?.permission) this.upsertPermission(r.permission);
    this.remembered[id] = { rule: r.rule, shadowedBy: r.shadowedBy };
    if (r.rule && !this.rules.some((x) => x.id === r.rule?.id)) this.rules = [...this.rules, r.rule];
    return r;
  }

  /**
   * Decides several pending requests with one call. Each one decided is
   * kept; the answer's items that failed (already decided, unknown) are
   * returned, in the order given.
   */
  async decideMany(ids: string[], outcome: Outcome): Promise<BatchItem[]> {
    if (!ids.length) return [];
    const { results } = await this.transport.decidePermissions({ ids, outcome });
    const failed: BatchItem[] = [];
    for (const item of results) {
      if (item.permission) this.upsertPermission(item.permission);
      else failed.push(item);
    }
    // An id the answer left out was not decided either.
    for (const id of ids) if (!results.some((r) => r.id === id)) failed.push({ id, error: { code: 'INTERNAL', message: 'no answer for it' } });
    return failed;
  }

  /** Loads the remembered decisions. */
  async loadRules(): Promise<void> {
    this.rules = await this.transport.listRules();
  }

  /** Removes a remembered decision; it goes from rules once the hub took it. */
  async deleteRule(id: string): Promise<void> {
    await this.transport.deleteRule(id);
    this.rules = this.rules.filter((r) => r.id !== id);
  }

  async deleteThread(id: string): Promise<void> {
    await this.transport.deleteThread(id);
    this.forget(id);
  }

  /**
   * Drops a deleted thread everywhere: the thread, its conversation, its
   * permissions and marks; deselects it. Its late events are ignored.
   */
  forget(id: string): void {
    this.gone.add(id);
    delete this.threads[id];
    delete this.conversations[id];
    delete this.compacting[id];
    for (const p of Object.values(this.permissions)) if (p.threadId === id) delete this.permissions[p.id];
    for (const q of Object.values(this.elicitations)) if (q.threadId === id) delete this.elicitations[q.id];
    this.marks.drop(id);
    if (this.selectedId === id) this.selectedId = null;
    if (this.reveal?.threadId === id) this.reveal = null;
  }

  async renameThread(id: string, title: string): Promise<void> {
    const t = await this.transport.renameThread(id, title);
    if (t?.id) this.upsertThread(t);
  }

  /** Compacts the thread's context; compacting[id] is set meanwhile. */
  async compactThread(id: string): Promise<void> {
    if (this.compacting[id]) return;
    this.compacting[id] = true;
    try {
      const t = await this.transport.compactThread(id);
      if (t?.id) this.upsertThread(t);
    } finally {
      delete this.compacting[id];
    }
  }

  /** The page was shown or hidden; shown, the selected thread is read. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible && this.selectedId) this.marks.see(this.selectedId);
  }

  /**
   * Says e as a toast, in product words (lib/errors.ts). A toast never
   * outlives what it says: one about something (about) goes as soon as
   * that works again (settle), any other after 8 s or when dismissed, and
   * the same sentence is never shown twice at once (the newer replaces it).
   */
  report(e: unknown, about?: string): void {
    // A turn refused because a budget is spent is said once, by the
    // thread's BudgetBlocked banner (with its way out), never as a toast too.
    if (budgetRefusal(e, '')) return;
    if (e instanceof HubError && e.code === 'UNAUTHORIZED' && this.transport.signedIn) {
      // A browser whose session the hub refused: the signed-out page, not a toast.
      this.signedOut = true;
      this.sub?.close();
      this.sub = undefined;
      return;
    }
    // In product words, without a code or an API call (lib/errors.ts).
    const message = errorLine(e);
    const same = this.errors.findIndex((t) => t.message === message);
    if (same >= 0) this.errors.splice(same, 1);
    const id = ++this.toastId;
    this.errors.push({ id, message, ...(about ? { about } : {}) });
    setTimeout(() => this.dismiss(id), 8000);
  }

  /** Takes away the toasts about what works again (report's about). */
  settle(about: string): void {
    for (let i = this.errors.length - 1; i >= 0; i--) if (this.errors[i].about === about) this.errors.splice(i, 1);
  }

  dismiss(id: number): void {
    const i = this.errors.findIndex((t) => t.id === id);
    if (i >= 0) this.errors.splice(i, 1);
  }
}

function max(a: string, b: string): string {
  return b > a ? b : a;
}

/** A stored event that carries a permission (its state at that event). */
function isPermissionEvent(e: HubEvent): boolean {
  return (
    (e.type === 'permission_required' || e.type === 'permission_resolved' || e.type === 'permission_escalated') &&
    !!e.permission &&
    typeof e.permission === 'object'
  );
}
