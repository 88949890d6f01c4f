import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import type { Host } from '../lib/types';
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

  const host = (name: string, state: Host['state'], more: Partial<Host> = {}): Host => ({
    name,
    ssh: `me@${name}`,
    state,
    since: '2026-11-28T14:05:00Z',
    version: '',
    ...more,
  });

  it('shows each host’s state in its heading, with a dot and a tooltip saying since when and why', () => {
    render(Sidebar, {
      threads: [
        thread('t1@box', { title: 'On the box', host: 'box' }),
        thread('t2@gpu', { title: 'On the gpu', host: 'gpu' }),
        thread('t3@vm', { title: 'On the vm', host: 'vm' }),
      ],
      selectedId: null,
      onselect: () => {},
      hostStates: {
        box: host('box', 'connected'),
        gpu: host('gpu', 'unreachable', { error: 'ssh: connect to host gpu port 22: Connection refused' }),
        vm: host('vm', 'connecting'),
      },
      onhost: vi.fn(),
    });
    const heading = (name: string) => within(screen.getByRole('region', { name: `Host ${name}` })).getAllByRole('heading', { level: 2 })[0];
    // Connected says so to a screen reader only; the others in words beside the dot.
    expect(heading('box').textContent).toContain('connected');
    expect(heading('box').querySelector('[data-host-state]')?.getAttribute('data-host-state')).toBe('connected');
    expect(heading('box').querySelector('.visually-hidden')?.textContent).toBe('connected');
    expect(heading('gpu').textContent).toContain('unreachable');
    expect(heading('gpu').querySelector('[data-host-state]')?.getAttribute('data-host-state')).toBe('unreachable');
    expect(heading('gpu').title).toMatch(/^gpu: Unreachable since .+\. ssh: connect to host gpu port 22: Connection refused$/);
    expect(heading('vm').textContent).toContain('connecting');
    // Only a host that needs attention is a button.
    expect(within(screen.getByRole('navigation', { name: 'Threads' })).queryByRole('button', { name: /^(box|gpu|vm)/ })).toBeNull();
  });

  it('opens Settings → Hosts at a host that needs attention when its heading is clicked', async () => {
    const onhost = vi.fn();
    render(Sidebar, {
      threads: [thread('t1@box', { title: 'On the box', host: 'box' })],
      selectedId: null,
      onselect: () => {},
      hostStates: { box: host('box', 'needs_attention', { error: 'Host key is not known', fingerprint: 'SHA256:abc' }) },
      onhost,
    });
    const open = screen.getByRole('button', { name: /^box\s*needs attention$/ });
    expect(open.title).toContain('Needs attention since');
    expect(open.title).toContain('Host key is not known');
    expect(open.title).toContain('Settings → Hosts');
    await fireEvent.click(open);
    expect(onhost).toHaveBeenCalledWith('box');
  });

  it('shows no state for a host the registry does not list (a file link)', () => {
    render(Sidebar, { threads: [thread('t1@box', { title: 'On the box', host: 'box' })], selectedId: null, onselect: () => {} });
    const region = screen.getByRole('region', { name: 'Host box' });
    expect(region.querySelector('[data-host-state]')).toBeNull();
  });

  it('shows a listed host without threads, with its state: one that needs attention is seen before its first thread', async () => {
    const onhost = vi.fn();
    render(Sidebar, {
      threads: [thread('t2', { title: 'Here' })],
      selectedId: null,
      onselect: () => {},
      hosts: ['box', 'gpu'],
      hostStates: { box: host('box', 'needs_attention', { error: 'Host key is not known' }), gpu: host('gpu', 'connected') },
      onhost,
    });
    const nav = screen.getByRole('navigation', { name: 'Threads' });
    const names = within(nav)
      .getAllByRole('region')
      .filter((r) => r.classList.contains('host'))
      .map((r) => r.getAttribute('aria-label'));
    expect(names).toEqual(['This computer', 'Host box', 'Host gpu']);
    expect(within(screen.getByRole('region', { name: 'Host gpu' })).getByText('No threads on gpu yet.')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /^box\s*needs attention$/ }));
    expect(onhost).toHaveBeenCalledWith('box');
    // A filter shows only what matches: no empty host.
    const filter = screen.getByRole('searchbox', { name: 'Filter threads' }) as HTMLInputElement;
    await fireEvent.input(filter, { target: { value: 'Here' } });
    expect(screen.queryByRole('region', { name: 'Host gpu' })).toBeNull();
  });
});
