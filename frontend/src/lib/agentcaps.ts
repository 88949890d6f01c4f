// What an agent can do, in words, from its last initialize answer
// (Agent.capabilities, the agentCapabilities object as sent, and
// Agent.authMethods): the capability card of Settings → Agents and of the
// New thread dialog (AgentCaps.svelte). One list serves both; the card
// decides how much of it to show.
import type { Agent } from './types';

/** One capability: a short label, and a sentence for its tooltip. */
export interface AgentCap {
  id: string;
  label: string;
  /** A sentence saying what it means for the user, on or off. */
  title: string;
  on: boolean;
  /** Advertised from the unstable part of ACP (the schema's unstable file). */
  unstable?: boolean;
  /** The compact card (New thread) shows it. */
  compact?: boolean;
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

/** An optional capability object is advertised when present and not null (ACP); a flag when true. */
function has(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false;
}

/** The stable keys of each capability object (acp/schema/v1/schema.json); others are the unstable ones. */
const stable: Record<string, string[]> = {
  agent: ['loadSession', 'promptCapabilities', 'mcpCapabilities', 'sessionCapabilities', 'auth', '_meta'],
  session: ['list', 'delete', 'additionalDirectories', 'resume', 'close', '_meta'],
  mcp: ['http', 'sse', '_meta'],
  auth: ['logout', '_meta'],
};

/** What the unstable keys mean, where Switchboard knows. */
const unstableWords: Record<string, string> = {
  providers: 'model providers',
  systemPrompt: 'a system prompt from the client',
  fork: 'forking a session',
  archive: 'archiving sessions',
  status: 'session status',
  title: 'session titles',
  acp: 'MCP over ACP',
};

/** Whether the agent advertised a sign-out (agentCapabilities.auth.logout): Settings offers Sign out. */
export function canSignOut(agent: Pick<Agent, 'capabilities'>): boolean {
  return has(obj(obj(agent.capabilities).auth).logout);
}

/**
 * The agent's capabilities in words, or undefined when the hub has not
 * heard its initialize yet (not started nor probed since the hub started).
 */
export function agentCaps(agent: Pick<Agent, 'name' | 'capabilities' | 'authMethods'>): AgentCap[] | undefined {
  if (!agent.capabilities) return undefined;
  const c = obj(agent.capabilities);
  const prompt = obj(c.promptCapabilities);
  const sess = obj(c.sessionCapabilities);
  const mcp = obj(c.mcpCapabilities);
  const auth = obj(c.auth);
  const n = agent.name;
  const cap = (id: string, label: string, on: boolean, yes: string, no: string, compact = false): AgentCap => ({
    id,
    label,
    on,
    title: on ? yes : no,
    compact,
  });
  const methods = (agent.authMethods ?? [])
    .map((m) => obj(m))
    .filter((m) => typeof m.id === 'string')
    .map((m) => String(m.name || m.id));
  const out: AgentCap[] = [
    cap('image', 'Images', !!prompt.image, `${n} takes images in a message.`, `${n} takes no images.`, true),
    cap('audio', 'Audio', !!prompt.audio, `${n} takes audio in a message.`, `${n} takes no audio.`, true),
    cap('embeddedContext', 'File contents', !!prompt.embeddedContext, `${n} takes a file's contents inside a message.`, `${n} takes links to files, not their contents.`),
    cap('loadSession', 'Reopens sessions', !!c.loadSession, `${n} reopens a session with its history (session/load).`, `${n} cannot reopen a session with its history.`, true),
    cap('list', 'Lists sessions', has(sess.list), `${n} lists its sessions, so you can import them.`, `${n} does not list its sessions.`, true),
    cap('resume', 'Resumes sessions', has(sess.resume), `${n} resumes a session without replaying it (session/resume).`, `${n} does not resume sessions.`),
    cap('close', 'Closes sessions', has(sess.close), `${n} frees a session Switchboard closes (session/close).`, `${n} keeps sessions until it stops.`),
    cap('delete', 'Deletes sessions', has(sess.delete), `${n} deletes its session when you delete the thread.`, `${n} keeps its session when you delete the thread.`),
    cap('additionalDirectories', 'Extra folders', has(sess.additionalDirectories), `${n} can be given folders beyond the thread's own.`, `${n} works in the thread's folder only.`),
    cap('mcpHttp', 'MCP over HTTP', !!mcp.http, `${n} connects to MCP servers over HTTP.`, `${n} skips MCP servers over HTTP.`, true),
    cap('mcpSse', 'MCP over SSE', !!mcp.sse, `${n} connects to MCP servers over SSE.`, `${n} skips MCP servers over SSE.`),
    cap(
      'signIn',
      methods.length ? `Sign-in: ${methods.join(', ')}` : 'No sign-in',
      methods.length > 0,
      `${n} signs in with: ${methods.join(', ')}.`,
      `${n} asks for no sign-in.`,
      true,
    ),
    cap('logout', 'Sign-out', has(auth.logout), `${n} can be signed out from Switchboard.`, `${n} is signed out with its own command only.`),
  ];
  const extra: [Obj, string[]][] = [
    [c, stable.agent],
    [sess, stable.session],
    [mcp, stable.mcp],
    [auth, stable.auth],
  ];
  for (const [o, known] of extra) {
    for (const [k, v] of Object.entries(o)) {
      if (known.includes(k) || !has(v)) continue;
      const what = unstableWords[k] ?? k;
      out.push({ id: `unstable-${k}`, label: what[0].toUpperCase() + what.slice(1), on: true, unstable: true, title: `${n} offers ${what} (unstable ACP: it may change).` });
    }
  }
  return out;
}

/**
 * Whether the agent takes a client system prompt (issue 32, ADR 0050:
 * agentCapabilities.sessionCapabilities.systemPrompt, unstable): 'override'
 * when it takes both modes, 'append' when only that one, 'none' when it
 * advertises neither, undefined when its initialize is not known yet.
 */
export function systemPromptSupport(agent: Pick<Agent, 'capabilities'>): 'override' | 'append' | 'none' | undefined {
  if (!agent.capabilities) return undefined;
  const sp = obj(obj(agent.capabilities).sessionCapabilities).systemPrompt;
  if (!has(sp)) return 'none';
  return has(obj(obj(sp).mode).override) ? 'override' : 'append';
}
