import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, thread } from '../test/fakeTransport';
import type { Elicitation } from '../lib/elicitation';

describe('ThreadView questions', () => {
  it("shows a pending question in its turn, answered from there; another turn's elsewhere", async () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'first' }, 'th_1', 'tu_1'));
    c.add(ev(2, 'turn_completed', { turn: { status: 'completed' } }, 'th_1', 'tu_1'));
    c.add(ev(3, 'turn_started', { input: 'second' }, 'th_1', 'tu_2'));
    c.add(ev(4, 'elicitation_required', { elicitation: {} }, 'th_1', 'tu_2'));
    const q: Elicitation = {
      id: 'el_1',
      threadId: 'th_1',
      turnId: 'tu_2',
      mode: 'form',
      message: 'Which <b>branch</b>?',
      requestedSchema: { type: 'object', properties: {} },
      status: 'pending',
      deadline: new Date(Date.now() + 60_000).toISOString(),
      createdAt: new Date().toISOString(),
    };
    const onanswer = vi.fn();
    const { container } = render(ThreadView, {
      thread: thread('th_1'),
      conversation: c,
      permissions: {},
      selfId: 'browser-test',
      ondecide: vi.fn(),
      questions: [q],
      onanswer,
    });
    const turn2 = container.querySelector('li.turn[data-turn-id="tu_2"]') as HTMLElement;
    const turn1 = container.querySelector('li.turn[data-turn-id="tu_1"]') as HTMLElement;
    expect(within(turn1).queryByRole('article')).toBeNull();
    const card = within(turn2).getByRole('article', { name: /Question from/ });
    expect(within(card).getByText('Which <b>branch</b>?')).toBeTruthy();
    expect(card.querySelector('b')).toBeNull();
    await new Promise((r) => setTimeout(r, 600)); // armed
    await fireEvent.click(within(card).getByRole('button', { name: 'Decline' }));
    expect(onanswer).toHaveBeenCalledWith('el_1', { action: 'decline' });
    expect(screen.queryAllByRole('alert').filter((a) => a.textContent)).toEqual([]);
  });
});
