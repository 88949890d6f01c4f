import { describe, expect, it } from 'vitest';
import { describeError } from './errors';
import { Conversation } from './conversation.svelte';
import { ev } from '../test/fakeTransport';

describe('a turn the agent’s provider rate-limited (issue 32)', () => {
  it('says the provider limits requests until the reset time, with no button (the queue waits)', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'error', { code: 'UPSTREAM_UNAVAILABLE', message: 'Claude is temporarily rate limited.', reason: 'RATE_LIMITED', limitedUntil: '2026-11-28T09:30:00Z' }));
    const item = c.turns[0].items[0];
    expect(item).toMatchObject({ kind: 'error', reason: 'RATE_LIMITED', limitedUntil: '2026-11-28T09:30:00Z' });
    const shown = describeError(item, { agent: 'Claude Code', on: { retry: () => {} } });
    const when = new Date('2026-11-28T09:30:00Z').toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
    expect(shown.title).toBe(`Claude Code's provider is limiting requests until ${when}.`);
    expect(shown.action).toBeUndefined();
    expect(shown.detail).toContain('Claude is temporarily rate limited.');
  });

  it('says it without a time when none came', () => {
    expect(describeError({ code: 'UPSTREAM_UNAVAILABLE', reason: 'RATE_LIMITED' }).title).toBe("The agent's provider is limiting requests.");
  });
});
