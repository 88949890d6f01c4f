import { describe, expect, it } from 'vitest';
import { HttpTransport, WailsTransport, type WailsBindings, type WailsRuntime } from './transport';

describe('sessions over HTTP', () => {
  it('lists with the agent’s cursor and tells a new import (201) from a found one (200)', async () => {
    const seen: { method: string; url: string; body?: string }[] = [];
    const statuses = [201, 200];
    const fetch = (async (url: string, init: RequestInit) => {
      seen.push({ method: init.method ?? 'GET', url, body: init.body as string | undefined });
      if (url.includes('/sessions')) {
        return new Response(JSON.stringify({ sessions: [{ sessionId: 's1', cwd: '/a b', title: 'T' }], nextCursor: 'n' }), { status: 200 });
      }
      return new Response(JSON.stringify({ thread: { id: 'th_1' } }), { status: statuses.shift() });
    }) as unknown as typeof globalThis.fetch;
    const t = new HttpTransport({ clientId: 'c', fetch, storage: undefined });
    const page = await t.sessions.list('qwen code', '/a b', 'cur/1');
    expect(page).toEqual({ sessions: [{ sessionId: 's1', cwd: '/a b', title: 'T' }], nextCursor: 'n' });
    expect(seen[0].url).toBe('/v1/agents/qwen%20code/sessions?cwd=%2Fa+b&cursor=cur%2F1&scope=all');
    const req = { agent: 'qwen', sessionId: 's1', cwd: '/a b' };
    expect(await t.sessions.importSession(req)).toEqual({ thread: { id: 'th_1' }, created: true });
    expect(await t.sessions.importSession(req)).toEqual({ thread: { id: 'th_1' }, created: false });
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/v1/threads/import-session?scope=all', body: JSON.stringify(req) });
  });
});

describe('sessions in the window', () => {
  it('calls the bindings, an empty page as []', async () => {
    const calls: unknown[][] = [];
    const b = {
      ListAgentSessions: async (...a: unknown[]) => {
        calls.push(['list', ...a]);
        return { sessions: null };
      },
      ImportSession: async (r: unknown) => {
        calls.push(['import', r]);
        return { thread: { id: 'th_2' }, created: false };
      },
    } as unknown as WailsBindings;
    const rt: WailsRuntime = { EventsOn: () => () => {} };
    const t = new WailsTransport(b, rt);
    expect(await t.sessions.list('qwen', '/src')).toEqual({ sessions: [] });
    expect(await t.sessions.importSession({ agent: 'qwen', sessionId: 's', cwd: '/src' })).toEqual({ thread: { id: 'th_2' }, created: false });
    expect(calls).toEqual([['list', 'qwen', '/src', ''], ['import', { agent: 'qwen', sessionId: 's', cwd: '/src' }]]);
  });
});
