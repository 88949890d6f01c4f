import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport, thread } from '../test/fakeTransport';
import type { Host } from '../lib/types';

// A host's settings screen (issue 30) through the window: Settings → Hosts →
// "Settings…" on a connected host edits that host's hub, never this one.

const devbox: Host = { name: 'devbox', ssh: 'me@devbox', state: 'connected', since: '2026-01-01T10:01:00Z', version: '1.0.0' };
const gpu: Host = {
  name: 'gpu',
  ssh: 'gpu',
  state: 'needs_attention',
  since: '2026-01-01T10:02:00Z',
  version: '',
  error: 'the host’s key is not known: check its fingerprint SHA256:abc and trust it',
  fingerprint: 'SHA256:abc',
};

function setup() {
  const f = new FakeTransport();
  f.hostList.push(structuredClone(devbox), structuredClone(gpu));
  const box = new FakeTransport();
  box.settings = { ...structuredClone(box.settings), configFile: '/home/dev/.config/switchboard/config.yaml', permissions: { timeout: '5m' } };
  box.agents = [{ id: 'box-agent', name: 'Box agent', status: 'available', command: 'box-agent --acp' }];
  f.hostHubs.devbox = box;
  f.threads.push(thread('t1@devbox', { title: 'On devbox', host: 'devbox' }), thread('t2@gpu', { title: 'On gpu', host: 'gpu' }));
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, box };
}

const hubWide = (seq: number, type: string, payload: object) => ({ seq, type, threadId: '', turnId: '', at: '2026-01-01T10:05:00Z', ...payload });

async function openHostSettings(name: string) {
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const settings = await screen.findByRole('dialog', { name: 'Settings' });
  const section = within(settings).getByRole('heading', { name: 'Hosts' }).closest('section') as HTMLElement;
  await fireEvent.click(await within(section).findByRole('button', { name: `Settings of ${name}…` }));
  return screen.findByRole('dialog', { name: `Settings on ${name}` });
}

describe('a host’s settings (issue 30)', () => {
  it('edits the host’s own settings through its hub, and shows only what that hub decides', async () => {
    const { f, box } = setup();
    const dialog = await openHostSettings('devbox');
    // Only a connected host offers its settings.
    expect(screen.queryByRole('button', { name: 'Settings of gpu…' })).toBeNull();
    // The host's config file, agents and timeout, not this computer's.
    await within(dialog).findByText('/home/dev/.config/switchboard/config.yaml');
    expect(within(dialog).getByText('Box agent')).toBeTruthy();
    const timeout = within(dialog).getByLabelText('Refuse an unanswered permission after') as HTMLInputElement;
    expect(timeout.value).toBe('5');
    const nav = within(dialog).getByRole('navigation', { name: 'Settings sections' });
    expect(within(nav).getAllByRole('button').map((b) => b.textContent)).toEqual(['Agents', 'Folders', 'Approvals', 'Budgets', 'Usage']);

    await fireEvent.input(timeout, { target: { value: '7' } });
    await fireEvent.change(timeout);
    await waitFor(() => expect(box.settings.permissions.timeout).toBe('7m'));
    expect(f.settings.permissions.timeout).toBe('10m');
    expect(f.calls.some((c) => c.method === 'updateSettings')).toBe(false);

    // Its usage opens as the host's; closing it comes back to the host's settings.
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Usage on devbox…' }));
    const usage = await screen.findByRole('dialog', { name: 'Usage on devbox' });
    await waitFor(() => expect(box.usageQueries.length).toBeGreaterThan(0));
    await fireEvent.click(within(usage).getByRole('button', { name: /Close/ }));
    await screen.findByRole('dialog', { name: 'Settings on devbox' });
  });

  it('says the host is not connected and disables editing while its link is down, and reads it again when back', async () => {
    const { f, box } = setup();
    const dialog = await openHostSettings('devbox');
    const timeout = (await within(dialog).findByLabelText('Refuse an unanswered permission after')) as HTMLInputElement;
    expect(timeout.matches(':disabled')).toBe(false);

    // The link drops: the stream says so, the page at once.
    const down = { ...devbox, state: 'unreachable', since: '2026-01-01T10:06:00Z', error: 'Connection refused' };
    f.hostList = f.hostList.map((h) => (h.name === 'devbox' ? down : h)) as Host[];
    f.push(hubWide(1, 'host_changed', down));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('devbox is not connected');
    // Every control is disabled (the page's fieldset): nothing can be typed or sent to a host that cannot hear it.
    expect(timeout.matches(':disabled')).toBe(true);
    expect(within(dialog).getByRole('button', { name: 'Usage on devbox…' }).matches(':disabled')).toBe(true);
    // What was read stays shown.
    expect(timeout.value).toBe('5');

    // Back: read again, editable again.
    box.settings.permissions.timeout = '9m';
    f.hostList = f.hostList.map((h) => (h.name === 'devbox' ? devbox : h));
    f.push(hubWide(2, 'host_changed', { ...devbox, since: '2026-01-01T10:07:00Z' }));
    await waitFor(() => expect(timeout.value).toBe('9'));
    expect(timeout.matches(':disabled')).toBe(false);
    expect(within(dialog).queryByRole('alert')).toBeNull();
  });

  it('opened while the link is down says so, with Retry', async () => {
    const { f } = setup();
    const dialog = await openHostSettings('devbox');
    await within(dialog).findByText('Box agent');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Close settings' }));
    // Settings → Hosts again (where it was opened).
    await screen.findByRole('dialog', { name: 'Settings' });
    f.hostList = f.hostList.map((h) => (h.name === 'devbox' ? { ...h, state: 'unreachable' } : h)) as Host[];
    // The host's state here is still connected (no event yet): the host's routes answer 502.
    await fireEvent.click(screen.getByRole('button', { name: 'Settings of devbox…' }));
    const again = await screen.findByRole('dialog', { name: 'Settings on devbox' });
    const alert = await within(again).findByRole('alert');
    expect(alert.textContent).toContain('devbox is not connected: Switchboard cannot reach it now.');
    expect(within(again).queryByText('Loading settings on devbox…')).toBeNull();
    f.hostList = f.hostList.map((h) => (h.name === 'devbox' ? devbox : h));
    await fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await within(again).findByText('Box agent');
    expect(within(again).queryByRole('alert')).toBeNull();
  });

  it('the thread list shows each host’s state; a host needing attention opens Settings → Hosts at it', async () => {
    setup();
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await within(nav).findByRole('button', { name: /^On gpu/ });
    const open = await within(nav).findByRole('button', { name: /^gpu\s*needs attention$/ });
    expect(within(nav).getByRole('region', { name: 'Host devbox' }).querySelector('[data-host-state]')?.getAttribute('data-host-state')).toBe(
      'connected',
    );
    await fireEvent.click(open);
    const settings = await screen.findByRole('dialog', { name: 'Settings' });
    const row = await waitFor(() => {
      const r = settings.querySelector<HTMLElement>('[data-host-row="gpu"]');
      expect(r).toBeTruthy();
      expect(document.activeElement).toBe(r);
      return r!;
    });
    expect(within(row).getByRole('button', { name: 'Trust this key' })).toBeTruthy();
  });
});
