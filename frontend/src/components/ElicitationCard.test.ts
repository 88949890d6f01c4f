import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ElicitationCard from './ElicitationCard.svelte';
import type { Elicitation } from '../lib/elicitation';

const form = (over: Partial<Elicitation> = {}): Elicitation => ({
  id: 'el_1',
  threadId: 'th_1',
  turnId: 'tu_1',
  mode: 'form',
  message: '<img src=x onerror="alert(1)"> Which <b>branch</b>?',
  requestedSchema: {
    type: 'object',
    properties: {
      branch: { type: 'string', title: 'Branch', minLength: 1 },
      count: { type: 'integer', title: 'Count', minimum: 1, maximum: 5 },
      force: { type: 'boolean', title: 'Force' },
      color: { type: 'string', title: 'Color', enum: ['red', 'green'] },
    },
    required: ['branch'],
  },
  status: 'pending',
  deadline: new Date(Date.now() + 600_000).toISOString(),
  createdAt: new Date().toISOString(),
  ...over,
});

describe('ElicitationCard', () => {
  it('shows the message as text, renders the form, checks it before sending', async () => {
    const onanswer = vi.fn();
    const { container } = render(ElicitationCard, { elicitation: form(), agent: 'Fake', onanswer, onopen: vi.fn(), armDelay: 0 });
    await new Promise((r) => setTimeout(r, 5));
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(screen.getByText(/Which <b>branch<\/b>\?/)).toBeTruthy();
    const fields = ['Branch (required)', 'Count', 'Color'].map((l) => screen.getByLabelText(l));
    expect(fields.map((f) => f.tagName)).toEqual(['INPUT', 'INPUT', 'SELECT']);
    expect(screen.getByLabelText('Force')).toHaveProperty('type', 'checkbox');

    await fireEvent.input(fields[1], { target: { value: '9' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onanswer).not.toHaveBeenCalled();
    expect(screen.getByText('Required.')).toBeTruthy();
    expect(screen.getByText('At most 5.')).toBeTruthy();
    expect(fields[0].getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(fields[0], { target: { value: 'main' } });
    await fireEvent.input(fields[1], { target: { value: '3' } });
    await fireEvent.change(fields[2], { target: { value: 'green' } });
    await fireEvent.click(screen.getByLabelText('Force'));
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onanswer).toHaveBeenCalledWith({ action: 'accept', content: { branch: 'main', count: 3, force: true, color: 'green' } });
  });

  it('declines and cancels', async () => {
    const onanswer = vi.fn();
    render(ElicitationCard, { elicitation: form(), onanswer, onopen: vi.fn(), armDelay: 0 });
    await new Promise((r) => setTimeout(r, 5));
    await fireEvent.click(screen.getByRole('button', { name: 'Decline' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onanswer.mock.calls).toEqual([[{ action: 'decline' }], [{ action: 'cancel' }]]);
  });

  it('shows a refusal from the hub', async () => {
    const onanswer = vi.fn().mockRejectedValue(new Error('content.branch: required'));
    render(ElicitationCard, { elicitation: form({ requestedSchema: { properties: {} } }), onanswer, onopen: vi.fn(), armDelay: 0 });
    await new Promise((r) => setTimeout(r, 5));
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await vi.waitFor(() => expect(screen.getByRole('alert').textContent).toBe('content.branch: required'));
  });

  it('shows a link whole with its host emphasised, opened only by a click', async () => {
    const onopen = vi.fn();
    const onanswer = vi.fn();
    const url = 'https://login.example.com/device?next=https://evil.example/';
    render(ElicitationCard, {
      elicitation: form({ mode: 'url', url, requestedSchema: undefined, message: 'Sign in' }),
      onanswer,
      onopen,
      armDelay: 0,
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(screen.getByText('login.example.com', { selector: 'strong' })).toBeTruthy();
    expect(document.querySelector('.url')?.textContent).toBe(url);
    expect(document.querySelector('a')).toBeNull(); // no link to follow in this window
    const done = screen.getByRole('button', { name: 'Done' }) as HTMLButtonElement;
    expect(done.disabled).toBe(true);
    expect(onopen).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Open login.example.com in the browser' }));
    expect(onopen).toHaveBeenCalledTimes(1);
    await fireEvent.click(done);
    expect(onanswer).toHaveBeenCalledWith({ action: 'accept' });
  });

  it.each(['javascript:alert(1)', 'data:text/html,x', 'https://a@evil.example/'])('offers no way to open %s', async (url) => {
    render(ElicitationCard, { elicitation: form({ mode: 'url', url, requestedSchema: undefined }), onanswer: vi.fn(), onopen: vi.fn(), armDelay: 0 });
    expect(screen.getByText('This link cannot be opened safely.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Open/ })).toBeNull();
  });

  it('is inert at first', async () => {
    const onanswer = vi.fn();
    render(ElicitationCard, { elicitation: form(), onanswer, onopen: vi.fn(), armDelay: 10_000 });
    const decline = screen.getByRole('button', { name: 'Decline' }) as HTMLButtonElement;
    expect(decline.disabled).toBe(true);
    await fireEvent.click(decline);
    expect(onanswer).not.toHaveBeenCalled();
  });
});
