/**
 * Words for a permission's decidedBy, the value the hub builds from the
 * deciding surface's credential (docs/API.md, "Conventions"): `window`,
 * `notification`, `browser`, `tray`, `client:<X-Client-ID>`, `rule:<name>`,
 * `remembered:<ruleId>`, `link:<surface>` (a host's permission decided
 * here, issue 30), `timeout`, `cancel`, `hub`. They read after
 * "decided by" / "cancelled by". selfId is this client's X-Client-ID: a
 * decision recorded as `client:<selfId>` is "you". Unknown values are shown
 * as they are.
 */
export function decidedByWords(decidedBy: string | undefined, selfId = ''): string {
  if (!decidedBy) return '';
  switch (decidedBy) {
    case 'window':
      return 'you, in the window';
    case 'browser':
      return 'you, in a browser';
    case 'notification':
      return 'a notification';
    case 'tray':
      return 'the tray';
    case 'timeout':
      return 'timed out';
    case 'cancel':
      return 'stopping the turn';
    case 'hub':
      return 'Switchboard';
  }
  const colon = decidedBy.indexOf(':');
  const rest = decidedBy.slice(colon + 1);
  switch (colon < 0 ? '' : decidedBy.slice(0, colon)) {
    case 'client':
      if (selfId && rest === selfId) return 'you';
      return rest.startsWith('acp-') ? `editor ${rest}` : `client ${rest}`;
    case 'rule':
      return `rule: ${rest}`;
    case 'remembered':
      return 'a remembered decision';
    case 'link': // decided through this hub, on a host (issue 30): who decided here
      return rest ? `${decidedByWords(rest, selfId)}, over the host link` : decidedBy;
  }
  return decidedBy;
}
