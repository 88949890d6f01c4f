import type { QueueApi } from './queue';
import type { QueuedPrompt, Thread, TurnInput } from './types';

/**
 * The threads' queues as the window shows them (issue 33): each thread's
 * list, head first, read from the hub when the thread is shown and again
 * at each prompt_queued / prompt_dequeued event of it (the hub's list is
 * the truth: a move shows at once, then as the hub ordered it).
 */
export class ThreadQueues {
  /** Each loaded thread's queue, head first. */
  lists = $state<Record<string, QueuedPrompt[]>>({});
  private reading = new Map<string, Promise<void>>();

  constructor(
    private readonly api: QueueApi | undefined,
    private readonly report: (e: unknown) => void,
  ) {}

  /** Whether the hub has queues (the composer queues only then). */
  get available(): boolean {
    return this.api !== undefined;
  }

  of(threadId: string): QueuedPrompt[] {
    return this.lists[threadId] ?? [];
  }

  /** Reads the thread's queue (one read at a time per thread; a later call reads again after it). */
  async load(threadId: string): Promise<void> {
    const api = this.api;
    if (!api) return;
    const prev = this.reading.get(threadId) ?? Promise.resolve();
    const next = prev.then(async () => {
      try {
        this.lists[threadId] = await api.list(threadId);
      } catch (e) {
        this.report(e);
      }
    });
    this.reading.set(threadId, next);
    await next;
  }

  /** An event of the thread: its queue is read again when it changed. */
  apply(e: { type: string; threadId?: string }): void {
    if (!e.threadId || !(e.threadId in this.lists)) return;
    if (e.type === 'prompt_queued' || e.type === 'prompt_dequeued') void this.load(e.threadId);
  }

  async enqueue(threadId: string, input: TurnInput): Promise<void> {
    if (!this.api) return;
    await this.api.enqueue(threadId, input);
    await this.load(threadId);
  }

  async edit(threadId: string, id: string, input: string): Promise<void> {
    if (!this.api) return;
    await this.api.edit(threadId, id, { input });
    await this.load(threadId);
  }

  /** Moves a prompt to position (0: the head); shown moved at once. */
  async move(threadId: string, id: string, position: number): Promise<void> {
    if (!this.api) return;
    const list = [...this.of(threadId)];
    const at = list.findIndex((q) => q.id === id);
    if (at < 0 || position < 0 || position >= list.length || position === at) return;
    const [q] = list.splice(at, 1);
    list.splice(position, 0, q);
    this.lists[threadId] = list.map((p, i) => ({ ...p, position: i }));
    try {
      await this.api.edit(threadId, id, { position });
    } finally {
      await this.load(threadId);
    }
  }

  async remove(threadId: string, id: string): Promise<void> {
    if (!this.api) return;
    this.lists[threadId] = this.of(threadId).filter((q) => q.id !== id);
    try {
      await this.api.remove(threadId, id);
    } finally {
      await this.load(threadId);
    }
  }

  /** Moves the thread's queue to a new thread with agentId (ADR 0052); the new thread. */
  async moveQueue(threadId: string, agentId: string): Promise<Thread | undefined> {
    if (!this.api) return undefined;
    const t = await this.api.moveQueue(threadId, agentId);
    await Promise.all([this.load(threadId), this.load(t.id)]);
    return t;
  }

  async sendNext(threadId: string): Promise<void> {
    if (!this.api) return;
    await this.api.sendNext(threadId);
    await this.load(threadId);
  }
}
