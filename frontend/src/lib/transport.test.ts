import { describe, expect, it } from 'vitest';
import {
  HttpTransport,
  HubError,
  WailsTransport,
  backoff,
  browserClientId,
  errorFromResponse,
  errorFromWails,
  sessionKey,
  type ConnectionState,
  type WailsBindings,
} from './transport';
import type { HubEvent } from './types';

// ---- fakes -------------------------------------------------------------

interface Call {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

type Reply = (call: Call) => Response | Promise<Response>;

/** A fetch that answers from a script, one reply per call, and records the calls. */
function fakeFetch(replies: Reply[]) {
  const calls: Call[] = [];
  const f = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = v;
    const call = { url: String(input), init, headers };
    calls.push(call);
    const r = replies.shift();
    if (!r) {
      // Out of script: hang until aborted, like a live stream with nothing to say.
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    }
    return r(call);
  };
  return { fetch: f as typeof fetch, calls };
}

const enc = new TextEncoder();

/** An SSE answer whose body yields the chunks, then ends (or stays open when hold). */
function sse(chunks: string[], hold = false): Reply {
  return (call) => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch));
        if (!hold) c.close();
        else call.init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
}

function frame(seq: number, type = 'message_delta', extra: Record<string, unknown> = {}): string {
  const data = { seq, type, threadId: 'th_1', turnId: 'tu_1', at: '2026-11-21T07:00:00Z', ...extra };
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return () => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (cond()) resolve();
      else if (Date.now() > end) reject(new Error('timed out'));
      else setTimeout(tick, 1);
    };
    tick();
  });
}

/** A Storage in memory, holding the session secret the sign-in page left. */
function memStorage(init: Record<string, string> = {}): Storage {
  const m = new Map(Object.entries(init));
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k: string) => m.get(k) ?? null,
    key: (i: number) => [...m.keys()][i] ?? null,
    removeItem: (k: string) => void m.delete(k),
    setItem: (k: string, v: string) => void m.set(k, v),
  };
}

function http(replies: Reply[], storage: Storage = memStorage({ [sessionKey]: 'sess-secret' })) {
  const f = fakeFetch(replies);
  const sleeps: number[] = [];
  const t = new HttpTransport({
    clientId: 'browser-test',
    storage,
    fetch: f.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  });
  return { t, calls: f.calls, sleeps };
}

// ---- requests and errors ---------------------------------------------

describe('HttpTransport archive, export, import', () => {
  it('asks for archived threads, archives, exports as text and imports as ndjson', async () => {
    const { t, calls } = http([
      json(200, { threads: [{ id: 'th_1', archived: true }] }),
      json(200, { thread: { id: 'th_1', archived: false } }),
      json(200, { archived: 3 }),
      () => new Response('# Title\n', { status: 200, headers: { 'Content-Type': 'text/markdown' } }),
      json(404, { error: { code: 'NOT_FOUND', message: 'no thread in /x' } }),
      json(201, { threads: [{ id: 'th_2' }], turns: 1, events: 4 }),
    ]);
    expect((await t.queryThreads('true', 100)).threads[0].archived).toBe(true);
    expect((await t.setArchived('th_1', false)).archived).toBe(false);
    expect(await t.archiveThreads({ cwd: '/x' })).toBe(3);
    expect(await t.exportThreads({ threadId: 'th_1', format: 'md' })).toBe('# Title\n');
    await expect(t.exportThreads({ cwd: '/x', format: 'jsonl' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const r = await t.importThreads(new Blob(['{"schema":1}\n']));
    expect(r).toEqual({ threads: [{ id: 'th_2' }], turns: 1, events: 4 });
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /v1/threads?archived=true&limit=100&scope=all',
      'PATCH /v1/threads/th_1?scope=all',
      'POST /v1/threads/archive?scope=all',
      'GET /v1/threads/th_1/export?format=md&scope=all',
      'GET /v1/threads/export?format=jsonl&cwd=%2Fx&scope=all',
      'POST /v1/threads/import?scope=all',
    ]);
    expect(calls[1].init.body).toBe('{"archived":false}');
    expect(calls[5].headers['content-type']).toBe('application/x-ndjson');
    expect(calls[5].headers.authorization).toBe('Bearer sess-secret');
  });
});

describe('HttpTransport requests', () => {
  it('sends the client id, the session secret as a bearer (never a cookie) and scope=all', async () => {
    const { t, calls } = http([json(200, { agents: [{ id: 'sdk', name: 'SDK', status: 'available', command: 'x' }] })]);
    expect(t.signedIn()).toBe(true);
    const agents = await t.listAgents();
    expect(agents.map((a) => a.id)).toEqual(['sdk']);
    expect(calls[0].url).toBe('/v1/agents?scope=all');
    expect(calls[0].init.credentials).toBe('omit');
    expect(calls[0].headers['x-client-id']).toBe('browser-test');
    expect(calls[0].headers.authorization).toBe('Bearer sess-secret');
  });

  it('searches with the query in the URL, scope=all, and answers the page', async () => {
    const { t, calls } = http([json(200, { hits: [{ threadId: 'th_1', seq: 9 }], nextCursor: '9', indexing: true })]);
    const page = await t.search({ q: '"a phrase" wo*', cursor: '12', limit: 5 });
    expect(page).toEqual({ hits: [{ threadId: 'th_1', seq: 9 }], nextCursor: '9', indexing: true });
    const u = new URL(calls[0].url, 'http://x');
    expect(u.pathname).toBe('/v1/search');
    expect(Object.fromEntries(u.searchParams)).toEqual({ q: '"a phrase" wo*', cursor: '12', limit: '5', scope: 'all' });
  });

  it('without a secret it is signed out; a 401 forgets the secret', async () => {
    expect(http([], memStorage()).t.signedIn()).toBe(false);
    const storage = memStorage({ [sessionKey]: 'old' });
    const { t } = http([json(401, { error: { code: 'UNAUTHORIZED', message: 'no' } })], storage);
    await expect(t.listThreads()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(t.signedIn()).toBe(false);
    expect(storage.getItem(sessionKey)).toBeNull();
  });

  it('logs out: POST /v1/auth/logout with the secret, then forgets it', async () => {
    const storage = memStorage({ [sessionKey]: 'sess-secret' });
    const { t, calls } = http([() => Promise.resolve(new Response(null, { status: 204 }))], storage);
    await t.logout();
    expect(calls[0].url).toBe('/v1/auth/logout?scope=all');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].headers.authorization).toBe('Bearer sess-secret');
    expect(t.signedIn()).toBe(false);
    expect(storage.getItem(sessionKey)).toBeNull();
  });

  it('posts JSON with its content type, and encodes ids and parameters', async () => {
    const { t, calls } = http([json(200, { permission: { id: 'pe/1', status: 'approved' } }), json(200, { turns: [] })]);
    await t.decidePermission('pe/1', { optionId: 'allow' });
    expect(calls[0].url).toBe('/v1/permissions/pe%2F1?scope=all');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ optionId: 'allow' });
    await t.history('th_1', true);
    expect(calls[1].url).toBe('/v1/threads/th_1/history?includeEvents=true&includeInternal=false&scope=all');
  });

  it('decides with remember, in a batch, queries the audit and lists and removes remembered rules', async () => {
    const rule = { id: 'ru_1', scope: 'thread', threadId: 'th_1', agent: 'sdk', kind: 'execute', command: 'make', decision: 'allow' };
    const { t, calls } = http([
      json(200, { permission: { id: 'pe_1', status: 'approved' }, rule, shadowedBy: 'reads' }),
      json(200, { results: [{ id: 'pe_2', permission: { id: 'pe_2' } }, { id: 'pe_3', error: { code: 'CONFLICT', message: 'already decided' } }] }),
      json(200, { permissions: [{ id: 'pe_9' }], nextCursor: 'c2' }),
      json(200, { permissions: [{ id: 'pe_8' }] }),
      json(200, { rules: [rule] }),
      () => Promise.resolve(new Response(null, { status: 204 })),
    ]);
    const r = await t.decidePermission('pe_1', { outcome: 'approved', remember: 'thread' });
    expect(r).toEqual({ permission: { id: 'pe_1', status: 'approved' }, rule, shadowedBy: 'reads' });
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ outcome: 'approved', remember: 'thread' });

    const b = await t.decidePermissions({ ids: ['pe_2', 'pe_3'], outcome: 'declined' });
    expect(calls[1].url).toBe('/v1/permissions/decide?scope=all');
    expect(calls[1].init.method).toBe('POST');
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ ids: ['pe_2', 'pe_3'], outcome: 'declined' });
    expect(b.results[1].error?.code).toBe('CONFLICT');

    const page = await t.queryPermissions({ status: 'approved', decidedBy: 'rule:', agent: 'sdk', limit: 50 });
    expect(calls[2].url).toBe('/v1/permissions?status=approved&decidedBy=rule%3A&agent=sdk&limit=50&scope=all');
    expect(page).toEqual({ permissions: [{ id: 'pe_9' }], nextCursor: 'c2' });
    expect(await t.queryPermissions({ cursor: 'c2' })).toEqual({ permissions: [{ id: 'pe_8' }], nextCursor: undefined });
    expect(calls[3].url).toBe('/v1/permissions?cursor=c2&scope=all');

    expect(await t.listRules()).toEqual([rule]);
    expect(calls[4].url).toBe('/v1/rules?scope=all');
    await t.deleteRule('ru/1');
    expect(calls[5].url).toBe('/v1/rules/ru%2F1?scope=all');
    expect(calls[5].init.method).toBe('DELETE');
  });

  it('reads a bare permission as the answer of a hub before remembered rules', async () => {
    const { t } = http([json(200, { permission: { id: 'pe_1', status: 'approved' } })]);
    expect(await t.decidePermission('pe_1', { optionId: 'allow' })).toEqual({ permission: { id: 'pe_1', status: 'approved' } });
  });

  it('pages the history with limit and cursor, and reports a history too large to send whole', async () => {
    const { t, calls } = http([
      json(200, { turns: [{ id: 'tu_1' }], nextCursor: 'c2' }),
      json(200, { turns: [{ id: 'tu_2' }] }),
      json(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'page it', details: { reason: 'HISTORY_TOO_LARGE' } } }),
    ]);
    const first = await t.historyPage('th_1', { includeEvents: true, limit: 1 });
    expect(first.turns.map((x) => x.id)).toEqual(['tu_1']);
    expect(first.nextCursor).toBe('c2');
    expect(calls[0].url).toBe('/v1/threads/th_1/history?includeEvents=true&limit=1&scope=all');
    const second = await t.historyPage('th_1', { cursor: first.nextCursor });
    expect(second).toEqual({ turns: [{ id: 'tu_2' }], nextCursor: undefined });
    expect(calls[1].url).toBe('/v1/threads/th_1/history?limit=50&cursor=c2&scope=all');
    const err = await t.history('th_1', true).catch((e) => e);
    expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, details: { reason: 'HISTORY_TOO_LARGE' } });
  });

  it("maps the hub's error body to HubError with code, message and status", async () => {
    const { t } = http([json(409, { error: { code: 'CONFLICT', message: 'a turn is already running' } })]);
    const err = await t.startTurn('th_1', { input: 'hi' }).catch((e) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code: 'CONFLICT', message: 'a turn is already running', status: 409 });
  });

  it('keeps Retry-After, and falls back to the status when the body is not JSON', async () => {
    const e429 = await errorFromResponse(
      new Response(JSON.stringify({ error: { code: 'TOO_MANY_REQUESTS', message: 'limit' } }), {
        status: 429,
        headers: { 'Retry-After': '3' },
      }),
    );
    expect(e429).toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfter: 3 });
    const e502 = await errorFromResponse(new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(e502).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'Bad Gateway', status: 502 });
  });

  it('reports an unreachable hub as NETWORK', async () => {
    const t = new HttpTransport({
      clientId: 'c',
      fetch: (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch,
    });
    await expect(t.listThreads()).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('sets a mode and a config option (POST …/mode, …/config-option) and answers the thread', async () => {
    const { t, calls } = http([
      json(200, { thread: { id: 'th_1', modes: { currentModeId: 'plan', availableModes: [] } } }),
      json(200, { thread: { id: 'th_1', configOptions: [{ id: 'model', currentValue: 'fast' }] } }),
      json(400, { error: { code: 'INVALID_ARGUMENT', message: 'unknown mode "x"' } }),
    ]);
    expect((await t.setMode('th/1', 'plan')).modes?.currentModeId).toBe('plan');
    expect(calls[0].url).toBe('/v1/threads/th%2F1/mode?scope=all');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ modeId: 'plan' });
    expect((await t.setConfigOption('th_1', 'model', 'fast')).configOptions?.[0].currentValue).toBe('fast');
    expect(calls[1].url).toBe('/v1/threads/th_1/config-option?scope=all');
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ configId: 'model', value: 'fast' });
    await expect(t.setMode('th_1', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'unknown mode "x"' });
  });

  it('answers a 204 delete with nothing', async () => {
    const { t, calls } = http([() => new Response(null, { status: 204 })]);
    await expect(t.deleteThread('th_1')).resolves.toBeUndefined();
    expect(calls[0].init.method).toBe('DELETE');
  });
});

describe('errorFromWails', () => {
  it('parses the JSON string a binding rejects with', () => {
    expect(errorFromWails('{"code":"NOT_FOUND","message":"no such thread"}')).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no such thread',
    });
  });
  it('keeps anything else as INTERNAL', () => {
    expect(errorFromWails('boom')).toMatchObject({ code: 'INTERNAL', message: 'boom' });
    expect(errorFromWails(new Error('x'))).toMatchObject({ code: 'INTERNAL', message: 'x' });
  });
});

describe('browserClientId', () => {
  it('is browser-<random>, kept in storage', () => {
    localStorage.clear();
    const a = browserClientId(localStorage);
    expect(a).toMatch(/^browser-[0-9a-f]{16}$/);
    expect(browserClientId(localStorage)).toBe(a);
  });
});

describe('backoff', () => {
  it('doubles from 0.5 s up to 15 s', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 5, 20].map((n) => backoff(n, mid))).toEqual([500, 1000, 2000, 15000, 15000]);
  });
});

// ---- SSE: resume and dedupe -------------------------------------------

describe('HttpTransport.subscribe', () => {
  it('starts live, resumes with Last-Event-ID after a drop, and drops duplicates', async () => {
    const { t, calls, sleeps } = http([
      sse([frame(1), frame(2).slice(0, 20), frame(2).slice(20)]), // then the stream ends
      sse([frame(2), frame(3), ': ping\n\n', frame(4)], true), // the hub replays 2: a duplicate
    ]);
    const got: number[] = [];
    const states: ConnectionState[] = [];
    const sub = t.subscribe(-1, { onEvent: (e) => got.push(e.seq), onState: (s) => states.push(s) });
    await until(() => got.length >= 4);
    expect(got).toEqual([1, 2, 3, 4]);
    expect(calls[0].url).toBe('/v1/events?after=-1&scope=all');
    expect(calls[0].headers['last-event-id']).toBeUndefined();
    expect(calls[0].headers.accept).toBe('text/event-stream');
    expect(calls[1].url).toBe('/v1/events?scope=all');
    expect(calls[1].headers['last-event-id']).toBe('2');
    expect(sleeps).toEqual([500]);
    expect(states.slice(0, 4)).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    sub.close();
  });

  it('reconnects at once after event: resync, from the last seq', async () => {
    const resync = 'id: 5\nevent: resync\ndata: {"seq":5,"type":"resync","threadId":"","turnId":"","at":"x"}\n\n';
    const { t, calls, sleeps } = http([sse([frame(5), resync]), sse([frame(6)], true)]);
    const got: HubEvent[] = [];
    const sub = t.subscribe(4, { onEvent: (e) => got.push(e) });
    await until(() => got.length >= 2);
    expect(got.map((e) => e.seq)).toEqual([5, 6]);
    expect(got.some((e) => e.type === 'resync')).toBe(false);
    expect(calls[0].headers['last-event-id']).toBe('4');
    expect(calls[1].headers['last-event-id']).toBe('5');
    expect(sleeps).toEqual([]);
    sub.close();
  });

  it('backs off on errors (network, 5xx) and says why', async () => {
    const { t, calls, sleeps } = http([
      json(502, { error: { code: 'UPSTREAM_UNAVAILABLE', message: 'hub busy' } }),
      () => Promise.reject(new TypeError('Failed to fetch')),
      sse([frame(9)], true),
    ]);
    const errs: string[] = [];
    const got: number[] = [];
    const sub = t.subscribe(-1, {
      onEvent: (e) => got.push(e.seq),
      onState: (_, err) => err && errs.push(err.code),
    });
    await until(() => got.length === 1);
    expect(errs).toEqual(['UPSTREAM_UNAVAILABLE', 'NETWORK']);
    expect(sleeps).toEqual([500, 1000]);
    expect(calls).toHaveLength(3);
    expect(calls[0].headers.authorization).toBe('Bearer sess-secret');
    sub.close();
  });

  it('stops on 401: signed out, retrying cannot help', async () => {
    const { t, calls, sleeps } = http([json(401, { error: { code: 'UNAUTHORIZED', message: 'no session' } })]);
    const states: string[] = [];
    t.subscribe(-1, { onEvent: () => {}, onState: (s, err) => states.push(err ? `${s} ${err.code}` : s) });
    await until(() => states.includes('closed UNAUTHORIZED'));
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(t.signedIn()).toBe(false);
  });

  it('asks for a snapshot reload when it reconnects without a known position', async () => {
    const { t } = http([sse([': ping\n\n']), sse([frame(1)], true)]);
    let gaps = 0;
    const got: number[] = [];
    const sub = t.subscribe(-1, { onEvent: (e) => got.push(e.seq), onGap: () => gaps++ });
    await until(() => got.length === 1);
    expect(gaps).toBe(1);
    sub.close();
  });

  it('stops reading when closed', async () => {
    const { t, calls } = http([sse([frame(1)], true)]);
    const got: number[] = [];
    const sub = t.subscribe(-1, { onEvent: (e) => got.push(e.seq) });
    await until(() => got.length === 1);
    sub.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(1);
  });
});

// ---- Wails ------------------------------------------------------------

function fakeWails() {
  const listeners = new Map<string, ((...d: unknown[]) => void)[]>();
  const subscribed: number[] = [];
  const runtime = {
    EventsOn(name: string, cb: (...d: unknown[]) => void) {
      const l = listeners.get(name) ?? [];
      l.push(cb);
      listeners.set(name, l);
      return () => listeners.set(name, (listeners.get(name) ?? []).filter((x) => x !== cb));
    },
  };
  const emit = (name: string, data: unknown) => (listeners.get(name) ?? []).forEach((cb) => cb(data));
  const notFound = () => Promise.reject('{"code":"NOT_FOUND","message":"no such thread"}');
  const bindings = {
    ListAgents: () => Promise.resolve([{ id: 'sdk', name: 'SDK', status: 'available', command: 'x' }]),
    ListThreads: () => Promise.resolve({ threads: [{ id: 'th_1' }], nextCursor: '' }),
    GetThread: notFound,
    SetMode: (threadId: string, modeId: string) =>
      modeId === 'bad'
        ? Promise.reject('{"code":"INVALID_ARGUMENT","message":"unknown mode"}')
        : Promise.resolve({ id: threadId, modes: { currentModeId: modeId, availableModes: [] } }),
    SetConfigOption: (threadId: string, configId: string, value: string) =>
      Promise.resolve({ id: threadId, configOptions: [{ id: configId, currentValue: value }] }),
    Subscribe: (after: number) => {
      subscribed.push(after);
      return Promise.resolve(null);
    },
    DecidePermission: (id: string, d: { remember?: string }) =>
      Promise.resolve({ permission: { id, status: 'approved' }, ...(d.remember ? { rule: { id: 'ru_1' }, shadowedBy: 'reads' } : {}) }),
    DecidePermissions: (b: { ids: string[] }) =>
      Promise.resolve({ results: b.ids.map((id) => (id === 'gone' ? { id, error: { code: 'NOT_FOUND', message: 'no' } } : { id, permission: { id } })) }),
    QueryPermissions: (q: { cursor?: string }) => Promise.resolve(q.cursor ? { permissions: null, nextCursor: '' } : { permissions: [{ id: 'pe_1' }], nextCursor: 'c' }),
    ListRules: () => Promise.resolve(null),
    DeleteRule: (id: string) => (id === 'ru_x' ? Promise.reject('{"code":"NOT_FOUND","message":"no such rule"}') : Promise.resolve()),
    Search: (q: { q: string }) =>
      q.q === '(('
        ? Promise.reject('{"code":"INVALID_ARGUMENT","message":"search: invalid query: fts5: syntax error near \\"\\""}')
        : Promise.resolve({ hits: [{ threadId: 'th_1', seq: 7, kind: 'message', snippet: [{ text: q.q, match: true }] }], nextCursor: '', indexing: false }),
  } as unknown as WailsBindings;
  return { bindings, runtime, emit, subscribed, listeners };
}

describe('WailsTransport', () => {
  it('calls the bindings and maps their errors', async () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    expect((await t.listAgents())[0].id).toBe('sdk');
    expect(await t.listThreads(10)).toEqual({ threads: [{ id: 'th_1' }], nextCursor: undefined });
    await expect(t.getThread('x')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no such thread' });
  });

  it('decides with remember and in a batch, pages the audit, lists and removes rules', async () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    expect(await t.decidePermission('pe_1', { outcome: 'approved', remember: 'folder' })).toEqual({
      permission: { id: 'pe_1', status: 'approved' },
      rule: { id: 'ru_1' },
      shadowedBy: 'reads',
    });
    const b = await t.decidePermissions({ ids: ['pe_1', 'gone'], outcome: 'approved' });
    expect(b.results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'NOT_FOUND']);
    expect(await t.queryPermissions({})).toEqual({ permissions: [{ id: 'pe_1' }], nextCursor: 'c' });
    expect(await t.queryPermissions({ cursor: 'c' })).toEqual({ permissions: [], nextCursor: undefined });
    expect(await t.listRules()).toEqual([]);
    await t.deleteRule('ru_1');
    await expect(t.deleteRule('ru_x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('calls Search and maps a malformed query to INVALID_ARGUMENT', async () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    const page = await t.search({ q: 'hippo*' });
    expect(page).toMatchObject({ hits: [{ threadId: 'th_1', seq: 7 }], nextCursor: undefined, indexing: false });
    await expect(t.search({ q: '((' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('calls SetMode and SetConfigOption', async () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    expect((await t.setMode('th_1', 'plan')).modes?.currentModeId).toBe('plan');
    expect((await t.setConfigOption('th_1', 'model', 'fast')).configOptions).toEqual([{ id: 'model', currentValue: 'fast' }]);
    await expect(t.setMode('th_1', 'bad')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'unknown mode' });
  });

  it('hands on window:showPermission and window:showTurn until stopped', () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    const got: unknown[] = [];
    const off = t.onNavigate((n) => got.push(n));
    w.emit('window:showPermission', { id: 'pe_1' });
    w.emit('window:showTurn', JSON.stringify({ id: 'tu_1', threadId: 'th_1' }));
    w.emit('window:showTurn', { id: 'tu_2' }); // no thread: ignored
    w.emit('window:showPermission', null);
    expect(got).toEqual([
      { kind: 'permission', id: 'pe_1' },
      { kind: 'turn', id: 'tu_1', threadId: 'th_1' },
    ]);
    off();
    w.emit('window:showPermission', { id: 'pe_2' });
    expect(got).toHaveLength(2);
    expect(w.listeners.get('window:showPermission')).toEqual([]);
  });

  it('hands on window:showThread (switchboard open THREAD) until stopped', () => {
    const w = fakeWails();
    const emitted: string[] = [];
    const t = new WailsTransport(w.bindings, {
      ...w.runtime,
      // The app answers window:ready with the show it kept while the page loaded.
      EventsEmit: (name: string) => {
        emitted.push(name);
        if (name === 'window:ready') w.emit('window:showThread', { threadId: 'th_early' });
      },
    });
    const got: unknown[] = [];
    const off = t.onNavigate((n) => got.push(n));
    expect(emitted).toEqual(['window:ready']);
    expect(got).toEqual([{ kind: 'thread', threadId: 'th_early' }]);
    got.length = 0;
    w.emit('window:showThread', { threadId: 'th_9' });
    w.emit('window:showThread', { threadId: '' }); // ignored
    off();
    w.emit('window:showThread', { threadId: 'th_8' });
    expect(got).toEqual([{ kind: 'thread', threadId: 'th_9' }]);
  });

  it('hands on window:menu choices it knows until stopped, and sets the native title', () => {
    const w = fakeWails();
    const titles: string[] = [];
    const t = new WailsTransport(w.bindings, { ...w.runtime, WindowSetTitle: (s: string) => titles.push(s) });
    const got: string[] = [];
    const off = t.onMenu((a) => got.push(a));
    w.emit('window:menu', { action: 'export-md' });
    w.emit('window:menu', JSON.stringify({ action: 'open-browser' }));
    w.emit('window:menu', { action: 'rm -rf' }); // unknown: ignored
    w.emit('window:menu', null);
    off();
    w.emit('window:menu', { action: 'export-jsonl' });
    expect(got).toEqual(['export-md', 'open-browser']);
    t.setTitle('Fix it — Switchboard');
    expect(titles).toEqual(['Fix it — Switchboard']);
  });

  it('delivers hub:event once each and resubscribes after hub:resync', async () => {
    const w = fakeWails();
    const t = new WailsTransport(w.bindings, w.runtime);
    const got: number[] = [];
    const sub = t.subscribe(-1, { onEvent: (e) => got.push(e.seq) });
    expect(w.subscribed).toEqual([-1]);
    const ev = (seq: number) => ({ seq, type: 'message_delta', threadId: 't', turnId: 'u', at: '', text: 'x' });
    w.emit('hub:event', ev(1));
    w.emit('hub:event', JSON.stringify(ev(2))); // a string payload is accepted too
    w.emit('hub:event', ev(2));
    w.emit('hub:resync', { seq: 2, type: 'resync' });
    expect(w.subscribed).toEqual([-1, 2]);
    w.emit('hub:event', ev(1));
    w.emit('hub:event', ev(3));
    expect(got).toEqual([1, 2, 3]);
    sub.close();
    w.emit('hub:event', ev(4));
    expect(got).toEqual([1, 2, 3]);
    expect(w.listeners.get('hub:event')).toEqual([]);
  });
});
