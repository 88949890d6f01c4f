// Drafts that survive a reload: what was typed in a thread's composer and
// not sent, kept in sessionStorage (this tab only, gone with it: a draft
// may hold what the user would not store) under switchboard.draft.<id>.
// Attachments stay in memory only.
import type { Attachment } from './attachments';

export interface Draft {
  text: string;
  attachments: Attachment[];
}

const prefix = 'switchboard.draft.';
/** A draft longer than this is kept in memory only. */
const maxStored = 256 << 10;

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

/** The drafts by thread id: a Map in memory whose texts are also stored. */
export class DraftMap {
  private mem = new Map<string, Draft>();

  constructor(private store: Storage | undefined = storage()) {}

  get(key: string): Draft | undefined {
    const d = this.mem.get(key);
    if (d) return d;
    let text: string | null = null;
    try {
      text = this.store?.getItem(prefix + key) ?? null;
    } catch {
      // storage refused: nothing stored
    }
    return text ? { text, attachments: [] } : undefined;
  }

  set(key: string, d: Draft): void {
    this.mem.set(key, d);
    this.saveText(key, d.text);
  }

  delete(key: string): void {
    this.mem.delete(key);
    this.saveText(key, '');
  }

  /** Stores key's text as it is being typed ("" removes it). */
  saveText(key: string, text: string): void {
    try {
      if (!text || text.length > maxStored) this.store?.removeItem(prefix + key);
      else this.store?.setItem(prefix + key, text);
    } catch {
      // storage full or refused: the draft stays in memory
    }
  }
}
