import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { HubError } from './lib/transport';
import { FakeTransport, thread } from './test/fakeTransport';

/** A browser's transport: a session secret or not, and Log out. */
class BrowserTransport extends FakeTransport {
  session = 'secret';
  refuse = false;
  signedIn() {
    return this.session !== '';
  }
  async logout() {
    this.calls.push({ method: 'logout', args: [] });
    this.session = '';
  }
  async listThreads() {
    if (this.refuse) throw new HubError('UNAUTHORIZED', 'missing or wrong API token or browser login', { status: 401 });
    return super.listThreads();
  }
}

function setup(f: BrowserTransport) {
  f.threads = [thread('th_1', { title: 'Fix the build' })];
  render(App, { store: new HubStore(f, (flush) => queueMicrotask(flush)) });
}

const again = /Open this link again from Switchboard/;

describe('App in a browser without a session', () => {
  it('says to open the link again from Switchboard, and asks the hub nothing', async () => {
    const f = new BrowserTransport();
    f.session = '';
    setup(f);
    expect(await screen.findByText(again)).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('not signed in');
    expect(f.calls).toEqual([]);
    expect(screen.queryByRole('button', { name: 'New thread' })).toBeNull();
  });

  it('shows the same page when the hub refuses the session (expired, restarted, rotated)', async () => {
    const f = new BrowserTransport();
    f.refuse = true;
    setup(f);
    expect(await screen.findByText(again)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull(); // no toast: the page says it
  });

  it('logs out from the header', async () => {
    const f = new BrowserTransport();
    setup(f);
    await screen.findByText('Fix the build');
    await fireEvent.click(screen.getByRole('button', { name: 'Log out' }));
    expect(await screen.findByText('You are logged out.')).toBeTruthy();
    expect(screen.getByText(again)).toBeTruthy();
    expect(f.calls.some((c) => c.method === 'logout')).toBe(true);
    expect(f.handlers).toBeUndefined(); // the event stream is closed
  });
});
