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

const stateWords: Record<HostState, string> = {
  connecting: 'Connecting',
  connected: 'Connected',
  unreachable: 'Unreachable',
  needs_attention: 'Needs attention',
};

/** "Connected since 14:02", "Unreachable since 14:05". */
export function hostStateWords(h: Host): string {
  const since = new Date(h.since);
  const at = Number.isNaN(since.getTime()) ? '' : ` since ${since.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  return (stateWords[h.state] ?? h.state) + at;
}
