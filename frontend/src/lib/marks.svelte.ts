// Per-thread marks the sidebar shows beside the hub's own thread status:
// "unread" (a turn finished that the user has not looked at) and the status
// of the thread's last turn (failed, interrupted, …). Kept in localStorage
// per client id, so a reload keeps them.
import type { TurnStatus } from './types';

/** What is known of one thread, by event seq. */
export interface Mark {
  /** seq of the latest turn_completed seen for the thread; -1: none. */
  done: number;
  /** seq up to which the user has looked at the thread; -1: never. */
  seen: number;
  /** Status of the last turn that ended, when known. */
  last?: TurnStatus;
}

/** Marks of more threads than this are dropped, oldest completion first. */
const maxMarks = 500;

export function marksKey(clientId: string): string {
  return `switchboard.marks.${clientId}`;
}

export class ThreadMarks {
  marks = $state<Record<string, Mark>>({});
  private storage: Storage | undefined;
  private key: string;

  constructor(clientId: string, storage: Storage | undefined = globalThis.localStorage) {
    this.storage = storage;
    this.key = marksKey(clientId);
    try {
      const raw = storage?.getItem(this.key);
      const v: unknown = raw ? JSON.parse(raw) : undefined;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [id, m] of Object.entries(v as Record<string, Partial<Mark>>)) {
          if (typeof m?.done === 'number' && typeof m.seen === 'number') {
            this.marks[id] = { done: m.done, seen: m.seen, ...(m.last ? { last: m.last } : {}) };
          }
        }
      }
    } catch {
      // unreadable or refused storage: start empty
    }
  }

  /** True when a turn of the thread finished after the user last looked at it. */
  unread(id: string): boolean {
    const m = this.marks[id];
    return !!m && m.done > m.seen;
  }

  /** Status of the thread's last finished turn, when known. */
  last(id: string): TurnStatus | undefined {
    return this.marks[id]?.last;
  }

  /** A turn started: the last turn's status no longer applies. */
  started(id: string): void {
    const m = this.marks[id];
    if (m?.last) {
      this.marks[id] = { done: m.done, seen: m.seen };
      this.save();
    }
  }

  /**
   * A turn ended with status (event seq): unread unless the user saw it
   * happen (the thread was selected in a visible window).
   */
  completed(id: string, seq: number, status: TurnStatus, seen: boolean): void {
    const m = this.marks[id] ?? { done: -1, seen: -1 };
    if (seq <= m.done) return; // a replay of one already counted
    this.marks[id] = { done: seq, seen: seen ? Math.max(m.seen, seq) : m.seen, last: status };
    this.save();
  }

  /** The user looked at the thread: it is read. */
  see(id: string): void {
    const m = this.marks[id];
    if (!m || m.seen >= m.done) return;
    this.marks[id] = { ...m, seen: m.done };
    this.save();
  }

  /** The last turn's status from the thread's history (no change to unread). */
  learn(id: string, status: TurnStatus | undefined): void {
    if (!status || status === 'running') return;
    const m = this.marks[id] ?? { done: -1, seen: -1 };
    if (m.last === status) return;
    this.marks[id] = { ...m, last: status };
    this.save();
  }

  /** Forgets a thread (deleted). */
  drop(id: string): void {
    if (!(id in this.marks)) return;
    delete this.marks[id];
    this.save();
  }

  /** Forgets every thread not in keep (after a full thread list). */
  keepOnly(keep: Set<string>): void {
    let changed = false;
    for (const id of Object.keys(this.marks)) {
      if (!keep.has(id)) {
        delete this.marks[id];
        changed = true;
      }
    }
    if (changed) this.save();
  }

  private save(): void {
    let entries = Object.entries($state.snapshot(this.marks));
    if (entries.length > maxMarks) {
      entries = entries.sort((a, b) => b[1].done - a[1].done).slice(0, maxMarks);
      this.marks = Object.fromEntries(entries);
    }
    try {
      this.storage?.setItem(this.key, JSON.stringify(Object.fromEntries(entries)));
    } catch {
      // storage full or refused: the marks last for this page
    }
  }
}
