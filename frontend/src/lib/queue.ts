import type { WailsBindings } from './bindings';
import type { QueuedPrompt, QueueEdit, Thread, Turn, TurnInput } from './types';

/**
 * A thread's queue of prompts (issue 33, docs/API.md "Queued prompts"):
 * prompts typed while a turn runs, sent one by one as turns end.
 */
export interface QueueApi {
  /** POST /v1/threads/{id}/queue: at the end of the queue. */
  enqueue(threadId: string, input: TurnInput): Promise<QueuedPrompt>;
  /** GET /v1/threads/{id}/queue: head first. */
  list(threadId: string): Promise<QueuedPrompt[]>;
  /** PATCH /v1/threads/{id}/queue/{qid}: new text, or a new position (0: the head). */
  edit(threadId: string, queuedId: string, e: QueueEdit): Promise<QueuedPrompt>;
  /** DELETE /v1/threads/{id}/queue/{qid}: removed unsent. */
  remove(threadId: string, queuedId: string): Promise<void>;
  /** POST /v1/threads/{id}/queue/next: the head sent now ("Send next", "Resume"). */
  sendNext(threadId: string): Promise<Turn>;
  /**
   * POST /v1/threads/{id}/queue/move (ADR 0052): a limited or paused
   * thread's queue moved to a new thread with another agent; the new thread.
   */
  moveQueue(threadId: string, agentId: string): Promise<Thread>;
}

type Request = <T>(method: string, url: string, body?: unknown) => Promise<T>;
type Url = (path: string) => string;

const path = (threadId: string, rest = '') => `/v1/threads/${encodeURIComponent(threadId)}/queue${rest}`;

/** QueueApi over the HTTP API. */
export function httpQueue(request: Request, url: Url): QueueApi {
  return {
    enqueue: async (id, input) => (await request<{ queued: QueuedPrompt }>('POST', url(path(id)), input)).queued,
    list: async (id) => (await request<{ queue?: QueuedPrompt[] }>('GET', url(path(id)))).queue ?? [],
    edit: async (id, qid, e) =>
      (await request<{ queued: QueuedPrompt }>('PATCH', url(path(id, `/${encodeURIComponent(qid)}`)), e)).queued,
    remove: async (id, qid) => {
      await request('DELETE', url(path(id, `/${encodeURIComponent(qid)}`)));
    },
    sendNext: async (id) => (await request<{ turn: Turn }>('POST', url(path(id, '/next')))).turn,
    moveQueue: async (id, agentId) => (await request<{ thread: Thread }>('POST', url(path(id, '/move')), { agentId })).thread,
  };
}

/** The bindings QueueApi calls in the window (hub.QueueCalls embedded in app.Bindings), as generated. */
export type QueueBindings = Pick<WailsBindings, 'Enqueue' | 'Queue' | 'EditQueued' | 'RemoveQueued' | 'SendNext' | 'MoveQueue'>;

/** QueueApi over the window's bindings; call maps a rejection to a HubError. */
export function wailsQueue(b: QueueBindings, call: <T>(f: () => Promise<unknown>) => Promise<T>): QueueApi {
  return {
    enqueue: (id, input) => call<QueuedPrompt>(() => b.Enqueue(id, input as Parameters<QueueBindings['Enqueue']>[1])),
    list: async (id) => (await call<QueuedPrompt[] | null>(() => b.Queue(id))) ?? [],
    edit: (id, qid, e) => call<QueuedPrompt>(() => b.EditQueued(id, qid, e as Parameters<QueueBindings['EditQueued']>[2])),
    remove: async (id, qid) => {
      await call(() => b.RemoveQueued(id, qid));
    },
    sendNext: (id) => call<Turn>(() => b.SendNext(id)),
    moveQueue: (id, agentId) => call<Thread>(() => b.MoveQueue(id, { agentId })),
  };
}

/** The text a queued prompt shows: its input, or its content's text blocks. */
export function queuedText(q: QueuedPrompt): string {
  if (q.input) return q.input;
  const texts = (q.content ?? [])
    .map((b) => (b as { type?: string; text?: string }).type === 'text' ? (b as { text?: string }).text ?? '' : '')
    .filter((t) => t !== '');
  return texts.join('\n') || '(attachments)';
}

/**
 * "Limited until 14:05": the reset time in local time, with the date when
 * it is not today; '' when there is no limit or it is over.
 */
export function limitedText(limitedUntil: string | undefined, now: Date = new Date()): string {
  if (!limitedUntil) return '';
  const at = new Date(limitedUntil);
  if (Number.isNaN(at.getTime()) || at <= now) return '';
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const today = at.toDateString() === now.toDateString();
  return today ? `Limited until ${time}` : `Limited until ${at.toLocaleDateString([], { month: 'short', day: 'numeric' })}, ${time}`;
}
