import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport } from '../test/fakeTransport';

function setup() {
  const f = new FakeTransport();
  f.hostList.push(
    { name: 'devbox', ssh: 'me@devbox', state: 'connected', since: '2026-01-01T10:01:00Z', version: '1.0.0', note: 'logind ends this host’s hub when you log out there: run `loginctl enable-linger`' },
    {
      name: 'gpu',
      ssh: 'gpu',
      state: 'needs_attention',
      since: '2026-01-01T10:02:00Z',
      version: '',
      error: 'the host’s key is not known: check its fingerprint SHA256:abc and trust it',
      fingerprint: 'SHA256:abc',
    },
  );
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return f;
}

/** A hub-wide event as the hub's stream sends it. */
const hubWide = (seq: number, type: string, payload: object) => ({ seq, type, threadId: '', turnId: '', at: '2026-01-01T10:05:00Z', ...payload });

async function openHosts() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await fireEvent.click(within(dialog).getByRole('button', { name: 'Hosts' }));
  const section = within(dialog).getByRole('heading', { name: 'Hosts' }).closest('section') as HTMLElement;
  await within(section).findByText('devbox');
  return section;
}

const rows = (section: HTMLElement) =>
  within(within(section).getByRole('list', { name: 'Hosts' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('strong')?.textContent);

describe('Settings → Hosts', () => {
  it('lists this computer first, then each host with its state, version, note and why', async () => {
    setup();
    const section = await openHosts();
    expect(rows(section)).toEqual(['This computer', 'devbox', 'gpu']);
    expect(within(section).getAllByText(/Switchboard 1\.0\.0/, { selector: '.version' })).toHaveLength(2);
    expect(within(section).getAllByText(/^Connected since/)).toHaveLength(2);
    expect(within(section).getByText(/loginctl enable-linger/)).toBeTruthy();
    // An unknown key is said once, in words, with its fingerprint on a line of its own.
    expect(within(section).getByRole('alert').textContent).toMatch(/key is new to Switchboard/);
    expect(within(section).getAllByText(/SHA256:abc/)).toHaveLength(1);
    // This computer cannot be removed; the hosts can.
    expect(within(section).queryByRole('button', { name: 'Remove host local' })).toBeNull();
    expect(within(section).getByRole('button', { name: 'Remove host devbox' }).getAttribute('title')).toBe('Remove host devbox');
  });

  it('trusts an unknown key with the fingerprint the host showed', async () => {
    const f = setup();
    const section = await openHosts();
    await fireEvent.click(within(section).getByRole('button', { name: 'Trust this key' }));
    await waitFor(() => expect(f.calls.some((c) => c.method === 'connectHost')).toBe(true));
    expect(f.calls.find((c) => c.method === 'connectHost')?.args).toEqual(['gpu', 'SHA256:abc']);
    await waitFor(() => expect(within(section).queryByRole('button', { name: 'Trust this key' })).toBeNull());
    expect(within(section).getByText(/^Connecting since/)).toBeTruthy();
  });

  it('adds a host, says why one is refused, and removes one', async () => {
    const f = setup();
    const section = await openHosts();
    const form = within(section).getByRole('form', { name: 'Add host' });
    await fireEvent.input(within(form).getByLabelText('Name'), { target: { value: 'evil' } });
    await fireEvent.input(within(form).getByLabelText('ssh'), { target: { value: '-oProxyCommand=sh' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Add host' }));
    expect((await within(section).findByText(/starts with -/)).textContent).toMatch(/INVALID_ARGUMENT/);
    expect(f.hostList.map((h) => h.name)).not.toContain('evil');

    await fireEvent.input(within(form).getByLabelText('ssh'), { target: { value: 'me@evil.example' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Add host' }));
    await waitFor(() => expect(rows(section)).toEqual(['This computer', 'devbox', 'gpu', 'evil']));
    expect(f.calls.find((c) => c.method === 'addHost' && c.args[1] === 'me@evil.example')?.args).toEqual(['evil', 'me@evil.example']);
    expect((within(form).getByLabelText('Name') as HTMLInputElement).value).toBe('');

    await fireEvent.click(within(section).getByRole('button', { name: 'Remove host devbox' }));
    await waitFor(() => expect(rows(section)).toEqual(['This computer', 'gpu', 'evil']));
  });

  it('follows host_changed and config_applied from the stream, never polling', async () => {
    const f = setup();
    const section = await openHosts();
    const reads = () => f.calls.filter((c) => c.method === 'listHosts').length;
    const before = reads();
    const row = (name: string) => within(section).getByText(name, { selector: 'strong' }).closest('li') as HTMLElement;

    // gpu's key was trusted elsewhere (the CLI): its new state is shown at once, without reading the list.
    f.push(hubWide(1, 'host_changed', { name: 'gpu', ssh: 'gpu', state: 'connected', since: '2026-01-01T10:05:00Z', version: '1.0.0' }));
    await waitFor(() => expect(within(row('gpu')).getByText(/^Connected since/)).toBeTruthy());
    expect(within(row('gpu')).queryByRole('button', { name: 'Trust this key' })).toBeNull();
    expect(within(section).queryByRole('alert')).toBeNull();
    // devbox's link dropped: unreachable, with ssh's reason.
    f.push(hubWide(2, 'host_changed', { name: 'devbox', ssh: 'me@devbox', state: 'unreachable', since: '2026-01-01T10:06:00Z', version: '1.0.0', error: 'Connection refused' }));
    await waitFor(() => expect(within(row('devbox')).getByText(/^Unreachable since/)).toBeTruthy());
    expect(within(row('devbox')).getByText('Connection refused')).toBeTruthy();
    expect(reads()).toBe(before);

    // A host added from a terminal: its first host_changed names a host not listed, so the list is read again.
    f.hostList.push({ name: 'cloud', ssh: 'me@cloud', state: 'connecting', since: '2026-01-01T10:07:00Z', version: '' });
    f.push(hubWide(3, 'host_changed', { name: 'cloud', ssh: 'me@cloud', state: 'connecting', since: '2026-01-01T10:07:00Z', version: '' }));
    await waitFor(() => expect(rows(section)).toEqual(['This computer', 'devbox', 'gpu', 'cloud']));
    expect(reads()).toBe(before + 1);

    // A host removed by a hand edit of the config: config_applied names hosts, the list is read again.
    f.hostList = f.hostList.filter((h) => h.name !== 'devbox');
    f.push(hubWide(4, 'config_applied', { file: '/c.yaml', changed: ['hosts.devbox'] }));
    await waitFor(() => expect(rows(section)).toEqual(['This computer', 'gpu', 'cloud']));
    // Another key changed: the list is not read.
    f.push(hubWide(5, 'config_applied', { file: '/c.yaml', changed: ['ui.theme'] }));
    await new Promise((r) => setTimeout(r, 20));
    expect(reads()).toBe(before + 2);
  });
});
