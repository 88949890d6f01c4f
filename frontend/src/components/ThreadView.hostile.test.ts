// Hostile shapes from an agent must not wedge the thread: a tool call with a
// numeric status, or content / locations that are not arrays, stored and
// loaded on every reload; and, should a view still throw, its error
// boundary shows plain text while the rest of the thread goes on updating.
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, permission, thread } from '../test/fakeTransport';
import type { Permission, TurnHistory } from '../lib/types';

const props = (conversation: Conversation, permissions: Record<string, Permission> = {}) => ({
  thread: thread('th_1'),
  conversation,
  permissions,
  selfId: 'browser-test',
  ondecide: vi.fn(),
});

const hostile = [
  { toolCallId: 'num', title: 'numeric status', status: 5 },
  { toolCallId: 'obj', title: 'content object', content: { type: 'diff', path: '/x' }, status: 'completed' },
  { toolCallId: 'str', title: 'locations string', locations: '/etc/passwd', content: 'hello' },
  { toolCallId: 'deep', title: 'bad items', content: [{ type: 'diff', newText: 42 }, null], locations: [{ path: 1 }, 7] },
];

describe('ThreadView with hostile agent data', () => {
  it('renders a stored hostile tool call, and the thread keeps updating', () => {
    const c = new Conversation();
    const stored = {
      id: 'tu_1',
      threadId: 'th_1',
      input: 'go',
      status: 'running',
      events: hostile.map((tc, i) => ev(i + 1, 'tool_call', { toolCall: tc })),
    } as unknown as TurnHistory;
    c.loadHistory([stored]);
    const { container } = render(ThreadView, props(c));
    expect([...container.querySelectorAll('details.tool .title')].map((e) => e.textContent)).toEqual(hostile.map((h) => h.title));
    expect(container.querySelector('details.tool .badge')?.textContent).toBe('5');
    expect(container.querySelector('.unshown')).toBeNull();
    // Later events still show.
    c.add(ev(10, 'message_delta', { text: 'still **alive**' }));
    c.add(ev(11, 'tool_call_update', { toolCall: { toolCallId: 'obj', content: 9, status: 'failed' } }));
    flushSync();
    expect(container.querySelector('.md strong')?.textContent).toBe('alive');
    expect(container.querySelectorAll('details.tool .badge')[1].textContent).toBe('failed');
    c.add(ev(12, 'message_delta', { text: ' and more' }));
    flushSync();
    expect(container.querySelector('.md')?.textContent).toContain('and more');
  });

  it('a permission card that throws on a raw hostile tool call shows it as plain text', () => {
    const c = new Conversation();
    const raw = { ...permission('p1'), toolCall: { toolCallId: 'x', title: 'Run it', locations: { path: '/x' }, status: 3 } };
    c.add(ev(1, 'permission_required', { permission: raw }));
    // The store normalises what it keeps (HubStore.upsertPermission); the raw one is given here to the boundary.
    const { container } = render(ThreadView, props(c, { p1: raw as unknown as Permission }));
    // Not normalised: the card throws on locations.map; its boundary shows it plain.
    const fallback = container.querySelector('.unshown');
    expect(fallback?.textContent).toContain('This permission request (unanswered, it is denied at its deadline) could not be shown');
    expect(fallback?.querySelector('pre')?.textContent).toContain('"title": "Run it"');
  });

  it('a view that throws shows plain text in its place; the others and later updates still render', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'message_delta', { text: 'before' }));
    c.add(ev(3, 'tool_call', { toolCall: { toolCallId: 'ok', title: 'fine' } }));
    // Bypasses the normaliser, as a shape it does not know would: the card throws.
    c.turns[0].items.push({ kind: 'tool', key: 999, toolCall: { toolCallId: 'bad', title: 'broken', content: 5 as never } });
    const { container } = render(ThreadView, props(c));
    const fallback = container.querySelector('.unshown');
    expect(fallback?.textContent).toMatch(/This tool call could not be shown \(.+\)\. As sent:/);
    expect(fallback?.querySelector('pre')?.textContent).toContain('"toolCallId": "bad"');
    expect(screen.getByText('fine')).toBeTruthy();
    expect(container.querySelector('.md')?.textContent?.trim()).toBe('before');
    c.add(ev(4, 'message_delta', { text: 'after' }));
    flushSync();
    expect([...container.querySelectorAll('.md')].map((m) => m.textContent?.trim())).toEqual(['before', 'after']);
  });
});
