// Hosts (docs/API.md "Hosts"): what Settings → Hosts needs of the
// transport, and the words for a host's state.
import type { Host, HostState } from './types';
import type { Transport } from './transport';

/** The transport's host calls (both transports have them). */
export type HostsTransport = Required<Pick<Transport, 'listHosts' | 'addHost' | 'removeHost' | 'connectHost'>>;

/** The transport as a HostsTransport, when it has the calls. */
export function hostsOf(t: Transport): HostsTransport | undefined {
  return t.listHosts && t.addHost && t.removeHost && t.connectHost ? (t as HostsTransport) : undefined;
}

/**
 * A change of the hosts, as the hub's stream says it (HubStore.hostChange):
 * n counts them; host is the Host of a host_changed event, absent when the
 * list changed (a host added or removed) and must be read again.
 */
export interface HostChange {
  n: number;
  host?: Host;
}

/**
 * The list after a change: the host replaced in place when listed, else
 * undefined (read the list again: a host not seen yet, or the list itself
 * changed).
 */
export function withHostChange(list: Host[], c: HostChange): Host[] | undefined {
  const h = c.host;
  if (!h || !list.some((x) => x.name === h.name)) return undefined;
  return list.map((x) => (x.name === h.name ? h : x));
}

const stateWords: Record<HostState, string> = {
  connecting: 'Connecting',
  connected: 'Connected',
  unreachable: 'Unreachable',
  needs_attention: 'Needs attention',
};

/** The state alone, lower case: "connected", "needs attention". */
export function hostStateShort(h: Pick<Host, 'state'>): string {
  return (stateWords[h.state] ?? h.state).toLowerCase();
}

/** "Connected since 14:02", "Unreachable since 14:05". */
export function hostStateWords(h: Host): string {
  const since = new Date(h.since);
  const at = Number.isNaN(since.getTime()) ? '' : ` since ${since.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  return (stateWords[h.state] ?? h.state) + at;
}
