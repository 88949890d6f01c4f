// The hosts' list as the window keeps it (issue 30): read once (GET
// /v1/hosts), then kept by the hub's stream (HubStore.hostChange): a
// host_changed event replaces its host in place; a change of the list
// itself (a host added or removed, config_applied) reads it again. One
// piece serves Settings → Hosts and the thread list's host headings.
//
// A read and the stream race: the hub may answer a read, then change a
// host and send the change, which can reach the window before the read's
// answer does. So a read during which a change arrived is not shown (it
// may be older than the change): the list is read again, and the later
// of two reads in flight wins.
import type { Host } from './types';
import { withHostChange, type HostChange, type HostsTransport } from './hostlink';

export class HostList {
  /** Local first, then each host, as GET /v1/hosts lists them. */
  hosts = $state<Host[]>([]);
  /** The list was read once (or failed to be). */
  loaded = $state(false);
  /** The last change applied (its n): older or equal ones are ignored. */
  private seen: number;
  /** Changes applied in place so far: a read that saw one arrive is read again. */
  private applied = 0;
  /** Reads started so far, and the one whose list is shown. */
  private reads = 0;
  private shown = 0;

  /** seen: the change already reflected when the list is first read (HubStore.hostChange.n). */
  constructor(
    private readonly transport: Pick<HostsTransport, 'listHosts'>,
    seen = 0,
  ) {
    this.seen = seen;
  }

  /**
   * Reads the list; rejects with the hub's error (the list is kept). A
   * change that arrives during the read makes it read again (up to
   * rereads times; then the last answer is shown, and the next change
   * corrects it); a read started later that was shown already wins.
   */
  async load(): Promise<void> {
    for (let i = 0; ; i++) {
      const read = ++this.reads;
      const applied = this.applied;
      let hosts: Host[];
      try {
        hosts = await this.transport.listHosts();
      } finally {
        this.loaded = true;
      }
      if (read < this.shown) return;
      if (this.applied === applied || i === rereads) {
        this.hosts = hosts;
        this.shown = read;
        return;
      }
    }
  }

  /**
   * Applies a change from the stream: in place when it names a listed
   * host, else the list is read again (the promise; undefined when nothing
   * was read). A change already applied is ignored.
   */
  follow(c: HostChange): Promise<void> | undefined {
    if (c.n === this.seen) return undefined;
    this.seen = c.n;
    const next = withHostChange(this.hosts, c);
    if (next) {
      this.hosts = next;
      this.applied++;
      return undefined;
    }
    return this.load();
  }

  /** Each host by name. */
  byName(): Record<string, Host> {
    return Object.fromEntries(this.hosts.map((h) => [h.name, h]));
  }
}

/** How many times a read is made again because changes kept arriving during it. */
const rereads = 4;
