import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport, permission, thread } from '../test/fakeTransport';
import type { Elicitation } from '../lib/elicitation';

describe('the Approvals inbox: questions', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => vi.useRealTimers());

  it('lists the questions apart from the batch, counted on the button; an answer goes through the store', async () => {
    const f = new FakeTransport();
    f.threads = [thread('th_1', { title: 'Fix the build' })];
    f.permissions = [permission('pe_1', { threadId: 'th_1', deadline: '2099-01-01T00:10:00Z' })];
    const q: Elicitation = {
      id: 'el_1',
      threadId: 'th_1',
      turnId: 'tu_1',
      mode: 'form',
      message: 'Which branch?',
      requestedSchema: { type: 'object', properties: { b: { type: 'string', title: 'Branch' } }, required: ['b'] },
      status: 'pending',
      deadline: '2099-01-01T00:10:00Z',
      createdAt: '2026-11-21T06:00:00Z',
    };
    const answers: unknown[] = [];
    Object.assign(f, {
      listElicitations: async () => [q],
      answerElicitation: async (id: string, a: unknown) => {
        answers.push([id, a]);
        return { ...q, status: 'accepted' };
      },
    });
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    const button = await screen.findByRole('button', { name: 'Approvals: 2 waiting — 1 pending, 1 question' });
    expect(button.textContent).toContain('2');
    await fireEvent.click(button);
    const panel = screen.getByRole('region', { name: 'Pending approvals' });
    // The batch list holds the permission only.
    expect(within(within(panel).getByRole('listbox', { name: 'Pending requests' })).getAllByRole('option')).toHaveLength(1);
    const questions = within(panel).getByRole('region', { name: 'Questions from agents' });
    const card = within(questions).getByRole('article', { name: /Question from .* in Fix the build/ });
    await vi.advanceTimersByTimeAsync(600);
    await fireEvent.input(within(card).getByLabelText('Branch (required)'), { target: { value: 'main' } });
    await fireEvent.click(within(card).getByRole('button', { name: 'Send' }));
    await vi.waitFor(() => expect(answers).toEqual([['el_1', { action: 'accept', content: { b: 'main' } }]]));
    await vi.waitFor(() => expect(within(panel).queryByRole('region', { name: 'Questions from agents' })).toBeNull());
    await screen.findByRole('button', { name: 'Approvals: 1 pending' });
  });
});
