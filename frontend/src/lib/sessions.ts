import type { WailsBindings } from './bindings';
import type { Thread } from './types';

// The agent's own sessions (issue 16): listed a page at a time with the
// agent's cursor, and imported into a thread bound to one.

/** One session an agent lists (GET /v1/agents/{id}/sessions). Its text comes from the agent: show it as text. */
export interface AgentSession {
  sessionId: string;
  cwd: string;
  title: string;
  updatedAt?: string;
  /** The caller's thread bound to this session already. */
  threadId?: string;
}

export interface AgentSessionPage {
  sessions: AgentSession[];
  /** The agent's cursor of the next page; absent on the last. */
  nextCursor?: string;
}

export interface ImportSessionRequest {
  agent: string;
  sessionId: string;
  cwd: string;
  title?: string;
}

export interface ImportSessionResult {
  thread: Thread;
  /** false: the session was a thread already (HTTP 200), which is returned. */
  created: boolean;
}

/** The calls, the same in the window (bindings) and a browser (HTTP). */
export interface SessionsApi {
  list(agent: string, cwd: string, cursor?: string): Promise<AgentSessionPage>;
  importSession(req: ImportSessionRequest): Promise<ImportSessionResult>;
}

type Request = <T>(method: string, url: string, body?: unknown, status?: { code: number }) => Promise<T>;
type Url = (path: string, params?: Record<string, string | number | boolean | undefined>) => string;

/** SessionsApi over HTTP (HttpTransport's request and url); status receives the answer's status code. */
export function httpSessions(request: Request, url: Url): SessionsApi {
  return {
    list: async (agent, cwd, cursor) => {
      const p = await request<AgentSessionPage>(
        'GET',
        url(`/v1/agents/${encodeURIComponent(agent)}/sessions`, { cwd, cursor: cursor || undefined }),
      );
      return { ...p, sessions: p.sessions ?? [] };
    },
    importSession: async (req) => {
      const status = { code: 0 };
      const r = await request<{ thread: Thread }>('POST', url('/v1/threads/import-session'), req, status);
      return { thread: r.thread, created: status.code === 201 };
    },
  };
}

/** The bindings SessionsApi calls in the window (app/bindings_sessions.go), as generated. */
export type SessionsBindings = Pick<WailsBindings, 'ListAgentSessions' | 'ImportSession'>;

/** SessionsApi over the window's bindings; call maps a rejection to a HubError. */
export function wailsSessions(b: SessionsBindings, call: <T>(f: () => Promise<unknown>) => Promise<T>): SessionsApi {
  return {
    list: async (agent, cwd, cursor) => {
      const p = await call<AgentSessionPage>(() => b.ListAgentSessions(agent, cwd, cursor ?? ''));
      return { ...p, sessions: p?.sessions ?? [] };
    },
    importSession: (req) => call<ImportSessionResult>(() => b.ImportSession(req)),
  };
}
