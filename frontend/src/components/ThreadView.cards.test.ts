// One card per tool call (issue 29): a permission asked about a tool call
// is that card's state — pending with the request and the buttons, then
// decided, by whom — never a second card; a permission without a tool call
// in the turn (the hub's own kinds) has a card of its own; and the decided
// state is there after a reload (HubStore reads it from the history).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport, ev, permission, thread } from '../test/fakeTransport';
import type { Permission } from '../lib/types';

const call = { toolCallId: 'call_1', title: 'Clean the build', kind: 'execute', status: 'pending', rawInput: { command: 'rm -rf build' } };
const asked = permission('pe_1', {
  kind: 'agent',
  request: { kind: 'execute', title: 'rm -rf build', argv: ['rm', '-rf', 'build'], cwd: '/home/me/src/app' },
});
const terminal = permission('pe_2', {
  kind: 'terminal',
  toolCall: { toolCallId: 'hub_terminal_1', title: 'make test', kind: 'execute' },
  request: { kind: 'execute', argv: ['make', 'test'], cwd: '/home/me/src/app' },
});

function conversation(...extra: ReturnType<typeof ev>[]): Conversation {
  const c = new Conversation();
  c.add(ev(1, 'turn_started', { input: 'clean up' }));
  c.add(ev(2, 'tool_call', { toolCall: call }));
  c.add(ev(3, 'permission_required', { permission: asked }));
  for (const e of extra) c.add(e);
  return c;
}

const props = (c: Conversation, permissions: Record<string, Permission>, over: Record<string, unknown> = {}) => ({
  thread: thread('th_1'),
  conversation: c,
  permissions,
  selfId: 'browser-test',
  ondecide: vi.fn(),
  onremember: vi.fn(),
  ...over,
});

describe('ThreadView: one card per tool call', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows a pending permission inside its tool call card, with the buttons, and no second card', async () => {
    const ondecide = vi.fn();
    const { container } = render(ThreadView, props(conversation(), { pe_1: asked }, { ondecide }));
    const cards = container.querySelectorAll('.tool-card');
    expect(cards).toHaveLength(1);
    const card = cards[0] as HTMLElement;
    expect(card.classList.contains('asking')).toBe(true);
    expect(card.querySelector('summary .badge')?.textContent).toBe('needs you');
    expect((card.querySelector('details.tool') as HTMLDetailsElement).open).toBe(true);
    // The request is in the card, once: one region, the hub's command line.
    expect(container.querySelectorAll('section.permission')).toHaveLength(1);
    const region = within(card).getByRole('region', { name: 'Permission request: rm -rf build' });
    expect(within(region).getByLabelText('Command').textContent).toBe('rm -rf build');
    expect(card.querySelector('[data-permission-id="pe_1"]')).toBeTruthy();
    // Its title is what the hub says runs, not the agent's words.
    expect(card.querySelector('summary .title')?.tagName).toBe('CODE');
    expect(card.querySelector('summary .title')?.textContent).toBe('rm -rf build');
    expect(card.textContent).not.toContain('Clean the build');
    const labels = within(region).getAllByRole('button').map((b) => b.textContent);
    expect(labels).toEqual(['Allow once', 'Deny', 'Always…']);
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.click(within(region).getByRole('button', { name: 'Allow once' }));
    expect(ondecide).toHaveBeenCalledWith('pe_1', 'allow');
  });

  it('shows the decided state in the same card, folded, saying who and when', () => {
    const decided = { ...asked, status: 'approved' as const, optionId: 'allow', decidedBy: 'rule:tests', decidedAt: '2026-11-21T06:06:00Z' };
    const c = conversation(ev(4, 'permission_resolved', { permission: decided }));
    const { container } = render(ThreadView, props(c, { pe_1: decided }));
    expect(container.querySelectorAll('.tool-card')).toHaveLength(1);
    expect(container.querySelectorAll('section.permission')).toHaveLength(1);
    const card = container.querySelector('.tool-card') as HTMLElement;
    expect(card.classList.contains('asking')).toBe(false);
    expect(card.querySelector('.resolved')?.textContent).toBe(`Approved by rule: tests at ${new Date(decided.decidedAt).toLocaleTimeString()}`);
    expect((card.querySelector('details.what') as HTMLDetailsElement).open).toBe(false);
    expect(within(card).queryByRole('button')).toBeNull();
  });

  it('gives the hub’s own permission (no tool call in the turn) a card of its own, in the same look', () => {
    const c = conversation(ev(4, 'permission_required', { permission: terminal }));
    const { container } = render(ThreadView, props(c, { pe_1: asked, pe_2: terminal }));
    expect(container.querySelectorAll('.tool-card')).toHaveLength(1);
    const own = screen.getByRole('region', { name: 'Permission request: make test' });
    expect(own.closest('.tool-card')).toBeNull();
    expect(within(own).getByText('Run a command', { selector: 'strong' })).toBeTruthy();
    expect(within(own).getAllByRole('button').map((b) => b.textContent)).toEqual(['Allow once', 'Deny', 'Always…']);
  });

  it('does not show again a terminal that ran under an approval the turn shows', () => {
    const covered = permission('pe_4', {
      kind: 'terminal',
      status: 'approved',
      decidedBy: 'covered:pe_1',
      toolCall: { toolCallId: 'hub_terminal_2', title: 'rm -rf build', kind: 'execute' },
      request: { kind: 'execute', argv: ['rm', '-rf', 'build'], cwd: '/home/me/src/app' },
    });
    const approved = { ...asked, status: 'approved' as const, decidedBy: 'window', optionId: 'allow' };
    const c = conversation(ev(4, 'permission_resolved', { permission: approved }), ev(5, 'permission_resolved', { permission: covered }));
    const { container } = render(ThreadView, props(c, { pe_1: approved, pe_4: covered }));
    expect(container.querySelectorAll('section.permission')).toHaveLength(1);
    expect(container.querySelector('[data-permission-id="pe_4"]')).toBeNull();
  });

  it('keeps an agent request whose tool call the turn does not show as a card of its own', () => {
    const orphan = permission('pe_3', { kind: 'agent', toolCall: { toolCallId: 'call_9', title: 'ls', kind: 'read' } });
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'look' }));
    c.add(ev(2, 'permission_required', { permission: orphan }));
    const { container } = render(ThreadView, props(c, { pe_3: orphan }));
    expect(container.querySelectorAll('.tool-card')).toHaveLength(0);
    expect(container.querySelectorAll('section.permission')).toHaveLength(1);
  });
});

describe('ThreadView: decided cards after a reload', () => {
  it('shows a decided request in its tool call card from the stored history alone', async () => {
    localStorage.clear();
    const f = new FakeTransport();
    f.threads = [thread('th_1')];
    const decided = { ...asked, status: 'declined' as const, optionId: 'reject', decidedBy: 'client:browser-test', decidedAt: '2026-11-21T06:06:00Z' };
    f.histories.set('th_1', [
      {
        id: 'tu_1',
        threadId: 'th_1',
        status: 'completed',
        input: 'clean up',
        output: '',
        startedAt: '2026-11-21T06:05:00Z',
        events: [
          ev(1, 'turn_started', { input: 'clean up' }),
          ev(2, 'tool_call', { toolCall: call }),
          ev(3, 'permission_required', { permission: asked }),
          ev(4, 'permission_resolved', { permission: decided }),
          ev(5, 'turn_completed', { turn: { status: 'completed' } }),
        ],
      },
    ]);
    const store = new HubStore(f, () => {});
    await store.start();
    await store.select('th_1');
    expect(store.permissions.pe_1?.status).toBe('declined');
    const { container } = render(ThreadView, props(store.conversation('th_1'), store.permissions));
    const card = container.querySelector('.tool-card') as HTMLElement;
    expect(card.querySelector('.resolved')?.textContent).toMatch(/^Declined by you at /);
    expect(container.querySelectorAll('section.permission')).toHaveLength(1);
    store.stop();
  });
});
