import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { HubError } from './lib/transport';
import { FakeTransport, thread } from './test/fakeTransport';

// A host's thread is held by the host's budgets (issue 30, ADR 0048): the
// banner's "Allow one more turn" asks the host's hub, never this one's.

describe('a host thread refused by its host’s budget', () => {
  it('sends "Allow one more turn" to the host, with the thread named for a perThread budget', async () => {
    const f = new FakeTransport();
    f.hostList.push({ name: 'box', ssh: 'me@box', state: 'connected', since: '2026-01-01T10:01:00Z', version: '1.0.0' });
    const box = new FakeTransport();
    f.hostHubs.box = box;
    f.threads.push(thread('t1@box', { title: 'On box', host: 'box' }));
    f.startTurn = async () => {
      throw new HubError('CONFLICT', 'the perThread budget is spent', {
        status: 409,
        details: { reason: 'BUDGET_EXCEEDED', budget: 'perThread', currency: 'USD', spent: 2, limit: 1 },
      });
    };
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    await fireEvent.click(await screen.findByRole('button', { name: /^On box/ }));
    const message = await screen.findByRole('textbox', { name: 'Message' });
    await fireEvent.input(message, { target: { value: 'Go on' } });
    await fireEvent.keyDown(message, { key: 'Enter' });
    await fireEvent.click(await screen.findByRole('button', { name: 'Allow one more turn' }));
    await waitFor(() => expect(box.calls.some((c) => c.method === 'overrideBudget')).toBe(true));
    expect(box.calls.find((c) => c.method === 'overrideBudget')?.args).toEqual([{ budget: 'perThread', threadId: 't1@box' }]);
    expect(f.calls.some((c) => c.method === 'overrideBudget')).toBe(false);
  });
});
