import { describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { SeqGate } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';

const diskFull = (message: string) => ({ seq: 0, type: 'disk_full', threadId: '', turnId: '', at: '2026-11-27T21:00:00Z', message });

describe('disk full', () => {
  it('shows a banner while the data dir refuses writes, and takes it away when they succeed again', async () => {
    const f = new FakeTransport();
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    await screen.findByRole('button', { name: 'Settings' });
    f.push(diskFull('The disk of Switchboard’s data folder is full: nothing new is being saved.'));
    const banner = await screen.findByText('The disk is full.');
    expect(banner.closest('[role="alert"]')?.textContent).toContain('nothing new is being saved');
    f.push(diskFull(''));
    await waitFor(() => expect(screen.queryByText('The disk is full.')).toBeNull());
  });

  it('takes an unstored hub-wide event (seq 0) without moving the resume point', () => {
    const gate = new SeqGate(41);
    expect(gate.accept(diskFull('full'))).toBe(true);
    expect(gate.last).toBe(41);
    expect(gate.accept({ seq: 0, type: 'message_delta', threadId: 'th_1', turnId: 'tu_1', at: '' })).toBe(false);
    expect(gate.accept({ seq: 42, type: 'config_error', threadId: '', turnId: '', at: '' })).toBe(true);
    expect(gate.accept({ seq: 42, type: 'config_error', threadId: '', turnId: '', at: '' })).toBe(false);
  });
});
