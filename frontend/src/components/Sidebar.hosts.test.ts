import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import Sidebar from './Sidebar.svelte';
import { thread } from '../test/fakeTransport';

describe('Sidebar with hosts (issue 30)', () => {
  it('groups by host, this computer first, then by folder; the same path on two hosts is two folders', () => {
    render(Sidebar, {
      threads: [
        thread('t1@box', { title: 'On the box', cwd: '/home/me/src/app', host: 'box' }),
        thread('t2', { title: 'Here', cwd: '/home/me/src/app' }),
        thread('t3@box', { title: 'Also on the box', cwd: '/srv/data', host: 'box' }),
      ],
      selectedId: null,
      onselect: () => {},
    });
    const nav = screen.getByRole('navigation', { name: 'Threads' });
    const hostSections = within(nav)
      .getAllByRole('region')
      .filter((r) => r.classList.contains('host'));
    expect(hostSections.map((s) => s.getAttribute('aria-label'))).toEqual(['This computer', 'Host box']);
    const box = within(nav).getByRole('region', { name: 'Host box' });
    expect(within(box).getAllByRole('heading', { level: 2 }).map((h) => h.textContent?.trim())).toEqual(['box', 'app', 'data']);
    expect(within(box).getByRole('button', { name: /^On the box/ })).toBeTruthy();
    expect(within(box).queryByRole('button', { name: /^Here/ })).toBeNull();
    const here = within(nav).getByRole('region', { name: 'This computer' });
    expect(within(here).getByRole('button', { name: /^Here/ })).toBeTruthy();
  });

  it('shows no host heading while there are no hosts', () => {
    render(Sidebar, { threads: [thread('t2', { title: 'Here' })], selectedId: null, onselect: () => {} });
    expect(screen.queryByText('This computer')).toBeNull();
    expect(screen.getByRole('button', { name: /^Here/ })).toBeTruthy();
  });

  it('shows this computer as a host once a host is listed, even before it has threads', () => {
    render(Sidebar, { threads: [thread('t2', { title: 'Here' })], selectedId: null, onselect: () => {}, hosts: ['box'] });
    expect(screen.getByRole('region', { name: 'This computer' })).toBeTruthy();
  });

  it('finds a host’s threads by the host’s name in the filter', async () => {
    render(Sidebar, {
      threads: [thread('t1@box', { title: 'Remote', host: 'box' }), thread('t2', { title: 'Local' })],
      selectedId: null,
      onselect: () => {},
    });
    const filter = screen.getByRole('searchbox', { name: 'Filter threads' }) as HTMLInputElement;
    filter.value = 'box';
    filter.dispatchEvent(new Event('input'));
    await Promise.resolve();
    await new Promise((r) => setTimeout(r));
    expect(screen.queryByRole('button', { name: /^Local/ })).toBeNull();
    expect(screen.getByRole('button', { name: /^Remote/ })).toBeTruthy();
  });
});
