import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, permission, thread } from '../test/fakeTransport';

/** 200 turns of 50 events (10 000): text chunks, thoughts, a few tool calls. */
function longConversation(turns = 200, perTurn = 50): Conversation {
  const c = new Conversation();
  let seq = 1;
  for (let t = 0; t < turns; t++) {
    const turn = `tu_${t}`;
    c.add(ev(seq++, 'turn_started', { input: `question ${t}` }, 'th_1', turn));
    for (let i = 0; i < perTurn - 2; i++) {
      if (i % 12 === 0) c.add(ev(seq++, 'tool_call', { toolCall: { toolCallId: `c${t}_${i}`, title: `Read ${i}`, status: 'completed' } }, 'th_1', turn));
      else c.add(ev(seq++, i % 5 ? 'message_delta' : 'thought_delta', { text: `word${i} ` }, 'th_1', turn));
    }
    c.add(ev(seq++, 'turn_completed', { turn: { status: 'completed' } }, 'th_1', turn));
  }
  return c;
}

const props = (conversation: Conversation, over: Record<string, unknown> = {}) => ({
  thread: thread('th_1'),
  conversation,
  permissions: {},
  selfId: 'browser-test',
  ondecide: vi.fn(),
  ...over,
});

describe('ThreadView', () => {
  it('opens on the last 10 of 200 turns (10 000 events); the button reveals 30 more at a time', async () => {
    const c = longConversation();
    expect(c.lastSeq).toBe(10_000);
    const { container } = render(ThreadView, props(c));
    const turns = () => container.querySelectorAll('li.turn');
    expect(turns()).toHaveLength(10);
    expect(turns()[9].getAttribute('data-turn-id')).toBe('tu_199');
    expect(turns()[0].getAttribute('data-turn-id')).toBe('tu_190');
    expect(turns()[0].querySelector('.turn-no')?.textContent).toBe('Turn 191');
    const more = screen.getByRole('button', { name: 'Show earlier turns (190)' });
    await fireEvent.click(more);
    expect(turns()).toHaveLength(40);
    expect(turns()[0].getAttribute('data-turn-id')).toBe('tu_160');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Show earlier turns (160)' }));
    // The DOM stays small: no more than a few elements per event shown.
    expect(container.querySelectorAll('*').length).toBeLessThan(40 * 48 * 6);
  }, 30_000); // jsdom renders ~1 ms a card on this machine

  it('keeps a long turn to its last 100 steps, with a button for the rest', async () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'many tools' }));
    for (let i = 0; i < 250; i++) c.add(ev(i + 2, 'tool_call', { toolCall: { toolCallId: `c${i}`, title: `tool ${i}` } }));
    const { container } = render(ThreadView, props(c));
    expect(container.querySelectorAll('details.tool')).toHaveLength(100);
    expect(screen.queryByText('tool 149')).toBeNull();
    expect(screen.getByText('tool 150')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Show 150 earlier steps' }));
    expect(container.querySelectorAll('details.tool')).toHaveLength(250);
    expect(screen.getByText('tool 0')).toBeTruthy();
  });

  it('reveals a hidden earlier turn a notification points at', async () => {
    const c = longConversation(200, 4);
    c.add(ev(10_001, 'permission_required', { permission: permission('pe_old', { turnId: 'tu_160' }) }, 'th_1', 'tu_160'));
    const onrevealed = vi.fn();
    const { container } = render(
      ThreadView,
      props(c, { permissions: { pe_old: permission('pe_old', { turnId: 'tu_160' }) }, reveal: { kind: 'permission', id: 'pe_old', threadId: 'th_1', n: 1 }, onrevealed }),
    );
    await vi.waitFor(() => expect(onrevealed).toHaveBeenCalled());
    expect(container.querySelector('[data-permission-id="pe_old"]')).not.toBeNull();
    expect(container.querySelectorAll('li.turn')).toHaveLength(40);
  });

  it('scrolls to and highlights the item a search hit names, in a hidden earlier turn', async () => {
    const c = new Conversation();
    let seq = 1;
    for (let t = 0; t < 40; t++) {
      const turn = `tu_${t}`;
      c.add(ev(seq++, 'turn_started', { input: `question ${t}` }, 'th_1', turn));
      c.add(ev(seq++, 'message_delta', { text: `answer ${t} part one ` }, 'th_1', turn));
      c.add(ev(seq++, 'message_delta', { text: 'part two' }, 'th_1', turn));
      c.add(ev(seq++, 'tool_call', { toolCall: { toolCallId: `c${t}`, title: `Read file ${t}` } }, 'th_1', turn));
      c.add(ev(seq++, 'turn_completed', { turn: { status: 'completed' } }, 'th_1', turn));
    }
    // Turn tu_2's events are 11..15: its message starts at 12; a hit at 13 (a later chunk) is in it.
    const onrevealed = vi.fn();
    const r = render(ThreadView, props(c, { reveal: { kind: 'event', id: 'tu_2', seq: 13, threadId: 'th_1', n: 1 }, onrevealed }));
    await vi.waitFor(() => expect(onrevealed).toHaveBeenCalled());
    const hits = r.container.querySelectorAll('.search-hit');
    expect(hits).toHaveLength(1);
    expect(hits[0].textContent).toContain('answer 2 part one part two');
    expect(hits[0].closest('[data-turn-id]')?.getAttribute('data-turn-id')).toBe('tu_2');
    // A prompt hit (its turn_started) highlights the prompt; the previous highlight goes.
    const again = vi.fn();
    await r.rerender(props(c, { reveal: { kind: 'event', id: 'tu_5', seq: 26, threadId: 'th_1', n: 2 }, onrevealed: again }));
    await vi.waitFor(() => expect(again).toHaveBeenCalled());
    const now = r.container.querySelectorAll('.search-hit');
    expect(now).toHaveLength(1);
    expect(now[0].textContent).toContain('question 5');
  });

  it('gives each permission card of the same title its own region name', () => {
    const c = new Conversation();
    const perms: Record<string, ReturnType<typeof permission>> = {};
    for (const [i, turn] of ['tu_1', 'tu_2', 'tu_3'].entries()) {
      const p = permission(`pe_${i}`, { turnId: turn, status: i < 2 ? 'approved' : 'pending', optionId: 'allow' });
      perms[p.id] = p;
      c.add(ev(10 * i + 1, 'turn_started', { input: `q${i}` }, 'th_1', turn));
      c.add(ev(10 * i + 2, 'permission_required', { permission: p }, 'th_1', turn));
    }
    render(ThreadView, props(c, { permissions: perms }));
    const names = screen.getAllByRole('region').map((r) => r.getAttribute('aria-label'));
    expect(names).toEqual([
      'Permission request: rm -rf build',
      'Permission request: rm -rf build (2)',
      'Permission request: rm -rf build (3)',
    ]);
  });

  it("shows a turn's number, its usage once in its footer (with the ledger's cost, not the agent's running total) and attachments", () => {
    const c = new Conversation();
    c.loadHistory([
      { id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'look', output: '', startedAt: '', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'AA', mimeType: 'image/png' }, { type: 'resource_link', uri: 'file:///a/b.go', name: 'b.go' }],
        events: [ev(1, 'turn_started', { input: 'look' }), ev(2, 'usage', { usage: { used: 1234, size: 200000, cost: { amount: 0.0123, currency: 'USD' } } }), ev(3, 'turn_completed', { turn: { status: 'completed' } })] },
    ]);
    const { container } = render(ThreadView, { ...props(c), costs: { tu_1: '$0.01' } });
    const turn = container.querySelector('li.turn') as HTMLElement;
    expect(within(turn).getByText('Turn 1').classList.contains('turn-no')).toBe(true);
    expect(within(turn).getByLabelText('Turn 1 usage').textContent?.trim()).toBe('cost $0.01');
    expect(turn.textContent).not.toContain('0.0123');
    expect(turn.textContent?.match(/\$0\.01/g)).toHaveLength(1);
    expect(within(turn).getByText('Attached: image, b.go')).toBeTruthy();
  });
});
