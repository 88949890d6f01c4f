import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import PromptQueue from './PromptQueue.svelte';
import { limitedText } from '../lib/queue';
import type { QueuedPrompt } from '../lib/types';

const q = (id: string, position: number, input: string): QueuedPrompt => ({
  id,
  threadId: 'th',
  position,
  input,
  createdAt: '2026-11-28T09:00:00Z',
  updatedAt: '2026-11-28T09:00:00Z',
});
const three = [q('a', 0, 'first'), q('b', 1, 'second'), q('c', 2, 'third')];
const handlers = () => ({ onedit: vi.fn(), onmove: vi.fn(), onremove: vi.fn(), onsendnext: vi.fn() });

describe('PromptQueue', () => {
  it('lists the queue head first; each prompt is moved by its buttons and by Alt+Up/Down, and removed', async () => {
    const h = handlers();
    render(PromptQueue, { items: three, ...h });
    const items = screen.getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.text')?.textContent)).toEqual(['first', 'second', 'third']);
    const second = within(items[1]);
    await fireEvent.click(second.getByRole('button', { name: 'Move up' }));
    expect(h.onmove).toHaveBeenLastCalledWith('b', 0);
    await fireEvent.click(second.getByRole('button', { name: 'Move down' }));
    expect(h.onmove).toHaveBeenLastCalledWith('b', 2);
    expect(within(items[0]).getByRole('button', { name: 'Move up' })).toHaveProperty('disabled', true);
    expect(within(items[2]).getByRole('button', { name: 'Move down' })).toHaveProperty('disabled', true);
    expect(second.getByRole('button', { name: 'Move up' }).getAttribute('title')).toBe('Move up (Alt+Up)');
    await fireEvent.keyDown(items[2].querySelector('.text')!, { key: 'ArrowUp', altKey: true });
    expect(h.onmove).toHaveBeenLastCalledWith('c', 1);
    await fireEvent.keyDown(items[0].querySelector('.text')!, { key: 'ArrowDown', altKey: true });
    expect(h.onmove).toHaveBeenLastCalledWith('a', 1);
    h.onmove.mockClear();
    await fireEvent.keyDown(items[0].querySelector('.text')!, { key: 'ArrowDown' }); // no Alt: the page's own keys
    expect(h.onmove).not.toHaveBeenCalled();
    await fireEvent.click(within(items[0]).getByRole('button', { name: 'Remove' }));
    expect(h.onremove).toHaveBeenCalledWith('a');
  });

  it('edits a prompt in place: Enter saves the new text, Escape keeps the old', async () => {
    const h = handlers();
    render(PromptQueue, { items: three, ...h });
    await fireEvent.click(within(screen.getAllByRole('listitem')[1]).getByRole('button', { name: 'Edit' }));
    const box = screen.getByRole('textbox', { name: 'Edit queued message' }) as HTMLTextAreaElement;
    expect(box.value).toBe('second');
    await fireEvent.input(box, { target: { value: 'second, better' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(h.onedit).toHaveBeenCalledWith('b', 'second, better');
    expect(screen.queryByRole('textbox')).toBeNull();

    await fireEvent.click(within(screen.getAllByRole('listitem')[0]).getByRole('button', { name: 'Edit' }));
    const again = screen.getByRole('textbox', { name: 'Edit queued message' });
    await fireEvent.input(again, { target: { value: 'thrown away' } });
    await fireEvent.keyDown(again, { key: 'Escape' });
    expect(h.onedit).toHaveBeenCalledTimes(1);
  });

  it('says why a paused queue waits and offers Send next; a limit without a reset offers Resume', async () => {
    const h = handlers();
    const { rerender } = render(PromptQueue, { items: three, paused: 'failed', ...h });
    expect(screen.getByRole('status').textContent).toContain('Queue paused after the turn failed');
    await fireEvent.click(screen.getByRole('button', { name: 'Send next' }));
    expect(h.onsendnext).toHaveBeenCalledTimes(1);
    await rerender({ items: three, paused: 'limited', ...h });
    expect(screen.getByRole('status').textContent).toContain('no reset time');
    expect(screen.getByRole('button', { name: 'Resume' })).toBeTruthy();
    await rerender({ items: [], paused: 'failed', ...h });
    expect(screen.queryByRole('region')).toBeNull(); // nothing waits: nothing to say
  });

  it('shows a limit in the future as "Limited until" its local time, with the date when not today', () => {
    const now = new Date(2026, 10, 28, 9, 30);
    const later = new Date(2026, 10, 28, 14, 5);
    const h = handlers();
    render(PromptQueue, { items: [q('a', 0, 'first')], limitedUntil: later.toISOString(), now: () => now, ...h });
    const status = screen.getByRole('status').textContent ?? '';
    expect(status).toContain(limitedText(later.toISOString(), now));
    expect(status).toMatch(/Limited until (14.05|0?2.05\s?PM)/); // the user's locale
    expect(screen.queryByRole('button', { name: 'Send next' })).toBeNull();
    expect(limitedText(new Date(2026, 10, 29, 8, 0).toISOString(), now)).toMatch(/^Limited until .*29, 0?8.00/);
    expect(limitedText(new Date(2026, 10, 28, 9, 0).toISOString(), now)).toBe(''); // over
    expect(limitedText(undefined, now)).toBe('');
  });

  it('moves a waiting queue to another agent: the picker lists the other agents, and the choice is sent', async () => {
    const now = new Date(2026, 10, 28, 9, 30);
    const later = new Date(2026, 10, 28, 14, 5).toISOString();
    const h = handlers();
    const onmovequeue = vi.fn();
    const agents = [
      { id: 'codex', name: 'Codex' },
      { id: 'gemini', name: 'Gemini CLI' },
    ];
    const { rerender } = render(PromptQueue, { items: three, limitedUntil: later, now: () => now, agents, onmovequeue, ...h });
    await fireEvent.click(screen.getByRole('button', { name: 'Move to another agent…' }));
    const picker = screen.getByRole('form', { name: 'Move the queue to another agent' });
    const select = within(picker).getByRole('combobox', { name: 'Continue in a new thread with' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['Codex', 'Gemini CLI']);
    await fireEvent.change(select, { target: { value: 'gemini' } });
    await fireEvent.click(within(picker).getByRole('button', { name: 'Move queue' }));
    expect(onmovequeue).toHaveBeenCalledWith('gemini');
    expect(screen.queryByRole('form')).toBeNull();

    // Paused with prompts: offered beside Send next; Cancel closes the picker unsent.
    await rerender({ items: three, paused: 'cancelled', limitedUntil: undefined, agents, onmovequeue, ...h });
    await fireEvent.click(screen.getByRole('button', { name: 'Move to another agent…' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form')).toBeNull();
    expect(onmovequeue).toHaveBeenCalledTimes(1);

    // Not offered: a queue that runs, no other agent, or a queue that moved already.
    await rerender({ items: three, paused: undefined, agents, onmovequeue, ...h });
    expect(screen.queryByRole('button', { name: 'Move to another agent…' })).toBeNull();
    await rerender({ items: three, paused: 'failed', agents: [], onmovequeue, ...h });
    expect(screen.queryByRole('button', { name: 'Move to another agent…' })).toBeNull();
    await rerender({ items: three, paused: 'failed', agents, onmovequeue, continuedIn: { id: 'th2', title: 'Fix the parser' }, ...h });
    expect(screen.queryByRole('button', { name: 'Move to another agent…' })).toBeNull();
  });

  it('links a moved thread to where its queue went, and the new thread to where it came from', async () => {
    const h = handlers();
    const onopen = vi.fn();
    const { rerender } = render(PromptQueue, { items: [], continuedIn: { id: 'th2', title: 'Fix the parser' }, onopen, ...h });
    expect(screen.getByRole('region', { name: 'Queued messages' }).textContent).toContain('Continued in Fix the parser');
    await fireEvent.click(screen.getByRole('button', { name: 'Fix the parser' }));
    expect(onopen).toHaveBeenCalledWith('th2');
    await rerender({ items: [], continuedIn: undefined, continuedFrom: { id: 'th1', title: 'Parser' }, onopen, ...h });
    await fireEvent.click(screen.getByRole('button', { name: 'Parser' }));
    expect(onopen).toHaveBeenLastCalledWith('th1');
  });
});
