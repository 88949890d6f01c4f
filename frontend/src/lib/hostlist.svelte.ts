// The hosts' list as the window keeps it (issue 30): read once (GET
// /v1/hosts), then kept by the hub's stream (HubStore.hostChange): a
// host_changed event replaces its host in place; a change of the list
// itself (a host added or removed, config_applied) reads it again. One
// piece serves Settings → Hosts and the thread list's host headings.
import type { Host } from './types';
import { withHostChange, type HostChange, type HostsTransport } from './hostlink';

export class HostList {
  /** Local first, then each host, as GET /v1/hosts lists them. */
  hosts = $state<Host[]>([]);
  /** The list was read once (or failed to be). */
  loaded = $state(false);
  /** The last change applied (its n): older or equal ones are ignored. */
  private seen: number;

  /** seen: the change already reflected when the list is first read (HubStore.hostChange.n). */
  constructor(
    private readonly transport: Pick<HostsTransport, 'listHosts'>,
    seen = 0,
  ) {
    this.seen = seen;
  }

  /** Reads the list; rejects with the hub's error (the list is kept). */
  async load(): Promise<void> {
    try {
      this.hosts = await this.transport.listHosts();
    } finally {
      this.loaded = true;
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
      return undefined;
    }
    return this.load();
  }

  /** Each host by name. */
  byName(): Record<string, Host> {
    return Object.fromEntries(this.hosts.map((h) => [h.name, h]));
  }
}
