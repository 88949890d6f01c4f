// One thread's conversation, projected from its events: the turns, and in
// each its messages, thoughts, tool calls, plan, permissions, errors, usage
// and terminal output. Events apply in seq order; a seq seen twice is
// ignored, and one older than the newest rebuilds the turns. HubStore
// (hubstore.svelte.ts) keeps one per thread and feeds it.
import { normalizeEvent } from './shapes';
import type { TerminalView } from './toolcall';
import type {
  AvailableCommand,
  HubEvent,
  Permission,
  PlanEntry,
  ToolCall,
  TurnHistory,
  TerminalExitStatus,
  TurnStatus,
  Usage,
} from './types';

/** seq is the item's first event's (a search hit names it). */
export type Item = { seq?: number } & (
  | { kind: 'message'; key: number; text: string }
  | { kind: 'thought'; key: number; text: string }
  | { kind: 'tool'; key: number; toolCall: ToolCall }
  /** planId: one of several plans (unstable ACP plan_update); markdown/uri for a plan that is not a list. */
  | { kind: 'plan'; key: number; entries: PlanEntry[]; planId?: string; markdown?: string; uri?: string }
  | { kind: 'permission'; key: number; permissionId: string }
  /** reason AUTH_REQUIRED: agent (its id) needs signing in; the turn is retried once that succeeds. */
  | { kind: 'error'; key: number; code: string; message: string; reason?: string; agent?: string; limitedUntil?: string }
  | { kind: 'session'; key: number; change: SessionChange }
  /** ACP notice: for the user, not part of the conversation. */
  | { kind: 'notice'; key: number; severity: string; title: string; description?: string }
  /** The agent compacted its context (ACP compaction_update + summary chunks). */
  | { kind: 'compaction'; key: number; compactionId: string; status: string; summary: string; error?: string }
  /** A child session of the agent's (ACP subagent_update). */
  /** stream: the child's own messages and tool calls (subagent_output). */
  | { kind: 'subagent'; key: number; sessionId: string; title?: string; description?: string; state?: string; stream: SubagentStream }
);

/** What a sub-agent said and did, in its card: its text, and its tool calls by id in order. */
export interface SubagentStream {
  text: string;
  tools: { toolCallId: string; title: string; status: string }[];
}

/** A session_changed event: the thread's agent session is another one. */
export interface SessionChange {
  reason: string;
  how: string;
  restored: string[];
  unrestored: { kind: string; id?: string; wanted: string; current: string; message: string }[];
  /** The turn that opened the session was not sent. */
  refused: boolean;
}

/** The session_changed payload of e, made safe to show. */
export function sessionChange(e: HubEvent): SessionChange {
  const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const un = Array.isArray(e.unrestored) ? (e.unrestored as Record<string, unknown>[]) : [];
  return {
    reason: String(e.reason ?? ''),
    how: String(e.how ?? ''),
    restored: strs(e.restored),
    unrestored: un
      .filter((u) => u && typeof u === 'object')
      .map((u) => ({
        kind: String(u.kind ?? ''),
        id: typeof u.id === 'string' ? u.id : undefined,
        wanted: String(u.wanted ?? ''),
        current: String(u.current ?? ''),
        message: String(u.message ?? ''),
      })),
    refused: e.refused === true,
  };
}

export interface TurnView {
  id: string;
  input: string;
  status: TurnStatus;
  stopReason?: string;
  error?: string;
  items: Item[];
  /** The latest `usage` the agent reported during this turn. */
  usage?: Usage;
  /** What was attached to the prompt (its non-text content blocks), by name. */
  attachments?: string[];
  /** Output of the terminals the hub hosts (terminal_output events), by terminal id. */
  terminals?: Record<string, TerminalView>;
  /** The failed turn this one runs again after a sign-in (turn_started retryOf). */
  retryOf?: string;
}

type TurnMeta = Pick<TurnHistory, 'id' | 'input' | 'status' | 'stopReason' | 'error' | 'content'>;

/** A short name for each non-text ACP content block of a prompt. */
export function attachmentNames(content: unknown[] | undefined): string[] {
  const out: string[] = [];
  for (const b of content ?? []) {
    if (!b || typeof b !== 'object') continue;
    const o = b as { type?: string; name?: string; uri?: string; resource?: { uri?: string } };
    if (o.type === 'text') continue;
    const uri = o.uri ?? o.resource?.uri ?? '';
    out.push(o.name || decodeURIComponent(uri.replace(/^.*[/:]/, '')) || o.type || 'attachment');
  }
  return out;
}

/**
 * One thread's conversation: its events, sorted by seq, and the turns they
 * make. An event that extends the newest costs O(1): turns and tool calls
 * are found through indexes, never by scanning.
 */
export class Conversation {
  turns = $state<TurnView[]>([]);
  loaded = $state(false);
  loading = $state(false);
  /**
   * The agent's slash commands, from its latest `available_commands`. These
   * often come outside any turn (turnId ""), right after the session opens.
   */
  commands = $state<AvailableCommand[]>([]);
  /** The latest `usage` that says how full the context window is (size/used). */
  usage = $state<Usage | undefined>();
  /** The agent compacts its context itself (it sent a compaction): Switchboard's own is not offered. */
  agentCompacts = $state(false);
  private events: HubEvent[] = [];
  private seqs = new Set<number>();
  private meta = new Map<string, TurnMeta>();
  private key = 0;
  /** Tool call and plan items by turn id + "\0" + toolCallId (or "plan"). */
  private index = new Map<string, Item>();
  /** The turns by id (the $state proxies, so changes through it show). */
  private byId = new Map<string, TurnView>();
  /** The hub's own turns (turn_started internal: true): not shown. */
  private hidden = new Set<string>();
  /**
   * The agent's message (and thought) id the next deltas of a turn belong
   * to (message_started), by turn id + "\0" + kind; deltas of an id join
   * that id's item, however far back it is.
   */
  private messageIds = new Map<string, string>();

  /** The highest seq applied. */
  get lastSeq(): number {
    return this.events.length ? this.events[this.events.length - 1].seq : -1;
  }

  /** The turn still running, if any. */
  get runningTurn(): TurnView | undefined {
    for (let i = this.turns.length - 1; i >= 0; i--) if (this.turns[i].status === 'running') return this.turns[i];
    return undefined;
  }

  /**
   * Applies e; false when its seq was seen before. An event older than the
   * newest applied one is put in its place and the turns are rebuilt. The
   * agent's parts of e are normalised first (shapes.ts), here and in
   * loadHistory: the one way events enter the projection.
   */
  add(raw: HubEvent): boolean {
    if (this.seqs.has(raw.seq)) return false;
    const e = normalizeEvent(raw);
    this.seqs.add(e.seq);
    if (e.seq > this.lastSeq) {
      this.events.push(e);
      this.project(e);
      return true;
    }
    let i = this.events.length;
    while (i > 0 && this.events[i - 1].seq > e.seq) i--;
    this.events.splice(i, 0, e);
    this.rebuild();
    return true;
  }

  /** Merges a history answer (turns oldest first, each with its events). */
  loadHistory(turns: TurnHistory[]): void {
    let outOfOrder = false;
    for (const t of turns) {
      this.meta.set(t.id, { id: t.id, input: t.input, status: t.status, stopReason: t.stopReason, error: t.error, content: t.content });
      for (const raw of t.events ?? []) {
        if (this.seqs.has(raw.seq)) continue;
        const e = normalizeEvent(raw);
        this.seqs.add(e.seq);
        this.events.push(e);
        outOfOrder = true;
      }
    }
    if (outOfOrder) this.events.sort((a, b) => a.seq - b.seq);
    this.rebuild();
    this.loaded = true;
  }

  private rebuild(): void {
    this.index.clear();
    this.hidden.clear();
    this.messageIds.clear();
    this.commands = [];
    this.usage = undefined;
    this.agentCompacts = false;
    const turns: TurnView[] = [];
    // Turns from history that have no events (yet) still show.
    for (const m of this.meta.values()) turns.push(this.newTurn(m.id, m));
    this.turns = turns;
    this.byId.clear();
    for (const t of this.turns) this.byId.set(t.id, t);
    for (const e of this.events) this.project(e);
  }

  private newTurn(id: string, m?: TurnMeta): TurnView {
    return {
      id,
      input: m?.input ?? '',
      status: m?.status ?? 'running',
      stopReason: m?.stopReason,
      error: m?.error,
      items: [],
      attachments: m?.content ? attachmentNames(m.content) : undefined,
    };
  }

  private turn(id: string): TurnView {
    const have = this.byId.get(id);
    if (have) return have;
    this.turns.push(this.newTurn(id, this.meta.get(id)));
    const t = this.turns[this.turns.length - 1];
    this.byId.set(id, t);
    return t;
  }

  /** The card of a turn's sub-agent session, made (empty) when it is the first event of it. */
  private subagentCard(turnId: string, sessionId: string, seq: number, items: Item[]): Item {
    const key = `${turnId}\0subagent:${sessionId}`;
    const found = this.index.get(key);
    if (found) return found;
    items.push({ kind: 'subagent', key: this.key++, seq, sessionId, stream: { text: '', tools: [] } });
    const made = items[items.length - 1];
    this.index.set(key, made);
    return made;
  }

  private project(e: HubEvent): void {
    // Events are projected in seq order: the last of these wins.
    if (e.type === 'available_commands') {
      if (Array.isArray(e.commands)) this.commands = (e.commands as AvailableCommand[]).filter((c) => typeof c?.name === 'string');
      return;
    }
    const usage = e.type === 'usage' && e.usage && typeof e.usage === 'object' ? (e.usage as Usage) : undefined;
    if (usage && (typeof usage.size === 'number' || typeof usage.used === 'number')) this.usage = usage;
    if (e.type === 'compaction') this.agentCompacts = true;
    if (!e.turnId) return;
    if (e.type === 'turn_started' && e.internal === true && !this.meta.has(e.turnId)) this.hidden.add(e.turnId);
    if (this.hidden.has(e.turnId)) return;
    const t = this.turn(e.turnId);
    const items = t.items;
    const last = items[items.length - 1];
    switch (e.type) {
      case 'turn_started':
        if (typeof e.input === 'string') t.input = e.input;
        if (typeof e.retryOf === 'string') t.retryOf = e.retryOf;
        if (!this.meta.get(t.id) || this.meta.get(t.id)?.status === 'running') t.status = 'running';
        break;
      case 'message_delta':
      case 'thought_delta': {
        const kind = e.type === 'message_delta' ? 'message' : 'thought';
        const text = typeof e.text === 'string' ? e.text : '';
        const mid = this.messageIds.get(`${t.id}\0${kind}`);
        if (mid !== undefined) {
          // Grouped by the agent's id, not by adjacency.
          const key = `${t.id}\0${kind}:${mid}`;
          const found = this.index.get(key);
          if (found && found.kind === kind) found.text += text;
          else {
            items.push({ kind, key: this.key++, seq: e.seq, text });
            this.index.set(key, items[items.length - 1]);
          }
        } else if (last && last.kind === kind) last.text += text;
        else items.push({ kind, key: this.key++, seq: e.seq, text });
        break;
      }
      case 'message_started': {
        const kind = e.kind === 'thought' ? 'thought' : 'message';
        if (typeof e.messageId === 'string' && e.messageId) this.messageIds.set(`${t.id}\0${kind}`, e.messageId);
        break;
      }
      case 'notice': {
        const n = e.notice as { severity?: unknown; title?: unknown; description?: unknown } | undefined;
        if (!n || typeof n.title !== 'string') break;
        items.push({
          kind: 'notice',
          key: this.key++,
          seq: e.seq,
          severity: typeof n.severity === 'string' ? n.severity : 'info',
          title: n.title,
          ...(typeof n.description === 'string' && n.description ? { description: n.description } : {}),
        });
        break;
      }
      case 'compaction':
      case 'compaction_summary': {
        const c = (e.type === 'compaction' ? e.compaction : e) as { compactionId?: unknown; status?: unknown; summary?: unknown; error?: unknown; text?: unknown } | undefined;
        if (!c || typeof c.compactionId !== 'string') break;
        const key = `${t.id}\0compaction:${c.compactionId}`;
        let found = this.index.get(key);
        if (!found || found.kind !== 'compaction') {
          items.push({ kind: 'compaction', key: this.key++, seq: e.seq, compactionId: c.compactionId, status: 'in_progress', summary: '' });
          found = items[items.length - 1];
          this.index.set(key, found);
        }
        if (found.kind !== 'compaction') break;
        if (e.type === 'compaction_summary') {
          if (typeof c.text === 'string') found.summary += c.text;
          break;
        }
        if (typeof c.status === 'string') found.status = c.status;
        if (typeof c.summary === 'string' && c.summary) found.summary = c.summary;
        if (typeof c.error === 'string') found.error = c.error;
        break;
      }
      case 'plan_update': {
        const p = e.plan as { type?: unknown; planId?: unknown; entries?: unknown; content?: unknown; uri?: unknown } | undefined;
        if (!p || typeof p.planId !== 'string') break;
        const next = {
          entries: Array.isArray(p.entries) ? (p.entries as PlanEntry[]) : [],
          markdown: typeof p.content === 'string' ? p.content : undefined,
          uri: typeof p.uri === 'string' ? p.uri : undefined,
        };
        const key = `${t.id}\0plan:${p.planId}`;
        const found = this.index.get(key);
        if (found && found.kind === 'plan') Object.assign(found, next);
        else {
          items.push({ kind: 'plan', key: this.key++, seq: e.seq, planId: p.planId, ...next });
          this.index.set(key, items[items.length - 1]);
        }
        break;
      }
      case 'plan_removed': {
        if (typeof e.planId !== 'string') break;
        const key = `${t.id}\0plan:${e.planId}`;
        const found = this.index.get(key);
        if (!found) break;
        this.index.delete(key);
        const i = items.indexOf(found);
        if (i >= 0) items.splice(i, 1);
        break;
      }
      case 'subagent_output': {
        if (typeof e.sessionId !== 'string') break;
        const card = this.subagentCard(t.id, e.sessionId, e.seq, items);
        if (card.kind !== 'subagent') break;
        if ((e.kind === 'agent_message_chunk') && typeof e.text === 'string') card.stream.text += e.text;
        const tc = e.toolCall as { toolCallId?: unknown; title?: unknown; status?: unknown } | undefined;
        if (tc && typeof tc.toolCallId === 'string') {
          const have = card.stream.tools.find((x) => x.toolCallId === tc.toolCallId);
          const title = typeof tc.title === 'string' ? tc.title : undefined;
          const status = typeof tc.status === 'string' ? tc.status : undefined;
          if (have) {
            if (title) have.title = title;
            if (status) have.status = status;
          } else card.stream.tools.push({ toolCallId: tc.toolCallId, title: title ?? tc.toolCallId, status: status ?? 'pending' });
        }
        break;
      }
      case 'subagent': {
        const a = e.subagent as { sessionId?: unknown; title?: unknown; description?: unknown; state?: unknown } | undefined;
        if (!a || typeof a.sessionId !== 'string') break;
        const st = a.state as { state?: unknown } | undefined;
        const next = {
          ...(typeof a.title === 'string' ? { title: a.title } : {}),
          ...(typeof a.description === 'string' ? { description: a.description } : {}),
          ...(st && typeof st.state === 'string' ? { state: st.state } : {}),
        };
        Object.assign(this.subagentCard(t.id, a.sessionId, e.seq, items), next);
        break;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const tc = e.toolCall as ToolCall | undefined;
        if (!tc || typeof tc.toolCallId !== 'string') break;
        const id = `${t.id}\0${tc.toolCallId}`;
        const found = this.index.get(id);
        if (found && found.kind === 'tool') {
          const merged: ToolCall = { ...found.toolCall };
          for (const [k, v] of Object.entries(tc)) if (v !== undefined && v !== null) merged[k] = v;
          found.toolCall = merged;
        } else {
          items.push({ kind: 'tool', key: this.key++, seq: e.seq, toolCall: { ...tc } });
          this.index.set(id, items[items.length - 1]);
        }
        break;
      }
      case 'plan': {
        const entries = Array.isArray(e.entries) ? (e.entries as PlanEntry[]) : [];
        const found = this.index.get(`${t.id}\0plan`);
        if (found && found.kind === 'plan') found.entries = entries;
        else {
          items.push({ kind: 'plan', key: this.key++, entries });
          this.index.set(`${t.id}\0plan`, items[items.length - 1]);
        }
        break;
      }
      case 'usage': {
        if (usage) t.usage = usage;
        break;
      }
      case 'terminal_output': {
        // Chunks of one terminal, in seq order: append; the last has the exit.
        if (typeof e.terminalId !== 'string' || !e.terminalId) break;
        t.terminals ??= {};
        t.terminals[e.terminalId] ??= { text: '', dropped: false };
        const term = t.terminals[e.terminalId];
        if (typeof e.text === 'string') term.text += e.text;
        if (e.dropped === true) term.dropped = true;
        const st = e.exitStatus as Partial<TerminalExitStatus> | undefined;
        if (st && typeof st === 'object') term.exit = { exitCode: typeof st.exitCode === 'number' ? st.exitCode : null, signal: typeof st.signal === 'string' ? st.signal : null };
        break;
      }
      // A request a rule decided has only permission_resolved: it shows
      // where it happened too, saying which rule decided it.
      case 'permission_required':
      case 'permission_resolved': {
        const p = e.permission as Permission | undefined;
        if (p?.id && !items.some((it) => it.kind === 'permission' && it.permissionId === p.id)) {
          items.push({ kind: 'permission', key: this.key++, permissionId: p.id });
        }
        break;
      }
      case 'turn_completed': {
        const done = e.turn as Partial<TurnHistory> | undefined;
        t.status = done?.status ?? 'completed';
        t.stopReason = done?.stopReason;
        t.error = done?.error;
        break;
      }
      case 'session_changed': {
        const change = sessionChange(e);
        // Worth a line when something was lost, or restored.
        if (change.unrestored.length || change.restored.length) items.push({ kind: 'session', key: this.key++, change });
        break;
      }
      case 'error':
        items.push({
          kind: 'error',
          key: this.key++,
          code: String(e.code ?? 'INTERNAL'),
          message: String(e.message ?? ''),
          ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
          ...(typeof e.agent === 'string' ? { agent: e.agent } : {}),
          ...(typeof e.limitedUntil === 'string' ? { limitedUntil: e.limitedUntil } : {}),
        });
        break;
    }
  }
}
