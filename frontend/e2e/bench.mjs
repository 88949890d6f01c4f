// Browser benchmark of the thread view (issue 6: smooth at 1000+ chunks/s,
// threads of 10k events), through the path a user takes: a real headless
// hub, the fake ACP agent (acp/acptest) as its agent, the built UI in
// headless Chromium.
//
//   cd frontend && npx vite build && node e2e/bench.mjs      (make bench runs it)
//
// Scenarios, each measured inside the page (requestAnimationFrame intervals,
// PerformanceObserver 'longtask', performance.memory after a GC through CDP):
//   stream N/s   one turn of `ticks <10·N> <N>` typed in the composer: 10 s of
//                64-byte chunks at N a second (N = 1000, 2000, 5000). Also:
//                the rate the agent achieved, and the render lag (agent send
//                time, written in each chunk, to the page showing it, sampled
//                every 200 ms). Then the page's text must equal the turn's
//                stored output.
//   open 10k     a thread of ≥ 10 000 events (one turn of `mixed 14` made
//                through the API: ~100 events, text around images and
//                tool calls; a flood's chunks would be joined into a few
//                deltas, docs/API.md "Joined deltas"; exported as JSON
//                lines, its turn copied ~100 times and imported), page
//                reloaded: click in the sidebar → the last turn's text
//                rendered; the conversation's DOM size.
//   earlier      one "Show earlier turns" click → the turns rendered.
//   scroll 10k   mouse.wheel from the bottom of the conversation to its top.
//
// Prints a table. Exits non-zero only when something is functionally wrong
// (the page's text differs from the stored output, a hub or page error),
// never because of a time: targets live in docs/PERFORMANCE.md.
// Env: CHROMIUM, E2E_KEEP=1 (keep the temp dir), BENCH_RATES=1000,2000
// (the stream rates), BENCH_SECONDS=10, BENCH_PROFILE=<dir> (a CPU profile
// of each scenario into <dir>/*.cpuprofile, its top functions printed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildFakeAgent, logger, noProblems, openPage, runScript, startHub, tempDir } from './harness.mjs';

const log = logger('bench');
const tmp = tempDir('switchboard-bench-');
const rates = (process.env.BENCH_RATES ?? '1000,2000,5000').split(',').filter(Boolean).map(Number);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const profileDir = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : '';

/** In the page before its scripts: window.__bench.start() / .stop() → frame and long-task stats. */
const recorder = () => {
  const st = { on: false, gen: 0, frames: [], longs: [], last: 0, t0: 0 };
  try {
    new PerformanceObserver((l) => {
      if (st.on) for (const e of l.getEntries()) st.longs.push(e.duration);
    }).observe({ type: 'longtask' });
  } catch {
    st.noLongTasks = true;
  }
  window.__bench = {
    start() {
      const gen = ++st.gen;
      Object.assign(st, { on: true, frames: [], longs: [], last: 0, t0: performance.now() });
      const loop = (t) => {
        if (!st.on || st.gen !== gen) return;
        if (st.last) st.frames.push(t - st.last);
        st.last = t;
        requestAnimationFrame(loop);
      };
      requestAnimationFrame(loop);
    },
    stop() {
      st.on = false;
      const f = [...st.frames].sort((a, b) => a - b);
      const q = (p) => (f.length ? f[Math.min(f.length - 1, Math.floor(p * f.length))] : 0);
      return {
        ms: performance.now() - st.t0,
        frames: f.length,
        p50: q(0.5),
        p95: q(0.95),
        p99: q(0.99),
        max: f.length ? f[f.length - 1] : 0,
        over50: f.filter((x) => x > 50).length,
        longN: st.noLongTasks ? null : st.longs.length,
        longMs: st.longs.reduce((a, b) => a + b, 0),
      };
    },
  };
};

const rows = [];
let cdp;

/** The page's stats since __bench.start(), and its JS heap after a full GC (what it keeps, not its garbage). */
async function stopRecorder(page) {
  const stats = await page.evaluate(() => window.__bench.stop());
  cdp ??= await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  stats.heapMB = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null));
  return stats;
}
let hub;
let browser;

/** Starts a CPU profile when BENCH_PROFILE is set; the returned function stops it, saves it and prints its top. */
async function profile(page, name) {
  if (!profileDir) return async () => {};
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile: p } = await cdp.send('Profiler.stop');
    mkdirSync(profileDir, { recursive: true });
    const file = join(profileDir, `${name.replace(/\W+/g, '-')}.cpuprofile`);
    writeFileSync(file, JSON.stringify(p));
    const self = new Map();
    let total = 0;
    for (const n of p.nodes) {
      const cf = n.callFrame;
      const where = cf.url ? `${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}` : '';
      const key = `${cf.functionName || '(anonymous)'} ${where}`.trim();
      self.set(key, (self.get(key) ?? 0) + n.hitCount);
      total += n.hitCount;
    }
    const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 12);
    log(`profile of ${name} (${file}), self time:`);
    for (const [k, v] of top) console.log(`    ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
    await cdp.detach();
  };
}

/** Waits for a turn started with the API ({input}) to end, through its SSE answer. */
async function runTurn(threadId, input) {
  const res = await fetch(`${hub.url}/v1/threads/${threadId}/turns`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${hub.token}`,
      'X-Client-ID': hub.clientId,
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
    },
    body: JSON.stringify({ input }),
  });
  if (!res.ok) throw new Error(`POST turn: ${res.status} ${await res.text()}`);
  const body = await res.text();
  if (!body.includes('event: turn_completed')) throw new Error(`turn ${JSON.stringify(input)} did not complete:\n${body.slice(-500)}`);
}

const norm = (s) => s.replace(/\s+/g, '');

/**
 * The agent text of a turn as the page shows it: its Markdown blocks'
 * text, less the note a block shown as plain text starts with ("Shown as
 * plain text: more than 32 KB…", MarkdownBlock's .raw .note).
 */
const shownText = (page, turnId) =>
  page.evaluate(
    (id) =>
      [...document.querySelectorAll(`li.turn[data-turn-id="${id}"] .agent .md`)]
        .map((md) => {
          const c = md.cloneNode(true);
          c.querySelectorAll('.raw .note').forEach((n) => n.remove());
          return c.textContent;
        })
        .join(''),
    turnId,
  );

async function expectSameText(page, threadId, turnId, what) {
  const stored = (await hub.api('GET', `/v1/threads/${threadId}/history`)).turns.find((t) => t.id === turnId);
  if (!stored?.output) throw new Error(`${what}: the turn has no stored output`);
  const shown = await shownText(page, turnId);
  const [a, b] = [norm(shown), norm(stored.output)];
  if (a !== b) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    throw new Error(
      `${what}: the page shows ${shown.length} characters, the stored output is ${stored.output.length}; ` +
        `without blanks they part at ${i}: the page ${JSON.stringify(a.slice(Math.max(0, i - 40), i + 60))}, ` +
        `the stored output ${JSON.stringify(b.slice(Math.max(0, i - 40), i + 60))}`,
    );
  }
  return stored;
}

/** Selects the thread titled title in the sidebar and waits for its heading. */
async function openThread(page, title) {
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: new RegExp(title) }).first().click();
  await page.getByRole('heading', { name: title }).waitFor();
}

async function streamScenario(page, work, rate) {
  const count = rate * seconds;
  const title = `Stream ${rate}`;
  const { thread } = await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title } });
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: new RegExp(title) }).waitFor();
  await openThread(page, title);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(`ticks ${count} ${rate}`);
  const stopProfile = await profile(page, `stream-${rate}`);
  await page.evaluate(() => {
    window.__bench.start();
    // Render lag: the agent's send time (Unix ns, in each chunk) of the newest
    // text on screen, against now.
    window.__lag = [];
    window.__lagTimer = setInterval(() => {
      const md = [...document.querySelectorAll('li.turn')].pop()?.querySelector('.agent .md');
      // The newest text node that is not blank ({@html} leaves "\n" between blocks).
      let n = md;
      while (n?.lastChild) {
        n = n.lastChild;
        while (n.nodeType === 3 && !n.nodeValue.trim() && n.previousSibling) n = n.previousSibling;
      }
      const m = /(\d{19})\s*$/.exec(n?.nodeValue?.slice(-100) ?? '');
      if (m) window.__lag.push(Date.now() - Number(BigInt(m[1]) / 1000000n));
    }, 200);
  });
  log(`stream ${rate}/s: ${count} chunks`);
  await box.press('Enter');
  const li = page.locator('li.turn').last();
  await li.getByText(`ticks ${count} ${rate}`).waitFor();
  const turnId = await li.getAttribute('data-turn-id');
  // The page shows the turn ended (turn_completed applied and rendered).
  await page.waitForFunction(
    (id) => {
      const t = document.querySelector(`li.turn[data-turn-id="${id}"]`);
      return t && !t.querySelector('.working');
    },
    turnId,
    { polling: 'raf', timeout: (seconds * 6 + 60) * 1000 },
  );
  const shownAt = await page.evaluate(() => Date.now());
  await page.evaluate(() => clearInterval(window.__lagTimer));
  const stats = await stopRecorder(page);
  await stopProfile();
  const lag = (await page.evaluate(() => window.__lag)).sort((a, b) => a - b);
  const stored = await expectSameText(page, thread.id, turnId, `stream ${rate}/s`);
  const ticks = stored.output.trim().split(/\s+/).map((s) => Number(BigInt(s) / 1000000n));
  if (ticks.length !== count) throw new Error(`stream ${rate}/s: the stored output has ${ticks.length} chunks, not ${count}`);
  const agentSecs = (ticks[ticks.length - 1] - ticks[0]) / 1000;
  const q = (p) => (lag.length ? lag[Math.min(lag.length - 1, Math.floor(p * lag.length))] : NaN);
  rows.push({
    name: `stream ${rate}/s`,
    ...stats,
    extra:
      `agent ${Math.round(count / agentSecs)}/s; lag p50 ${q(0.5)} p95 ${q(0.95)} max ${lag[lag.length - 1]} ms; ` +
      `end shown +${shownAt - ticks[ticks.length - 1]} ms; ${stored.output.length} chars ok`,
  });
  log(`stream ${rate}/s: the page shows the stored ${stored.output.length} characters`);
}

/**
 * A JSON lines export (exportThread) of the thread with its turns and their
 * events copied until it has at least min events: copy k of a turn has the
 * id "<id>_<k>" (in its events too), the title is title. importThreads
 * gives the copies new ids and seqs in file order.
 */
function repeatExport(jsonl, min, title) {
  const lines = jsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const head = lines.find((l) => l.thread);
  const turns = lines.filter((l) => l.turn);
  const events = lines.filter((l) => l.event);
  if (!head || !turns.length || !events.length) throw new Error(`the export has no thread, turn or event: ${jsonl.slice(0, 200)}`);
  head.thread.title = title;
  const out = [JSON.stringify(head)];
  // The history counts a turn's events; the import leaves thread_updated out.
  const counted = events.filter((e) => e.event.turnId && e.event.type !== 'thread_updated').length;
  const copies = Math.ceil(min / counted);
  // Copy k is k minutes after the original (turns are ordered by time).
  const shift = (o, k) => {
    for (const [key, v] of Object.entries(o)) {
      if (/At$|^at$/.test(key) && typeof v === 'string' && !Number.isNaN(Date.parse(v))) o[key] = new Date(Date.parse(v) + k * 60000).toISOString();
    }
    return o;
  };
  // Each copy's text differs from the others' (its number before every
  // text chunk's first word), so a cache keyed by text (lib/markdown)
  // cannot make the 137 copies cheaper than 137 different turns would be.
  // The first and the last copies keep the text as it is: the last turn's
  // page text is checked against its stored output.
  const mark = (o, k) => {
    for (const [key, v] of Object.entries(o)) {
      if (key === 'text' && typeof v === 'string' && v.trim()) o[key] = v.replace(/\S/, (c) => `${k}${c}`);
      else if (v && typeof v === 'object') mark(v, k);
    }
  };
  const copy = (line, inner, k) => {
    const o = JSON.parse(JSON.stringify(line));
    shift(o[inner], k);
    if (k > 0 && k < copies - 1 && inner === 'event') mark(o[inner], k);
    return turns.reduce((s, t) => s.split(JSON.stringify(t.turn.id)).join(JSON.stringify(`${t.turn.id}_${k}`)), JSON.stringify(o));
  };
  for (let k = 0; k < copies; k++) for (const t of turns) out.push(copy(t, 'turn', k));
  for (let k = 0; k < copies; k++) for (const e of events) out.push(copy(e, 'event', k));
  return out.join('\n') + '\n';
}

async function historyScenario(page, work) {
  const title = 'History 10k';
  // One real turn of `mixed 14` (~100 events: text around images and tool
  // calls), exported and copied into a thread of 10 000+ events, imported
  // in one request (seconds, where making each turn took minutes).
  const { thread: seed } = await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title: 'Seed 10k' } });
  await runTurn(seed.id, 'mixed 14');
  const exp = await fetch(`${hub.url}/v1/threads/${seed.id}/export?format=jsonl&scope=all`, {
    headers: { Authorization: `Bearer ${hub.token}`, 'X-Client-ID': hub.clientId },
  });
  if (!exp.ok) throw new Error(`export: ${exp.status} ${await exp.text()}`);
  log('importing a thread of 10 000+ events (copies of a turn of mixed 14)');
  const importStart = Date.now();
  const imp = await fetch(`${hub.url}/v1/threads/import?cwd=${encodeURIComponent(work)}&scope=all`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${hub.token}`, 'X-Client-ID': hub.clientId, 'Content-Type': 'application/x-ndjson' },
    body: repeatExport(await exp.text(), 10000, title),
  });
  if (!imp.ok) throw new Error(`import: ${imp.status} ${await imp.text()}`);
  const importMs = Date.now() - importStart;
  const thread = (await hub.api('GET', '/v1/threads')).threads.find((t) => t.title === title);
  if (!thread) throw new Error('the imported thread is not listed');
  const countEvents = async () =>
    (await hub.api('GET', `/v1/threads/${thread.id}/history?includeEvents=true`)).turns.reduce((n, t) => n + (t.events?.length ?? 0), 0);
  const events = await countEvents();
  if (events < 10000) throw new Error(`the imported thread has ${events} events, not 10 000+`);
  const hist = await hub.api('GET', `/v1/threads/${thread.id}/history`);
  const last = hist.turns[hist.turns.length - 1];
  log(`${hist.turns.length} turns, ${events} events imported in ${importMs} ms; reloading the page`);

  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  const button = await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: new RegExp(title) }).elementHandle();
  const stopProfile = await profile(page, 'open-10k');
  await page.evaluate(() => window.__bench.start());
  // Click → the last turn's whole text in the DOM → the frame after it painted.
  const openMs = await page.evaluate(
    ([btn, id, len]) =>
      new Promise((resolve, reject) => {
        const t0 = performance.now();
        btn.click();
        const check = () => {
          // All of its text: a turn's answer is split around its images and tool calls.
          const mds = document.querySelectorAll(`li.turn[data-turn-id="${id}"] .agent .md`);
          if ([...mds].map((md) => md.textContent).join('').replace(/\s+/g, '').length >= len) {
            requestAnimationFrame(() => resolve(performance.now() - t0));
          } else if (performance.now() - t0 > 60000) reject(new Error('the last turn did not render in 60 s'));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    [button, last.id, norm(last.output).length],
  );
  const openStats = await stopRecorder(page);
  await stopProfile();
  await expectSameText(page, thread.id, last.id, 'last turn of the 10k-event thread');
  const dom = () =>
    page.evaluate(() => ({
      all: document.getElementsByTagName('*').length,
      conv: document.querySelector('ol[aria-label="Conversation"]')?.getElementsByTagName('*').length ?? 0,
      turns: document.querySelectorAll('li.turn').length,
    }));
  const d1 = await dom();
  rows.push({
    name: `open ${events} ev`,
    ...openStats,
    extra: `imported in ${importMs} ms; click → last turn painted ${openMs.toFixed(0)} ms; DOM ${d1.all} elements (conversation ${d1.conv}, ${d1.turns} of ${hist.turns.length} turns)`,
  });

  const earlier = await page.getByRole('button', { name: /Show earlier turns/ }).elementHandle();
  await page.evaluate(() => window.__bench.start());
  const earlierMs = await page.evaluate(
    (btn) =>
      new Promise((resolve) => {
        const before = document.querySelectorAll('li.turn').length;
        const t0 = performance.now();
        btn.click();
        const check = () => {
          if (document.querySelectorAll('li.turn').length > before) requestAnimationFrame(() => resolve(performance.now() - t0));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    earlier,
  );
  const earlierStats = await stopRecorder(page);
  const d2 = await dom();
  rows.push({
    name: 'show earlier',
    ...earlierStats,
    extra: `click → turns painted ${earlierMs.toFixed(0)} ms; DOM ${d2.all} elements (${d2.turns} turns)`,
  });

  log('scrolling the conversation from bottom to top');
  const scroller = page.locator('div.thread');
  await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
  const box = await scroller.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const height = await scroller.evaluate((el) => el.scrollHeight - el.clientHeight);
  const stopScrollProfile = await profile(page, 'scroll-10k');
  await page.evaluate(() => window.__bench.start());
  const t0 = Date.now();
  let top = height;
  for (let i = 0; top > 0 && i < 3000; i++) {
    await page.mouse.wheel(0, -200);
    await new Promise((r) => setTimeout(r, 16));
    if (i % 10 === 9) top = await scroller.evaluate((el) => el.scrollTop);
  }
  const scrollSecs = (Date.now() - t0) / 1000;
  const scrollStats = await stopRecorder(page);
  await stopScrollProfile();
  rows.push({
    name: 'scroll 10k',
    ...scrollStats,
    extra: `${height} px in ${scrollSecs.toFixed(1)} s by mouse wheel (200 px a notch)${top > 0 ? `, stopped ${top} px from the top` : ''}`,
  });
}

function printTable() {
  const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
  const head = ['scenario', 'secs', 'frames', 'p50', 'p95', 'p99', 'max', '>50ms', 'longtasks', 'heap MB after GC'];
  const lines = rows.map((r) => [
    r.name,
    f(r.ms / 1000),
    String(r.frames),
    f(r.p50),
    f(r.p95),
    f(r.p99),
    f(r.max, 0),
    String(r.over50),
    r.longN === null ? '-' : `${r.longN} / ${f(r.longMs, 0)} ms`,
    f(r.heapMB),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (l) => l.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  console.log('\nframe times in ms (requestAnimationFrame intervals), headless Chromium');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
  console.log('');
  for (const r of rows) console.log(`${r.name}: ${r.extra}`);
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  // As app's Go tests do (fakeAgentConf): the test binary re-executed as the
  // fake agent. SWITCHBOARD_* variables of the hub's own environment never
  // reach an agent, but one set in the agent's config env does.
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  log('hub at', hub.url);
  const opened = await openPage(hub, { initScript: recorder, args: ['--enable-precise-memory-info'] });
  browser = opened.browser;
  const { page, problems } = opened;

  // An idle second first: what a frame costs with nothing to do.
  await page.evaluate(() => window.__bench.start());
  await new Promise((r) => setTimeout(r, 1000));
  rows.push({ name: 'idle', ...(await stopRecorder(page)), extra: 'the page with no thread open' });

  for (const rate of rates) await streamScenario(page, work, rate);
  await historyScenario(page, work);
  if (hub.proc.exitCode !== null) throw new Error(`the hub exited:\n${hub.log()}`);
  noProblems(problems);
  printTable();
}

await runScript('bench', main, {
  live: () => ({ hub, browser }),
  hubLines: 0,
  onFailure: () => {
    if (rows.length) printTable();
  },
  cleanup: () => tmp.remove(log),
});
