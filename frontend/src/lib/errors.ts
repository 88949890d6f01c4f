// Errors in product language (issue 29): what went wrong, said once in the
// words of the product with the agent's name, the one action that fixes
// it, and the raw detail (the hub's code, the agent's own message, JSON)
// kept for a "Details" disclosure. ErrorNotice.svelte shows the result.
//
// Contract of describeError: title is a sentence with no error code, no
// JSON-RPC text and no API call in it; detail holds whatever was raw;
// action is present only when the caller gave the handler it runs.

/** What can fix an error; the caller supplies the ones it can run. */
export type ActionKind = 'restart' | 'signin' | 'settings' | 'retry';

export interface ErrorAction {
  kind: ActionKind;
  label: string;
  run: () => unknown;
}

export interface ProductError {
  /** One sentence in product words. */
  title: string;
  /** The raw detail (code, the hub's or agent's message), for "Details"; '' when there is none beyond the title. */
  detail: string;
  action?: ErrorAction;
}

/** The error as the hub or a turn's error event gives it. */
export interface RawError {
  code?: string;
  message?: string;
  /** details.reason of a hub error, or an error event's reason. */
  reason?: string;
  details?: Record<string, unknown>;
  /** With reason RATE_LIMITED: when the agent's provider accepts requests again (RFC 3339). */
  limitedUntil?: string;
}

export interface Context {
  /** The agent's display name ("Qwen Code"); "The agent" when unknown. */
  agent?: string;
  /** The handlers this place can run; an action is offered only when its handler is here. */
  on?: Partial<Record<ActionKind, () => unknown>>;
}

const labels: Record<ActionKind, string> = {
  restart: 'Restart it',
  signin: 'Sign in',
  settings: 'Open Settings',
  retry: 'Retry',
};

/** An agent process that went away: its connection closed, it exited or was killed. */
const stopped = /connection closed|exited|exit status|signal: |broken pipe|EOF\b|process (ended|died)|not running/i;

/** An install's refusal or failure (acp/install's reasons): what to say, and what fixes it. */
const installReasons: Record<string, (who: string, msg: string) => [string, ActionKind | undefined]> = {
  NO_NETWORK: (who) => [`${who} could not be downloaded: this computer cannot reach the npm registry. Check the network connection.`, 'retry'],
  NPM_REFUSED: (who) => [`The npm registry refused to send ${who}.`, 'retry'],
  NODE_TOO_OLD: (who, msg) => [`${who} needs Node.js ${/Node(?:\.js)? (\d+)/.exec(msg)?.[1] ?? ''} or newer: install Node first.`.replace('  ', ' '), undefined],
  NPM_NOT_FOUND: (who) => [`npm, which installs ${who}, is missing: install Node first.`, undefined],
  INSTALL_RUNNING: (who) => [`${who} is already being installed.`, undefined],
  INSTALL_FAILED: (who) => [`${who} could not be installed.`, 'retry'],
};

/** Drops the sentences that name an API call ("… with POST /v1/budgets/override perThread"). */
export function withoutApiCalls(s: string): string {
  return s
    .replace(/[,;]?\s*[^.;,]*\b(GET|POST|PUT|PATCH|DELETE) \/v1\/[^.;]*/g, '')
    .replace(/\/v1\/\S+/g, '')
    .replace(/\s+([.,;])/g, '$1')
    .trim();
}

/** The hub's wordings that name a field rather than a thing, said plainly. */
const rewordings: [RegExp, string][] = [[/^cwd (.+) is not an existing folder$/, 'the folder $1 does not exist']];

/** s as a sentence: first letter up, a full stop at the end. */
function sentence(s: string): string {
  let t = s.trim().replace(/[.:;,\s]+$/, '');
  for (const [re, to] of rewordings) t = t.replace(re, to);
  if (!t) return '';
  return `${t[0].toUpperCase()}${t.slice(1)}.`;
}

/** Whether s reads as words a person wrote, not a protocol's text. */
function plain(s: string): boolean {
  return !!s && !/[{}[\]]|\bacp:|jsonrpc|-32\d{3}|\((INVALID_ARGUMENT|UPSTREAM_UNAVAILABLE|INTERNAL|CONFLICT|NOT_FOUND|FORBIDDEN|TIMEOUT)\)|\/v1\//.test(s) && s.length <= 200;
}

/** The raw detail line: the code, then the message as given. */
function detailOf(e: RawError): string {
  const parts = [e.code, e.reason && e.reason !== e.code ? e.reason : '', e.message].filter(Boolean);
  return parts.join(': ');
}

/** Normalises anything thrown or sent (HubError, Error, an error event, a string) to RawError. */
export function rawError(e: unknown): RawError {
  if (e === undefined || e === null) return {};
  if (typeof e === 'string') return { message: e };
  if (e && typeof e === 'object') {
    const o = e as { code?: unknown; message?: unknown; reason?: unknown; details?: unknown; limitedUntil?: unknown };
    const details = o.details && typeof o.details === 'object' ? (o.details as Record<string, unknown>) : undefined;
    const reason = typeof o.reason === 'string' ? o.reason : typeof details?.reason === 'string' ? details.reason : undefined;
    return {
      code: typeof o.code === 'string' ? o.code : undefined,
      message: typeof o.message === 'string' ? o.message : undefined,
      reason,
      details,
      ...(typeof o.limitedUntil === 'string' ? { limitedUntil: o.limitedUntil } : {}),
    };
  }
  return { message: String(e) };
}

/**
 * The error in product words. Each hub code (docs/API.md "Errors"), the
 * reasons that change what to do (AUTH_REQUIRED, BUDGET_EXCEEDED,
 * DISK_FULL, HOST_UNREACHABLE) and an agent that stopped get their own sentence; anything
 * else a plain sentence, with the raw text behind Details.
 */
export function describeError(err: unknown, ctx: Context = {}): ProductError {
  const e = rawError(err);
  const who = ctx.agent || 'The agent';
  const msg = e.message ?? '';
  const detail = detailOf(e);
  let title: string;
  let kind: ActionKind | undefined;
  if (e.reason === 'AUTH_REQUIRED') {
    title = `${who} needs you to sign in before it can answer.`;
    kind = 'signin';
  } else if (e.reason === 'BUDGET_EXCEEDED') {
    title = sentence(withoutApiCalls(msg).replace(/\.\s.*$/, '')) || 'A spending budget is used up.';
    kind = 'settings';
  } else if (e.reason && Object.hasOwn(installReasons, e.reason)) {
    [title, kind] = installReasons[e.reason](who, msg);
  } else if (e.reason === 'RATE_LIMITED') {
    // Waiting and sending again at that time is the queue's (issue 33).
    const at = e.limitedUntil ? new Date(e.limitedUntil) : undefined;
    const when = at && !Number.isNaN(at.getTime()) ? ` until ${at.toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })}` : '';
    title = `${who}'s provider is limiting requests${when}.`;
  } else if (e.reason === 'HOST_UNREACHABLE') {
    // A host's link is down (issue 30): the host, not an agent, is what cannot be reached.
    const host = typeof e.details?.host === 'string' ? e.details.host : 'The host';
    title = `${host} is not connected: Switchboard cannot reach it now.`;
    kind = 'retry';
  } else if (e.reason === 'DISK_FULL') {
    title = 'The disk Switchboard keeps its data on is full. Free some space, then retry.';
    kind = 'retry';
  } else {
    switch (e.code) {
      case 'UPSTREAM_UNAVAILABLE':
        if (stopped.test(msg)) {
          title = `${who} stopped unexpectedly.`;
          kind = 'restart';
        } else {
          title = `${who} could not be started or reached.`;
          kind = 'retry';
        }
        break;
      case 'TIMEOUT':
        title = `${who} took too long to answer.`;
        kind = 'retry';
        break;
      case 'TOO_MANY_REQUESTS':
        title = 'Too many agents are running at once. Wait for one to finish.';
        kind = 'retry';
        break;
      case 'NETWORK':
        title = 'Switchboard cannot be reached. Check that it is still running.';
        kind = 'retry';
        break;
      case 'UNAUTHORIZED':
        title = 'This window is no longer signed in to Switchboard.';
        break;
      case 'FORBIDDEN':
        title = plain(msg) ? `Not allowed: ${sentence(withoutApiCalls(msg))}` : 'That is not allowed here.';
        break;
      case 'NOT_FOUND':
        title = plain(msg) ? sentence(withoutApiCalls(msg)) : 'That no longer exists.';
        break;
      case 'GONE':
        title = 'That is gone: it was removed.';
        break;
      case 'CONFLICT':
        title = plain(msg) ? sentence(withoutApiCalls(msg)) : 'That cannot be done right now: something else is under way.';
        break;
      case 'INVALID_ARGUMENT':
        title = plain(msg) ? sentence(withoutApiCalls(msg)) : 'Switchboard could not do that with what was given.';
        kind = undefined;
        break;
      case 'PAYLOAD_TOO_LARGE':
        title = 'That is too large to send.';
        break;
      case 'INTERNAL':
        title = 'Something went wrong inside Switchboard.';
        kind = 'retry';
        break;
      default:
        title = plain(msg) ? sentence(withoutApiCalls(msg)) : 'Something went wrong.';
        kind = e.code ? 'retry' : undefined;
    }
  }
  const run = kind ? ctx.on?.[kind] : undefined;
  // The detail only when it says more than the title.
  const shown = detail && sentence(detail) !== title ? detail : '';
  return { title, detail: shown, ...(kind && run ? { action: { kind, label: labels[kind], run } } : {}) };
}

/** One line for a toast or a status: the title, with no code and no API call. */
export function errorLine(err: unknown, agent?: string): string {
  return describeError(err, { agent }).title;
}
