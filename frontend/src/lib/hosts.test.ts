import { describe, expect, it, vi } from 'vitest';
import { availableOn, hostLocalID, httpHosts, knownHosts, recentOnHosts, wailsHosts } from './hosts';
import type { Agent } from './types';
import { HubError } from './transport';
import { thread } from '../test/fakeTransport';

describe('hosts', () => {
  it('offers the hosts listed and those threads run on, never local', () => {
    expect(knownHosts(['local', 'gpu'], [{ host: 'box' }, {}, { host: 'gpu' }])).toEqual(['box', 'gpu']);
  });

  it('keeps each host’s recent folders apart, newest first, without this computer’s', () => {
    const r = recentOnHosts([
      thread('a@box', { host: 'box', cwd: '/b/2' }),
      thread('b', { cwd: '/here' }),
      thread('c@box', { host: 'box', cwd: '/b/1' }),
      thread('d@box', { host: 'box', cwd: '/b/2' }),
    ]);
    expect(r).toEqual({ box: ['/b/2', '/b/1'] });
  });

  it('names a host’s id as the host knows it', () => {
    expect(hostLocalID('p1@other@box')).toBe('p1@other');
    expect(hostLocalID('p1')).toBe('p1');
  });

  it('over HTTP: a hub without GET /v1/hosts lists none; other refusals are errors', async () => {
    const url = (p: string, q?: Record<string, unknown>) => p + (q?.path ? `?path=${q.path}` : '');
    const notFound = httpHosts(async () => {
      throw new HubError('NOT_FOUND', 'no route');
    }, url);
    expect(await notFound.list()).toEqual([]);
    const down = httpHosts(async () => {
      throw new HubError('UPSTREAM_UNAVAILABLE', 'host box is not connected');
    }, url);
    await expect(down.folders('box', '/x')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    const request = vi.fn(async () => ({ hosts: [{ name: 'local' }, { name: 'box' }] }));
    expect(await httpHosts(request as never, url).list()).toEqual(['box']);
  });

  it('in the window: the bindings, with empty answers made lists', async () => {
    const b = { HostAgents: vi.fn(async () => null), HostFolders: vi.fn(async () => ({ path: '/h', folders: null })) };
    const api = wailsHosts(b as never, (f) => f() as never);
    expect(await api.agents('box')).toEqual([]);
    expect(await api.folders('box', '')).toEqual({ path: '/h', folders: [] });
    expect(b.HostFolders).toHaveBeenCalledWith('box', '');
  });
});

describe('availableOn', () => {
  const a = (id: string, status: Agent['status'] = 'available') => ({ id, name: id, status, command: id }) as Agent;
  it('is this machine’s available agents for a local thread, the host’s for a host’s, none while the host’s are unread', () => {
    const local = [a('here'), a('gone', 'unavailable')];
    const byHost = { box: [a('there'), a('off', 'unavailable')] };
    expect(availableOn(undefined, local, byHost).map((x) => x.id)).toEqual(['here']);
    expect(availableOn('local', local, byHost).map((x) => x.id)).toEqual(['here']);
    expect(availableOn('box', local, byHost).map((x) => x.id)).toEqual(['there']);
    expect(availableOn('gpu', local, byHost)).toEqual([]);
  });
});
