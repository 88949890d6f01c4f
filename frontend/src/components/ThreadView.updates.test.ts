import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, permission, thread } from '../test/fakeTransport';

const props = (conversation: Conversation) => ({ thread: thread('th_1'), conversation, permissions: {}, selfId: 'browser-test', ondecide: vi.fn() });

describe('ThreadView: the agent’s newer updates (issue 32)', () => {
  it('shows notices, compaction, sub-agents and a tool’s own name in the turn', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'notice', { notice: { severity: 'warning', title: 'Model switched' } }));
    c.add(ev(3, 'compaction', { compaction: { compactionId: 'c1', status: 'completed', summary: 'Kept this.' } }));
    c.add(ev(4, 'subagent', { subagent: { sessionId: 's1', title: 'Explore tests' } }));
    c.add(ev(5, 'tool_call', { toolCall: { toolCallId: 't1', title: 'List the folder', name: 'Bash', kind: 'execute', status: 'completed' } }));
    c.add(ev(6, 'turn_completed', { turn: { status: 'completed' } }));
    const { container } = render(ThreadView, props(c));
    expect(screen.getByRole('status', { name: 'Agent warning' }).textContent).toContain('Model switched');
    expect(container.querySelector('[data-compaction="completed"]')!.textContent).toContain('The agent compacted its context');
    expect(screen.getByRole('region', { name: 'Sub-agent Explore tests' })).toBeTruthy();
    const tool = container.querySelector('[data-tool-call-id="t1"] summary')!;
    expect(tool.textContent).toContain('Bash');
    expect(tool.textContent).toContain('List the folder');
  });

  it('shows a sub-agent’s permission request inside the sub-agent’s card, with its buttons', async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const ondecide = vi.fn();
    const asked = permission('pe_s', {
      kind: 'agent',
      toolCall: { toolCallId: 'child_t1', title: 'Run the tests', kind: 'execute' },
      request: { kind: 'execute', title: 'go test ./...', argv: ['go', 'test', './...'], subagent: { sessionId: 's1', title: 'Explore tests' } },
    });
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'subagent', { subagent: { sessionId: 's1', title: 'Explore tests', state: { state: 'running' } } }));
    c.add(ev(3, 'permission_required', { permission: asked }));
    const { container } = render(ThreadView, { ...props(c), permissions: { pe_s: asked }, ondecide });
    const card = screen.getByRole('region', { name: 'Sub-agent Explore tests' });
    const inside = card.querySelector('[data-permission-id="pe_s"]');
    expect(inside).not.toBeNull();
    expect(container.querySelectorAll('[data-permission-id="pe_s"]')).toHaveLength(1);
    expect(inside!.textContent).toContain('Asked by the sub-agent Explore tests');
    // The card's guard against a stray click: its buttons act 500 ms after it appears.
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.click(within(inside as HTMLElement).getByRole('button', { name: 'Allow once' }));
    expect(ondecide).toHaveBeenCalledWith('pe_s', 'allow');
  });

  it('keeps a sub-agent’s request whose card the turn does not show as a card of its own', () => {
    const asked = permission('pe_o', {
      kind: 'agent',
      toolCall: { toolCallId: 'child_t2', title: 'Read', kind: 'read' },
      request: { kind: 'read', title: 'Read', subagent: { sessionId: 'gone', title: 'Gone' } },
    });
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'permission_required', { permission: asked }));
    const { container } = render(ThreadView, { ...props(c), permissions: { pe_o: asked } });
    expect(container.querySelectorAll('[data-permission-id="pe_o"]')).toHaveLength(1);
    expect(container.querySelector('[data-subagent]')).toBeNull();
  });

  it('offers Switchboard’s own Compact only while the agent has not compacted its context itself', async () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'turn_completed', { turn: { status: 'completed' } }));
    render(ThreadView, props(c));
    const names = async () => {
      const button = screen.getByRole('button', { name: 'Thread actions' });
      if (button.getAttribute('aria-expanded') !== 'true') await fireEvent.click(button);
      const menu = await screen.findByRole('menu', { name: 'Thread actions' });
      const out = within(menu).getAllByRole('menuitem').map((b) => b.textContent?.trim());
      await fireEvent.click(button);
      return out;
    };
    expect(await names()).toContain('Compact');
    c.add(ev(3, 'turn_started', { input: 'more' }, 'th_1', 'tu_2'));
    c.add(ev(4, 'compaction', { compaction: { compactionId: 'c1', status: 'completed' } }, 'th_1', 'tu_2'));
    await vi.waitFor(async () => expect(await names()).not.toContain('Compact'));
  });
});
