import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, within } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, thread } from '../test/fakeTransport';

// A failed turn's error block (ErrorNotice): in product words with the
// agent's name, once; the protocol text behind Details; the fix offered
// on the last turn only.
function crashed(c: Conversation, seq: number, turn: string) {
  const raw = 'acp: session/prompt: connection closed';
  c.add(ev(seq, 'turn_started', { input: `fix ${turn}` }, 'th_1', turn));
  c.add(ev(seq + 1, 'error', { code: 'UPSTREAM_UNAVAILABLE', message: raw }, 'th_1', turn));
  c.add(ev(seq + 2, 'turn_completed', { turn: { status: 'failed', error: raw } }, 'th_1', turn));
}

describe('ThreadView turn errors', () => {
  it('says the agent stopped, once, with Restart it re-sending the prompt; the raw text only behind Details', async () => {
    const c = new Conversation();
    crashed(c, 1, 'tu_1');
    crashed(c, 4, 'tu_2');
    const onresend = vi.fn();
    const { container } = render(ThreadView, {
      thread: thread('th_1'),
      conversation: c,
      permissions: {},
      selfId: 'browser-test',
      ondecide: vi.fn(),
      agentName: 'Qwen Code',
      onresend,
    });
    const last = container.querySelector<HTMLElement>('li.turn[data-turn-id="tu_2"]')!;
    const notice = within(last).getByRole('alert');
    expect(notice.querySelector('.title')?.textContent).toBe('Qwen Code stopped unexpectedly.');
    // Said once: the ended line shows the status, not the error again.
    expect(last.textContent!.split('connection closed').length - 1).toBe(1);
    expect(notice.querySelector('details')?.open).toBe(false);
    expect(last.textContent).not.toContain('UPSTREAM_UNAVAILABLE (');
    await fireEvent.click(within(notice).getByRole('button', { name: 'Restart it' }));
    expect(onresend).toHaveBeenCalledWith('fix tu_2');
    // An earlier turn's error is history: no button.
    const first = container.querySelector<HTMLElement>('li.turn[data-turn-id="tu_1"]')!;
    expect(within(first).queryByRole('button', { name: 'Restart it' })).toBeNull();
  });
});
