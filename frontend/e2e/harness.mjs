// Setup shared by browser scripts that need a real headless hub: build it,
// start `switchboard serve` on a temp data dir with the given agents, sign
// a Chromium page in through a one-time link (POST /v1/auth/codes, then
// GET /auth?code=), talk to the API with the bearer token,
// and stop it all. Used by e2e/run.mjs, e2e/bench.mjs and every scenario
// script (approvals, changes, daily, security, usage); runScript is the
// run-and-clean-up every script ends with.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A log line prefixed with the seconds since the harness was loaded. */
export function logger(name) {
  const t0 = Date.now();
  return (...a) => console.log(`[${name} ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
}

/** A temp dir: dir, and remove() (kept when E2E_KEEP is set; then says where). */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    remove(log) {
      if (process.env.E2E_KEEP) log?.('kept', dir);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A scenario's check(ok, what): throws what unless ok, else logs it as passed. */
export function checker(log) {
  return (ok, what) => {
    if (!ok) throw new Error(what);
    log('ok:', what);
  };
}

/**
 * Builds the project's fake ACP agent (acp/acptest's test binary, run
 * with -test.run=^$ and SWITCHBOARD_FAKE_AGENT=1) into dir; its path.
 */
export function buildFakeAgent(dir) {
  const bin = join(dir, 'fakeagent');
  go(['test', '-c', '-o', bin, './acp/acptest']);
  return bin;
}

/** Runs `go` in the repository, its output on ours. */
export function go(args, env = {}) {
  execFileSync('go', args, { cwd: repo, env: { ...process.env, ...env }, stdio: 'inherit' });
}

/**
 * Builds the headless hub into dir and starts `switchboard serve` with
 * agents (a YAML-ready map: id → {name, command, args?, env?}) and the
 * other config keys of extra (registry.url "" unless extra sets it) on a
 * data dir under dir. Resolves once
 * hub.json is written: {url, token, api, config, log(), stop()}.
 * api(method, path, {body, client}) is the API with the bearer token
 * (scope=all) as client clientId by default, throwing on a non-2xx
 * answer; config is the config file's path.
 */
export async function startHub(dir, agents, extra = {}) {
  const clientId = 'script';
  const bin = join(dir, 'switchboard');
  go(['build', '-tags', 'headless', '-o', bin, '.'], { CGO_ENABLED: '0' });
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const config = join(dir, 'config.yaml');
  // JSON is YAML: the agents map as it is. No ACP registry unless extra
  // names one: no test hub asks the public one (registry.url's default).
  writeFileSync(config, JSON.stringify({ registry: { url: '' }, ...extra, agents }, null, 2) + '\n');
  const proc = spawn(bin, ['serve', '--data-dir', dataDir, '--config', config, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let hubLog = '';
  proc.stderr.on('data', (d) => (hubLog += d));
  const discovery = join(dataDir, 'hub.json');
  for (let i = 0; !existsSync(discovery); i++) {
    if (i > 400 || proc.exitCode !== null) throw new Error(`hub did not start:\n${hubLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(discovery, 'utf8'));
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();

  const api = async (method, path, { body, client = clientId } = {}) => {
    const res = await fetch(`${url}${path}${path.includes('?') ? '&' : '?'}scope=all`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Client-ID': client,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  const stop = async () => {
    if (proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        proc.kill('SIGKILL');
        r();
      }, 5000);
      proc.on('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  };
  return { url, token, api, clientId, config, stop, proc, log: () => hubLog };
}

/**
 * Waits until turn turnId of thread threadId has ended, as the hub stores
 * it (its history's status is no longer "running"), asking every 50 ms for
 * up to timeoutMs; resolves the stored turn ({id, status, output, …}).
 * Throws when it has not ended by then.
 */
export async function turnDone(hub, threadId, turnId, timeoutMs = 30000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
    const t = (await hub.api('GET', `/v1/threads/${threadId}/history`)).turns.find((x) => x.id === turnId);
    if (t && t.status !== 'running') return t;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`turn ${turnId} of thread ${threadId} did not end within ${timeoutMs / 1000} s`);
}

/**
 * Headless Chromium (CHROMIUM, default /usr/bin/chromium) with a page
 * signed in to the hub and showing "Connected". Resolves {browser, page,
 * problems}: problems collects page errors, console errors and HTTP
 * errors of the page. initScript, if given, runs in the page before its
 * own scripts; pageUrl is where the page finds the hub (default hub.url:
 * another when a proxy stands between them); console errors are not
 * problems while offline() says so (a network cut made on purpose).
 */
export async function openPage(hub, { initScript, args = [], pageUrl = hub.url, offline = () => false } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args],
  });
  const context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 860 } });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !offline()) problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  page.setDefaultTimeout(30000);
  // A one-time login link, as the tray opens it (never the token): its
  // page keeps the session's secret in sessionStorage and goes on to "/".
  const { url: link } = await hub.api('POST', '/v1/auth/codes', { body: { next: '/' } });
  const signIn = new URL(link);
  await page.goto(`${pageUrl}${signIn.pathname}${signIn.search}`);
  await page.waitForURL(`${pageUrl}/`);
  if (new URL(page.url()).search !== '') throw new Error(`the code is left in the address: ${page.url()}`);
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  return { browser, page, problems };
}

/**
 * Chooses the item named name from the shown thread's actions menu (the
 * "Thread actions" button of its header), as a user does: opens the menu,
 * clicks the item.
 */
export async function threadAction(page, name) {
  const button = page.getByRole('button', { name: 'Thread actions', exact: true });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await page.getByRole('menu', { name: 'Thread actions' }).getByRole('menuitem', { name, exact: true }).click();
}

/** <repo>/build/screenshots, where the scripts leave their screenshots; made if missing. */
export function screenshotDir() {
  const dir = join(repo, 'build', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Throws when openPage's problems collected anything but one expected
 * refusal: the window opens a new thread's session at once (POST
 * …/session, best effort), and for an agent that needs signing in the hub
 * answers 502 with details.reason AUTH_REQUIRED (openapi.yaml); the first
 * prompt then shows the sign-in. Only as many "502" console lines as such
 * requests are set aside.
 */
export function noProblems(problems) {
  const opens = problems.filter((p) => /^HTTP 502 POST \/v1\/threads\/[^/]+\/session$/.test(p));
  let console502 = opens.length;
  const left = problems.filter((p) => {
    if (opens.includes(p)) return false;
    if (console502 > 0 && /^console: .*status of 502/.test(p)) {
      console502--;
      return false;
    }
    return true;
  });
  if (left.length) throw new Error(`the page reported errors:\n${left.join('\n')}`);
}

/**
 * Runs a script's main() and exits the process: 0 when it resolved, 1 when
 * it threw. live() returns what main started so far ({hub, browser}). On a
 * failure: the error, a screenshot of the browser's first page into
 * failureDir (if given), the hub log's last hubLines lines, then
 * onFailure(), then the error's first line again (a CI log's tail shows
 * it). Always: the browser closed, the hub stopped, then
 * cleanup(failed) (remove temp dirs, close servers).
 */
export async function runScript(name, main, { live, failureDir, hubLines = 30, onFailure, cleanup } = {}) {
  let failed = false;
  try {
    await main();
  } catch (e) {
    failed = true;
    console.error(`[${name}] FAILED:`, e instanceof Error ? e.stack || e.message : e);
    const { hub, browser } = live?.() ?? {};
    if (failureDir) {
      try {
        mkdirSync(failureDir, { recursive: true });
        const pages = browser?.contexts().flatMap((c) => c.pages()) ?? [];
        if (pages[0]) {
          await pages[0].screenshot({ path: join(failureDir, 'failure.png') });
          console.error(`[${name}] failure screenshot in`, failureDir);
        }
      } catch {
        // the browser is gone: best effort
      }
    }
    if (hub && hubLines) console.error(hub.log().split('\n').slice(-hubLines).join('\n'));
    await onFailure?.();
    // Said again last: a CI log shows only its tail.
    console.error(`[${name}] FAILED:`, e instanceof Error ? e.message.split('\n')[0] : e);
  } finally {
    const { hub, browser } = live?.() ?? {};
    await browser?.close().catch(() => {});
    await hub?.stop();
    await cleanup?.(failed);
  }
  process.exit(failed ? 1 : 0);
}
