// An in-memory Transport for store and component tests.
import type { UsageBy, UsageQuery, UsageReport } from '../lib/ledger';
import type { Navigate, SubscribeHandlers, Subscription, Transport } from '../lib/transport';
import { HubError } from '../lib/transport';
import type { HubPolicy } from '../lib/hostpolicy';
import type {
  Agent,
  Host,
  ArchivedFilter,
  ArchiveRequest,
  BatchDecision,
  BatchItem,
  Decision,
  DecisionResult,
  ExportRequest,
  HistoryQuery,
  HubEvent,
  NodeStatus,
  ImportResult,
  Permission,
  PermissionQuery,
  RememberedRule,
  SearchPage,
  SearchQuery,
  Settings,
  SettingsPatch,
  Thread,
  Turn,
  TurnHistory,
  TurnInput,
} from '../lib/types';

export function thread(id: string, over: Partial<Thread> = {}): Thread {
  return {
    id,
    agent: 'sdk',
    cwd: '/home/me/src/app',
    title: `Thread ${id}`,
    clientId: 'browser-test',
    status: 'idle',
    createdAt: '2026-11-21T06:00:00Z',
    updatedAt: '2026-11-21T06:00:00Z',
    ...over,
  };
}

export function permission(id: string, over: Partial<Permission> = {}): Permission {
  return {
    id,
    threadId: 'th_1',
    turnId: 'tu_1',
    status: 'pending',
    toolCall: { toolCallId: 'call_1', title: 'rm -rf build', kind: 'execute', rawInput: { command: 'rm -rf build' }, locations: [{ path: '/home/me/src/app/build' }] },
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    deadline: '2026-11-21T06:15:00Z',
    createdAt: '2026-11-21T06:05:00Z',
    ...over,
  };
}

let at = 0;
export function ev(seq: number, type: string, payload: Record<string, unknown> = {}, threadId = 'th_1', turnId = 'tu_1'): HubEvent {
  return { seq, type, threadId, turnId, at: `2026-11-21T07:00:${String(at++ % 60).padStart(2, '0')}Z`, ...payload };
}

export class FakeTransport implements Transport {
  readonly kind = 'http' as const;
  readonly clientId = 'browser-test';
  agents: Agent[] = [
    { id: 'sdk', name: 'SDK agent', status: 'available', command: '/bin/agent' },
    { id: 'gone', name: 'Gone agent', status: 'unavailable', command: 'gone', reason: 'gone not found on PATH' },
  ];
  threads: Thread[] = [];
  histories = new Map<string, TurnHistory[]>();
  permissions: Permission[] = [];
  calls: { method: string; args: unknown[] }[] = [];
  handlers: SubscribeHandlers | undefined;

  private log(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }

  /** Sends an event as the hub's stream would. */
  push(e: HubEvent) {
    this.handlers?.onEvent(e);
  }

  async listAgents() {
    this.log('listAgents');
    return this.agents;
  }
  async createThread(req: { agent: string; cwd: string; title?: string }) {
    this.log('createThread', req);
    const t = thread(`th_${this.threads.length + 100}`, { agent: req.agent, cwd: req.cwd, title: req.title ?? '' });
    this.threads.push(t);
    return t;
  }
  async listThreads() {
    this.log('listThreads');
    return { threads: this.threads };
  }
  async getThread(id: string) {
    const t = this.threads.find((x) => x.id === id);
    if (!t) throw new HubError('NOT_FOUND', 'no such thread');
    return t;
  }
  async renameThread(id: string, title: string) {
    return { ...(await this.getThread(id)), title };
  }
  async deleteThread(id: string) {
    this.log('deleteThread', id);
  }
  async compactThread(id: string) {
    return this.getThread(id);
  }
  async startTurn(threadId: string, input: TurnInput): Promise<Turn> {
    this.log('startTurn', threadId, input);
    return { id: 'tu_new', threadId, status: 'running', input: 'input' in input ? input.input : '', output: '', startedAt: '' };
  }
  async cancelTurn(turnId: string): Promise<Turn> {
    this.log('cancelTurn', turnId);
    return { id: turnId, threadId: 'th_1', status: 'cancelled', input: '', output: '', startedAt: '' };
  }
  async history(threadId: string) {
    this.log('history', threadId);
    return this.histories.get(threadId) ?? [];
  }
  async historyPage(threadId: string, q: HistoryQuery) {
    this.log('historyPage', threadId, q);
    const all = this.histories.get(threadId) ?? [];
    const start = q.cursor ? Number(q.cursor) : 0;
    const end = start + (q.limit && q.limit > 0 ? q.limit : 50);
    return { turns: all.slice(start, end), nextCursor: end < all.length ? String(end) : undefined };
  }
  async listPermissions(status?: string) {
    this.log('listPermissions', status);
    return this.permissions;
  }
  /** What search answers: a function of the query (a HubError thrown is the hub's 400). */
  searchResult: (q: SearchQuery) => SearchPage = () => ({ hits: [], indexing: false });
  async search(q: SearchQuery) {
    this.log('search', q);
    return this.searchResult(q);
  }
  /** Set to answer a decision with remember as shadowed by this config rule. */
  shadowedBy: string | undefined;
  rules: RememberedRule[] = [];
  async decidePermission(id: string, d: Decision): Promise<DecisionResult> {
    this.log('decidePermission', id, d);
    const p = this.permissions.find((x) => x.id === id) ?? permission(id);
    const declined = ('outcome' in d && d.outcome === 'declined') || ('optionId' in d && d.optionId.startsWith('reject'));
    const decided: Permission = {
      ...p,
      status: declined ? 'declined' : 'approved',
      decidedBy: 'browser',
      ...('optionId' in d ? { optionId: d.optionId } : {}),
    };
    this.permissions = this.permissions.map((x) => (x.id === id ? decided : x));
    if (!d.remember) return { permission: decided };
    const rule: RememberedRule = {
      id: `ru_${this.rules.length + 1}`,
      scope: d.remember,
      ...(d.remember === 'thread' ? { threadId: p.threadId } : {}),
      agent: p.agent ?? 'sdk',
      kind: p.toolCall.kind ?? '',
      command: typeof (p.toolCall.rawInput as { command?: unknown })?.command === 'string' ? (p.toolCall.rawInput as { command: string }).command : undefined,
      decision: declined ? 'deny' : 'allow',
      title: p.toolCall.title,
      createdAt: '2026-11-21T07:00:00Z',
      createdBy: 'browser',
      permissionId: id,
    };
    this.rules.push(rule);
    return { permission: decided, rule, ...(this.shadowedBy ? { shadowedBy: this.shadowedBy } : {}) };
  }
  /** Ids the batch answers as already decided. */
  conflicts = new Set<string>();
  async decidePermissions(b: BatchDecision) {
    this.log('decidePermissions', structuredClone(b));
    const results: BatchItem[] = b.ids.map((id) => {
      const p = this.permissions.find((x) => x.id === id);
      if (!p) return { id, error: { code: 'NOT_FOUND', message: 'no such permission' } };
      if (this.conflicts.has(id) || p.status !== 'pending') return { id, error: { code: 'CONFLICT', message: 'already decided' } };
      const decided: Permission = { ...p, status: b.outcome, decidedBy: 'browser' };
      this.permissions = this.permissions.map((x) => (x.id === id ? decided : x));
      return { id, permission: decided };
    });
    return { results };
  }
  /** The audit's rows, newest first; pages of q.limit with the index as cursor. */
  audit: Permission[] = [];
  async queryPermissions(q: PermissionQuery) {
    this.log('queryPermissions', structuredClone(q));
    const rows = this.audit.filter(
      (p) =>
        (!q.status || p.status === q.status) &&
        (!q.decidedBy || (p.decidedBy ?? '').startsWith(q.decidedBy)) &&
        (!q.agent || p.agent === q.agent),
    );
    const start = q.cursor ? Number(q.cursor) : 0;
    const end = start + (q.limit || 500);
    return { permissions: rows.slice(start, end), nextCursor: end < rows.length ? String(end) : undefined };
  }
  async listRules() {
    this.log('listRules');
    return structuredClone(this.rules);
  }
  async deleteRule(id: string) {
    this.log('deleteRule', id);
    if (!this.rules.some((r) => r.id === id)) throw new HubError('NOT_FOUND', 'no such rule');
    this.rules = this.rules.filter((r) => r.id !== id);
  }
  // Hosts (docs/API.md "Hosts"), kept here as the hub would.
  /** Each host's own hub (another fake), reached while the host is listed as connected. */
  hostHubs: Record<string, FakeTransport> = {};
  /** A host's policy routes (/v1/hosts/{name}/…): its hub's, or 502 HOST_UNREACHABLE while it is not connected. */
  hostPolicy(name: string): HubPolicy {
    const hub = () => {
      const h = this.hostList.find((x) => x.name === name);
      if (!h) throw new HubError('NOT_FOUND', `host "${name}" not found`, { status: 404 });
      const there = this.hostHubs[name];
      if (h.state !== 'connected' || !there) {
        throw new HubError('UPSTREAM_UNAVAILABLE', `host ${name} is not connected: its hub cannot be reached now`, {
          status: 502,
          details: { reason: 'HOST_UNREACHABLE', host: name },
        });
      }
      this.log('hostPolicy', name);
      return there;
    };
    return {
      listAgents: async () => hub().listAgents(),
      getSettings: async () => hub().getSettings(),
      updateSettings: async (p) => hub().updateSettings(p),
      listRules: async () => hub().listRules(),
      deleteRule: async (id) => hub().deleteRule(id),
      getUsage: async (q) => hub().getUsage(q),
      overrideBudget: async (budget, threadId) => hub().overrideBudget(budget, threadId),
    };
  }
  hostList: Host[] = [{ name: 'local', ssh: '', state: 'connected', since: '2026-01-01T10:00:00Z', version: '1.0.0' }];
  async listHosts() {
    this.log('listHosts');
    return structuredClone(this.hostList);
  }
  async addHost(name: string, ssh: string) {
    this.log('addHost', name, ssh);
    if (ssh.startsWith('-')) throw new HubError('INVALID_ARGUMENT', `ssh: "${ssh}" starts with -`, { status: 400 });
    if (this.hostList.some((h) => h.name === name)) throw new HubError('CONFLICT', `host "${name}" is already listed`, { status: 409 });
    const h: Host = { name, ssh, state: 'connecting', since: '2026-01-01T10:05:00Z', version: '' };
    this.hostList.push(h);
    return structuredClone(h);
  }
  async removeHost(name: string) {
    this.log('removeHost', name);
    this.hostList = this.hostList.filter((h) => h.name !== name);
  }
  async connectHost(name: string, trustKey?: string) {
    this.log('connectHost', name, trustKey);
    const h = this.hostList.find((x) => x.name === name);
    if (!h) throw new HubError('NOT_FOUND', `host "${name}" not found`, { status: 404 });
    Object.assign(h, { state: 'connecting', error: undefined, fingerprint: undefined });
    return structuredClone(h);
  }
  /** Set to make setMode / setConfigOption fail. */
  setError: HubError | undefined;
  /** What openSession gives a thread that has no modes yet (undefined: nothing). */
  sessionModes: Thread['modes'];
  async openSession(threadId: string) {
    this.log('openSession', threadId);
    const t = await this.getThread(threadId);
    if (t.modes || !this.sessionModes) return t;
    const nt: Thread = { ...t, modes: this.sessionModes };
    this.threads = this.threads.map((x) => (x.id === threadId ? nt : x));
    return nt;
  }
  async setMode(threadId: string, modeId: string) {
    this.log('setMode', threadId, modeId);
    if (this.setError) throw this.setError;
    const t = await this.getThread(threadId);
    const nt: Thread = { ...t, modes: { currentModeId: modeId, availableModes: t.modes?.availableModes ?? [] } };
    this.threads = this.threads.map((x) => (x.id === threadId ? nt : x));
    return nt;
  }
  async setConfigOption(threadId: string, configId: string, value: string) {
    this.log('setConfigOption', threadId, configId, value);
    if (this.setError) throw this.setError;
    const t = await this.getThread(threadId);
    const nt: Thread = {
      ...t,
      configOptions: (t.configOptions ?? []).map((o) => (o.id === configId ? { ...o, currentValue: o.type === 'boolean' ? value === 'true' : value } : o)),
    };
    this.threads = this.threads.map((x) => (x.id === threadId ? nt : x));
    return nt;
  }
  navigate: ((n: Navigate) => void) | undefined;
  onNavigate(cb: (n: Navigate) => void) {
    this.navigate = cb;
    return () => (this.navigate = undefined);
  }
  settings: Settings = {
    configFile: '/home/me/.config/switchboard/config.yaml',
    permissions: { timeout: '10m' },
    notifications: { enabled: true, turnCompleted: true },
    tray: { autostart: false },
    redaction: { enabled: true },
    ui: { theme: 'system' },
    agents: [],
  };
  /** Set to make updateSettings fail (once). */
  settingsError: HubError | undefined;
  /** Set to hold updateSettings until it is called. */
  settingsGate: Promise<void> | undefined;
  node: NodeStatus | undefined = { path: '/usr/bin/node', version: '22.1.0', major: 22, required: 22, ok: true };
  /** Set to make the next install call fail. */
  installError: HubError | undefined;
  async installAgent(id: string, version?: string) {
    this.log('installAgent', id, version);
    const err = this.installError;
    this.installError = undefined;
    if (err) throw err;
  }
  async removeAgent(id: string) {
    this.log('removeAgent', id);
    this.agents = this.agents.map((a) => (a.id === id ? { ...a, installed: undefined, status: 'unavailable' } : a));
  }
  async installNode() {
    this.log('installNode');
  }
  async nodeStatus() {
    this.log('nodeStatus');
    return this.node;
  }
  /** What signInAgent answers; authFrames receives a watched session's frames. */
  signInResult: { authSessionId?: string } = {};
  authFrames: ((f: { output?: string; exit?: number }) => void) | undefined;
  /** Set to make every signInAgent call fail. */
  signInError: HubError | undefined;
  async signInAgent(agentId: string, methodId: string) {
    this.log('signInAgent', agentId, methodId);
    if (this.signInError) throw this.signInError;
    return this.signInResult;
  }
  /** Set to make every signOutAgent call fail. */
  signOutError: HubError | undefined;
  async signOutAgent(agentId: string) {
    this.log('signOutAgent', agentId);
    if (this.signOutError) throw this.signOutError;
  }
  watchAuth(id: string, onFrame: (f: { output?: string; exit?: number }) => void) {
    this.log('watchAuth', id);
    this.authFrames = onFrame;
    return () => (this.authFrames = undefined);
  }
  async authInput(id: string, data: string) {
    this.log('authInput', id, data);
  }
  async authResize(id: string, cols: number, rows: number) {
    this.log('authResize', id, cols, rows);
  }
  async closeAuth(id: string) {
    this.log('closeAuth', id);
  }
  /** What getUsage answers, by grouping. */
  usage: Partial<Record<UsageBy, UsageReport>> = {};
  /** The getUsage queries, apart from calls (the thread's cost line reads it after every turn). */
  usageQueries: UsageQuery[] = [];
  async getUsage(q: UsageQuery) {
    this.usageQueries.push(structuredClone(q));
    return structuredClone(this.usage[q.by] ?? { buckets: [], agentsWithoutCost: [] });
  }
  async overrideBudget(budget: string, threadId?: string) {
    this.log('overrideBudget', { budget, threadId });
    return {};
  }
  async getSettings() {
    this.log('getSettings');
    return structuredClone(this.settings);
  }
  async updateSettings(patch: SettingsPatch) {
    this.log('updateSettings', structuredClone(patch));
    if (this.settingsGate) await this.settingsGate;
    const err = this.settingsError;
    this.settingsError = undefined;
    if (err) throw err;
    const s = structuredClone(this.settings);
    if (patch.permissions?.timeout !== undefined) s.permissions.timeout = patch.permissions.timeout;
    if (patch.permissions?.escalateAfter !== undefined) s.permissions.escalateAfter = patch.permissions.escalateAfter || undefined;
    if (patch.permissions?.rules !== undefined) s.permissions.rules = structuredClone(patch.permissions.rules);
    if (patch.notifications) s.notifications = { ...s.notifications, ...patch.notifications };
    if (patch.ui?.theme) s.ui.theme = patch.ui.theme;
    if (patch.tray?.autostart !== undefined) s.tray = { autostart: patch.tray.autostart };
    if (patch.redaction?.enabled !== undefined) s.redaction = { enabled: patch.redaction.enabled };
    if (patch.budgets) s.budgets = structuredClone(patch.budgets);
    for (const [id, a] of Object.entries(patch.agents ?? {})) {
      s.agents = s.agents.filter((x) => x.id !== id);
      this.agents = this.agents.filter((x) => x.id !== id);
      if (!a) continue;
      s.agents.push({ id, name: a.name, command: a.command, args: a.args, builtin: false });
      this.agents.push({ id, name: a.name || id, status: 'available', command: [a.command, ...(a.args ?? [])].join(' ') });
    }
    this.settings = s;
    return structuredClone(s);
  }
  subscribe(after: number, h: SubscribeHandlers): Subscription {
    this.log('subscribe', after);
    this.handlers = h;
    h.onState?.('open');
    return { close: () => (this.handlers = undefined) };
  }

  // Issue 21 (archive, export, import).
  async queryThreads(archived: ArchivedFilter) {
    this.log('queryThreads', archived);
    const keep = (t: Thread) => (archived === 'all' ? true : archived === 'true' ? !!t.archived : !t.archived);
    return { threads: this.threads.filter(keep) };
  }
  async setArchived(id: string, archived: boolean) {
    this.log('setArchived', id, archived);
    const t = { ...(await this.getThread(id)), archived };
    this.threads = this.threads.map((x) => (x.id === id ? t : x));
    return t;
  }
  async archiveThreads(req: ArchiveRequest) {
    this.log('archiveThreads', req);
    return 0;
  }
  async exportThreads(req: ExportRequest) {
    this.log('exportThreads', req);
    return `export ${req.threadId ?? req.cwd} ${req.format}`;
  }
  /** Set to refuse an import without a folder as the hub refuses one whose folder the user never used. */
  importFolder?: string;
  async importThreads(jsonl: Blob, cwd?: string): Promise<ImportResult> {
    this.log('importThreads', await jsonl.text(), cwd);
    if (this.importFolder && !cwd) {
      throw new HubError('INVALID_ARGUMENT', `import line 1: the file's folder is not one you chose`, {
        status: 400,
        details: { reason: 'IMPORT_FOLDER', line: 1, cwd: this.importFolder },
      });
    }
    return { threads: [], turns: 0, events: 0 };
  }
}
