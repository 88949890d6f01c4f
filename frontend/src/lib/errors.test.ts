import { describe, expect, it, vi } from 'vitest';
import { describeError, errorLine, withoutApiCalls } from './errors';
import { HubError } from './transport';

const on = { restart: vi.fn(), signin: vi.fn(), settings: vi.fn(), retry: vi.fn() };

describe('describeError', () => {
  // Each mapped code or reason: the sentence, the action offered, and the raw text kept for Details.
  const cases: [string, unknown, string, string | undefined][] = [
    [
      'an agent that stopped',
      { code: 'UPSTREAM_UNAVAILABLE', message: 'acp: session/prompt: connection closed' },
      'Qwen Code stopped unexpectedly.',
      'Restart it',
    ],
    ['an agent that exited', { code: 'UPSTREAM_UNAVAILABLE', message: 'agent exited: exit status 1' }, 'Qwen Code stopped unexpectedly.', 'Restart it'],
    ['an agent that cannot start', { code: 'UPSTREAM_UNAVAILABLE', message: 'exec: "qwen": executable file not found' }, 'Qwen Code could not be started or reached.', 'Retry'],
    ['a sign-in needed', { code: 'UPSTREAM_UNAVAILABLE', message: '{"code":-32000,"message":"Authentication required"}', reason: 'AUTH_REQUIRED' }, 'Qwen Code needs you to sign in before it can answer.', 'Sign in'],
    ['a timeout', { code: 'TIMEOUT', message: 'turn timed out after 30m' }, 'Qwen Code took too long to answer.', 'Retry'],
    ['too many agents', { code: 'TOO_MANY_REQUESTS', message: 'agent process limit reached' }, 'Too many agents are running at once. Wait for one to finish.', 'Retry'],
    ['the hub out of reach', new HubError('NETWORK', 'cannot reach the hub: Failed to fetch'), 'Switchboard cannot be reached. Check that it is still running.', 'Retry'],
    ['an internal error', { code: 'INTERNAL', message: 'sql: database is locked' }, 'Something went wrong inside Switchboard.', 'Retry'],
    ['a refused argument', new HubError('INVALID_ARGUMENT', 'title is longer than 200 characters'), 'Title is longer than 200 characters.', undefined],
    ['a thread busy', new HubError('CONFLICT', 'a turn is already running on this thread'), 'A turn is already running on this thread.', undefined],
    ['a thing gone', new HubError('NOT_FOUND', 'no thread "th_1"'), 'No thread "th_1".', undefined],
    ['a forbidden action', new HubError('FORBIDDEN', 'the folder is outside the allowed ones'), 'Not allowed: The folder is outside the allowed ones.', undefined],
    ['the window signed out', new HubError('UNAUTHORIZED', 'no session'), 'This window is no longer signed in to Switchboard.', undefined],
    [
      'a budget spent, with the API call left out',
      new HubError('CONFLICT', 'the daily budget is spent: 5.20 of 5.00 USD. Raise daily in Settings or the config file, or allow one more turn with POST /v1/budgets/override daily', {
        details: { reason: 'BUDGET_EXCEEDED' },
      }),
      'The daily budget is spent: 5.20 of 5.00 USD.',
      'Open Settings',
    ],
    [
      'a host whose link is down',
      new HubError('UPSTREAM_UNAVAILABLE', 'host gpu is not connected: its hub cannot be reached now', { details: { reason: 'HOST_UNREACHABLE', host: 'gpu' } }),
      'gpu is not connected: Switchboard cannot reach it now.',
      'Retry',
    ],
    ['a full disk', new HubError('INTERNAL', 'write: no space left on device', { details: { reason: 'DISK_FULL' } }), 'The disk Switchboard keeps its data on is full. Free some space, then retry.', 'Retry'],
    ['an install without network', { code: 'INSTALL_FAILED', reason: 'NO_NETWORK', message: 'getaddrinfo ENOTFOUND registry.npmjs.org' }, 'Qwen Code could not be downloaded: this computer cannot reach the npm registry. Check the network connection.', 'Retry'],
    ['an install needing Node', new HubError('CONFLICT', 'this agent needs Node.js 22 or newer', { details: { reason: 'NODE_TOO_OLD' } }), 'Qwen Code needs Node.js 22 or newer: install Node first.', undefined],
  ];
  it.each(cases)('%s', (_, err, title, label) => {
    const d = describeError(err, { agent: 'Qwen Code', on });
    expect(d.title).toBe(title);
    expect(d.action?.label).toBe(label);
    expect(d.title).not.toMatch(/\/v1\/|[A-Z]{3,}_[A-Z]+|acp:|-32000|\{/);
    // Whatever was raw stays reachable behind Details.
    const raw = err as { message: string };
    expect(d.detail).toContain(raw.message);
  });

  it('offers an action only where its handler is given, and runs that handler', () => {
    const err = { code: 'UPSTREAM_UNAVAILABLE', message: 'acp: session/prompt: connection closed' };
    expect(describeError(err, { agent: 'Qwen Code' }).action).toBeUndefined();
    const restart = vi.fn();
    describeError(err, { agent: 'Qwen Code', on: { restart } }).action!.run();
    expect(restart).toHaveBeenCalledTimes(1);
  });

  it('an unknown code or protocol text falls back to a plain sentence, the raw text behind Details', () => {
    const d = describeError({ code: 'WEIRD_THING', message: '{"jsonrpc":"2.0","error":{"code":-32603}}' });
    expect(d.title).toBe('Something went wrong.');
    expect(d.detail).toBe('WEIRD_THING: {"jsonrpc":"2.0","error":{"code":-32603}}');
    expect(describeError(new Error('the clipboard was refused')).title).toBe('The clipboard was refused.');
    expect(describeError('').title).toBe('Something went wrong.');
    expect(describeError(undefined).title).toBe('Something went wrong.');
  });

  it('says "The agent" when the agent is not known', () => {
    expect(describeError({ code: 'TIMEOUT', message: 'x' }).title).toBe('The agent took too long to answer.');
  });

  it('gives no Details when they would only repeat the title', () => {
    expect(describeError(new Error('the clipboard was refused')).detail).toBe('');
  });
});

describe('withoutApiCalls / errorLine', () => {
  it('leaves no API call in what is shown', () => {
    expect(withoutApiCalls('Raise it in Settings, or allow one more turn with POST /v1/budgets/override perThread th_1.')).toBe('Raise it in Settings.');
    expect(errorLine(new HubError('CONFLICT', 'see GET /v1/threads/th_1 for it'))).not.toContain('/v1/');
  });
});
