// Agent data made safe to read. The hub forwards what an agent sends (a
// tool call, the tool call of a permission request) as raw JSON, and keeps
// it: a tool call whose status is a number, or whose content or locations
// are not arrays, would throw in every view that reads it — on every
// reload, since it is stored. Events enter the conversation projection
// (Conversation.add, loadHistory) and permissions the store
// (HubStore.upsertPermission) through these functions only, so the views
// may trust the shapes types.ts declares.
import type { EnvVar, HubEvent, Permission, PermissionKind, PermissionOption, PermissionRequest, PlanEntry, ToolCall, ToolCallContent } from './types';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** A string, or a number or boolean written as one; anything else undefined. */
function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function content(v: unknown): ToolCallContent | undefined {
  const c = obj(v);
  if (!c) return undefined;
  const type = str(c.type) ?? '';
  switch (type) {
    case 'diff':
      return {
        type,
        path: str(c.path) ?? '',
        oldText: typeof c.oldText === 'string' ? c.oldText : null,
        newText: typeof c.newText === 'string' ? c.newText : '',
      };
    case 'terminal':
      return { type, terminalId: str(c.terminalId) ?? '' };
    case 'content': {
      const inner = obj(c.content) ?? {};
      return { type, content: { ...inner, type: str(inner.type) ?? '' } };
    }
    default:
      return { type };
  }
}

/**
 * A tool call (or an update to one) with the fields the UI reads in the
 * shapes it expects: toolCallId, title, kind and status strings (a number
 * or boolean becomes its text, anything else is left out, as a field the
 * update did not carry); content and locations arrays of objects (else
 * left out; items that are not objects dropped); rawInput and rawOutput as
 * sent. undefined when v is not an object with a toolCallId.
 */
export function normalizeToolCall(v: unknown): ToolCall | undefined {
  const o = obj(v);
  const id = o && str(o.toolCallId);
  if (!o || id === undefined) return undefined;
  const tc: ToolCall = { toolCallId: id };
  for (const k of ['title', 'name', 'kind', 'status'] as const) {
    const s = str(o[k]);
    if (s !== undefined) tc[k] = s;
  }
  if (Array.isArray(o.content)) tc.content = o.content.map(content).filter((c) => c !== undefined);
  if (Array.isArray(o.locations)) {
    tc.locations = o.locations.flatMap((l) => {
      const p = obj(l);
      const path = p && str(p.path);
      if (!p || path === undefined) return [];
      return [{ path, line: typeof p.line === 'number' && Number.isFinite(p.line) ? p.line : null }];
    });
  }
  if ('rawInput' in o) tc.rawInput = o.rawInput;
  if ('rawOutput' in o) tc.rawOutput = o.rawOutput;
  return tc;
}

const statuses = new Set(['pending', 'approved', 'declined', 'cancelled', 'expired']);

/** The strings of v when it is an array (other items dropped), else undefined. */
function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/**
 * The hub's description of a permission (Permission.request) in the shapes
 * permissionView reads: string fields, string arrays, env entries with a
 * string name (a value only when a string, hidden only when true).
 * undefined when v is not an object.
 */
export function normalizeRequest(v: unknown): PermissionRequest | undefined {
  const o = obj(v);
  if (!o) return undefined;
  const r: PermissionRequest = {};
  for (const k of ['kind', 'title', 'command', 'cwd'] as const) {
    if (typeof o[k] === 'string') r[k] = o[k];
  }
  for (const k of ['argv', 'paths', 'flags'] as const) {
    const a = strings(o[k]);
    if (a) r[k] = a;
  }
  if (Array.isArray(o.env)) {
    r.env = o.env.flatMap((x): EnvVar[] => {
      const e = obj(x);
      if (!e || typeof e.name !== 'string') return [];
      const out: EnvVar = { name: e.name };
      if (typeof e.value === 'string') out.value = e.value;
      if (e.hidden === true) out.hidden = true;
      return [out];
    });
  }
  const sub = obj(o.subagent);
  if (sub && typeof sub.sessionId === 'string') {
    r.subagent = { sessionId: sub.sessionId, ...(typeof sub.title === 'string' && sub.title ? { title: sub.title } : {}) };
  }
  return r;
}

/**
 * A permission with its tool call normalised (normalizeToolCall, or an
 * empty one), its request too (normalizeRequest; left out when not an
 * object), its options an array of string-fielded options, and its other
 * fields strings. undefined without an id.
 */
export function normalizePermission(v: unknown): Permission | undefined {
  const p = obj(v);
  const id = p && str(p.id);
  if (!p || !id) return undefined;
  const options: PermissionOption[] = Array.isArray(p.options)
    ? p.options.flatMap((x) => {
        const o = obj(x);
        return o ? [{ optionId: str(o.optionId) ?? '', name: str(o.name) ?? '', kind: str(o.kind) ?? '' }] : [];
      })
    : [];
  const status = str(p.status) ?? '';
  const out: Permission = {
    id,
    threadId: str(p.threadId) ?? '',
    turnId: str(p.turnId) ?? '',
    status: (statuses.has(status) ? status : 'pending') as Permission['status'],
    toolCall: normalizeToolCall(p.toolCall) ?? { toolCallId: '' },
    options,
    deadline: str(p.deadline) ?? '',
  };
  for (const k of ['decidedBy', 'optionId', 'decidedAt', 'createdAt', 'agent', 'escalatedAt', 'host'] as const) {
    const s = str(p[k]);
    if (s !== undefined) out[k] = s;
  }
  if (typeof p.kind === 'string') out.kind = p.kind as PermissionKind;
  const request = normalizeRequest(p.request);
  if (request) out.request = request;
  return out;
}

/**
 * The event with the agent's parts the conversation reads normalised: a
 * tool call (dropped when it has no toolCallId), a permission, plan entries
 * (objects with string content and status). Other fields are as sent; the
 * projection reads them with typeof checks.
 */
export function normalizeEvent(e: HubEvent): HubEvent {
  switch (e.type) {
    case 'tool_call':
    case 'tool_call_update':
      return { ...e, toolCall: normalizeToolCall(e.toolCall) };
    case 'permission_required':
    case 'permission_resolved':
    case 'permission_escalated':
      return { ...e, permission: normalizePermission(e.permission) };
    case 'plan':
      return { ...e, entries: planEntries(e.entries) };
    case 'plan_update': {
      const p = obj(e.plan);
      return p ? { ...e, plan: { ...p, entries: planEntries(p.entries) } } : e;
    }
  }
  return e;
}

/** A plan's entries made safe to show: objects only, strings for each field. */
function planEntries(v: unknown): PlanEntry[] {
  return Array.isArray(v)
    ? v.flatMap((x) => {
        const o = obj(x);
        return o ? [{ content: str(o.content) ?? '', priority: str(o.priority) ?? '', status: str(o.status) ?? 'pending' }] : [];
      })
    : [];
}
