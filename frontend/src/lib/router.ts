// Thread URLs: every thread is /#/t/<id>, in the window and the browser.
// Selecting a thread pushes its URL (so back and forward step through the
// threads shown), following a URL (a link, back, forward, a reload)
// selects its thread. The hash is the whole route: the hub serves the UI
// at "/" only, and a login link's next is such a hash.

/** The thread a location hash names ("#/t/<id>"), or null. */
export function threadOfHash(hash: string): string | null {
  const m = /^#\/t\/([^/?#]+)$/.exec(hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/** The hash of a thread's URL ("#/" for none). */
export function hashOfThread(id: string | null): string {
  return id ? `#/t/${encodeURIComponent(id)}` : '#/';
}

/** Where the router reads and writes the URL (window.location and history; a fake in tests). */
export interface RouterHost {
  hash(): string;
  /** Goes to hash as a new history entry (replace: in place of the current one). */
  go(hash: string, replace: boolean): void;
  /** Calls cb when the user moves through history or follows a link; returns a function that stops. */
  listen(cb: () => void): () => void;
}

export const windowHost: RouterHost = {
  hash: () => location.hash,
  go(hash, replace) {
    if (replace) history.replaceState(history.state, '', hash);
    else location.hash = hash;
  },
  listen(cb) {
    addEventListener('hashchange', cb);
    return () => removeEventListener('hashchange', cb);
  },
};

/**
 * Keeps the URL and the selection together. open(id) is called for a URL
 * the user went to (it selects the thread, reading it when the list lacks
 * it); shown(id) is called by the app whenever the selection changes, and
 * pushes that thread's URL unless the URL already says it.
 */
export class Router {
  private stop: (() => void) | undefined;

  constructor(
    private open: (id: string | null) => void,
    private host: RouterHost = windowHost,
  ) {}

  /** Starts following the URL, and opens the thread it names now. */
  start(): void {
    this.stop = this.host.listen(() => this.open(threadOfHash(this.host.hash())));
    const id = threadOfHash(this.host.hash());
    if (id) this.open(id);
  }

  /** The selection changed to id: the URL follows (a new history entry). */
  shown(id: string | null): void {
    if (threadOfHash(this.host.hash()) === id) return;
    // Leaving "no thread" (the first page) is a step of its own too; a
    // deleted thread's URL is replaced, not kept to go back to.
    this.host.go(hashOfThread(id), id === null);
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }
}
