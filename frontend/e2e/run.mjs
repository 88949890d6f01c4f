// End-to-end: the web UI against a real headless hub and the acp-go-sdk
// example agent (a scripted ACP agent: text, tool calls, one permission).
//
//   npm run e2e        (builds dist, the hub and the agent; needs go and /usr/bin/chromium)
//
// Then: reload mid-stream and a dropped event stream (the rendered text
// equals the stored turn output: nothing doubled, nothing missing), cancel
// a turn, a thread made by an editor (X-Client-ID acp-zed) showing live with
// its "editor" badge and an unread mark, deleting it from its header, hand
// edits of the config file (a refused one shows a banner until fixed; a theme
// set by hand applies at once); then the scenarios of e2e/settings.mjs,
// e2e/threadview.mjs, e2e/search.mjs (Ctrl+K search, a hit opened and
// highlighted), e2e/a11y.mjs (axe-core on each view and dialog,
// light and dark, and the keyboard) and e2e/auth.mjs (the browser's
// one-time sign-in, its sessionStorage bearer, Log out).
//
// Screenshots go to <repo>/build/screenshots/: light.png and dark.png (the
// finished turn), new-thread-light.png, permission-{light,dark}.png,
// sidebar-{light,dark}.png (badges and unread mark).
// Env: CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the temp dir,
// E2E_SKIP=settings,threadview,search,a11y,auth leaves out those scenarios.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection, createServer } from 'node:net';
import { go, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, threadAction } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = screenshotDir();
const scratch = tempDir('switchboard-e2e-');
const tmp = scratch.dir;
const work = join(tmp, 'project');
mkdirSync(work);

const log = logger('e2e');

let hub;
let browser;
let problems = [];

/**
 * A TCP proxy in front of the hub, for the page: drop() cuts every open
 * connection (the event stream included) and refuses new ones until
 * restore(), as a network drop would. The hub accepts its address through
 * allowedHosts / allowedOrigins.
 */
async function startProxy() {
  const open = new Set();
  let cut = false;
  let target;
  const server = createServer((c) => {
    if (cut || !target) return void c.destroy();
    const u = createConnection(target.port, target.host);
    const end = () => {
      c.destroy();
      u.destroy();
      open.delete(c);
    };
    open.add(c);
    c.on('error', end).on('close', end);
    u.on('error', end).on('close', end);
    c.pipe(u);
    u.pipe(c);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    to(hubUrl) {
      const u = new URL(hubUrl);
      target = { host: u.hostname, port: Number(u.port) };
    },
    drop() {
      cut = true;
      for (const c of open) c.destroy();
      return open.size;
    },
    restore() {
      cut = false;
    },
    close() {
      for (const c of open) c.destroy();
      server.close();
    },
  };
}
let proxy;

async function main() {
  log('building the hub and the example agent');
  const agentBin = join(tmp, 'sdk-agent');
  go(['build', '-o', agentBin, 'github.com/coder/acp-go-sdk/example/agent']);

  proxy = await startProxy();
  const pageUrl = `http://127.0.0.1:${proxy.port}`;
  log('starting the hub');
  hub = await startHub(
    tmp,
    { sdk: { name: 'SDK', command: agentBin } },
    { allowedHosts: [`127.0.0.1:${proxy.port}`], allowedOrigins: [pageUrl] },
  );
  const { url, api } = hub;
  proxy.to(url);
  log('hub at', url, '- the page goes through', pageUrl);

  // While the network is cut on purpose, failed requests are expected.
  let offline = false;
  let page;
  ({ browser, page, problems } = await openPage(hub, { pageUrl, offline: () => offline }));
  page.setDefaultTimeout(15000);

  const norm = (s) => s.replace(/\s+/g, '');
  // The agent's message text of the turn as the page shows it, and as stored.
  const shownText = (turnId) =>
    page
      .locator(`li.turn[data-turn-id="${turnId}"] .agent .md`)
      .allTextContents()
      .then((a) => a.join(''));
  const storedTurn = async (threadId, turnId) =>
    (await api('GET', `/v1/threads/${threadId}/history`)).turns.find((t) => t.id === turnId);
  const lastTurnId = () => page.locator('li.turn').last().getAttribute('data-turn-id');
  const expectSameText = async (threadId, turnId, what) => {
    const stored = await storedTurn(threadId, turnId);
    const shown = await shownText(turnId);
    if (!stored?.output || norm(shown) !== norm(stored.output)) {
      throw new Error(`${what}: the page shows\n  ${JSON.stringify(shown)}\nbut the turn's output is\n  ${JSON.stringify(stored?.output)}`);
    }
    log(`${what}: ${stored.output.length} characters, the same on the page`);
    return stored;
  };

  log('creating a thread');
  await page.getByRole('button', { name: 'New thread' }).click();
  const dialog = page.getByRole('dialog', { name: 'New thread' });
  await dialog.getByRole('radio', { name: /SDK/ }).check();
  await dialog.getByRole('textbox', { name: 'Folder' }).fill(work);
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('E2E thread');
  await page.screenshot({ path: join(shots, 'new-thread-light.png') });
  await dialog.getByRole('button', { name: 'Create thread' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: 'E2E thread' }).waitFor();
  await page.getByRole('navigation', { name: 'Threads' }).getByText('E2E thread').waitFor();

  log('sending a prompt');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please improve the project configuration');
  await box.press('Enter');
  const conv = page.getByRole('list', { name: 'Conversation' });
  await conv.getByText('Please improve the project configuration').waitFor();
  await conv.getByText(/Let me start by reading some files/).waitFor();
  await conv.locator('details.tool').first().waitFor();

  log('approving the permission');
  const card = conv.getByRole('region', { name: /Permission request: \/home\/user\/project\/config\.json/ });
  await card.waitFor();
  await page.getByRole('button', { name: 'Approvals: 1 pending' }).waitFor();
  const allow = card.getByRole('button', { name: 'Allow this change' });
  await allow.waitFor();
  // Inert at first, then enabled after 500 ms.
  await page.waitForFunction(
    () => {
      const b = [...document.querySelectorAll('button')].find((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”'));
      return b && !b.disabled;
    },
    null,
    { timeout: 5000 },
  );
  await page.screenshot({ path: join(shots, 'permission-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'permission-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await allow.click();
  await card.getByText(/Approved by you, in a browser/).waitFor();
  // The hub recorded the browser login as the browser (from its
  // credential, not from a header the page could choose).
  const decided = (await api('GET', '/v1/permissions')).permissions.filter((p) => p.status === 'approved');
  if (decided.length !== 1 || decided[0].decidedBy !== 'browser') {
    throw new Error(`decidedBy after a click in the browser: ${JSON.stringify(decided.map((p) => p.decidedBy))}, want browser`);
  }
  await conv.getByText(/successfully updated the configuration/).waitFor();
  await page.getByRole('button', { name: 'Approvals: 0 pending' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  const tools = await conv.locator('details.tool summary').allTextContents();
  log('tool calls:', tools.map((t) => t.replace(/\s+/g, ' ').trim()).join(' | '));
  if (tools.length < 2) throw new Error(`expected 2 tool calls, saw ${tools.length}`);

  await page.screenshot({ path: join(shots, 'light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  log('screenshots in', shots);

  const { threads } = await api('GET', '/v1/threads');
  const threadId = threads.find((t) => t.title === 'E2E thread')?.id;
  if (!threadId) throw new Error('the E2E thread is not listed');
  await expectSameText(threadId, await lastTurnId(), 'first turn');

  log('reloading mid-stream');
  await box.fill('Second prompt, reloaded mid-stream');
  await box.press('Enter');
  await conv.getByText('Second prompt, reloaded mid-stream').waitFor();
  const turn2 = await lastTurnId();
  await page.locator(`li.turn[data-turn-id="${turn2}"]`).getByText(/Let me start by reading some files/).waitFor();
  if ((await storedTurn(threadId, turn2))?.status !== 'running') throw new Error('the turn ended before the reload');
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /E2E thread/ }).click();
  const card2 = conv.getByRole('region', { name: /Permission request: \/home\/user\/project\/config\.json/ }).last();
  await card2.getByRole('button', { name: 'Allow this change' }).waitFor();
  await page.waitForFunction(
    () => [...document.querySelectorAll('button')].some((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”') && !x.disabled),
    null,
    { timeout: 5000 },
  );
  await card2.getByRole('button', { name: 'Allow this change' }).click();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  await expectSameText(threadId, turn2, 'reloaded mid-stream');

  log('dropping the event stream mid-turn');
  await box.fill('Third prompt, the stream drops');
  await box.press('Enter');
  await conv.getByText('Third prompt, the stream drops').waitFor();
  const turn3 = await lastTurnId();
  await page.locator(`li.turn[data-turn-id="${turn3}"]`).getByText(/Let me start by reading some files/).waitFor();
  offline = true;
  const seqBefore = await page.evaluate(() => performance.now());
  log(`cut ${proxy.drop()} connection(s)`);
  await page.getByRole('status').filter({ hasText: /Connecting|Disconnected/ }).waitFor({ timeout: 5000 });
  // The agent goes on while the page is cut off: its next chunk lands meanwhile.
  await new Promise((r) => setTimeout(r, 2500));
  proxy.restore();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 20000 });
  offline = false;
  log(`the page reconnected ${((await page.evaluate(() => performance.now())) - seqBefore) / 1000}s after the drop`);
  const card3 = conv.getByRole('region', { name: /Permission request: \/home\/user\/project\/config\.json/ }).last();
  await page.waitForFunction(
    (id) => {
      const li = document.querySelector(`li.turn[data-turn-id="${id}"]`);
      return [...(li?.querySelectorAll('button') ?? [])].some((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”') && !x.disabled);
    },
    turn3,
    { timeout: 15000 },
  );
  await card3.getByRole('button', { name: 'Allow this change' }).click();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  await expectSameText(threadId, turn3, 'after the dropped stream');

  log('cancelling a turn');
  await box.fill('Fourth prompt, to be cancelled');
  await box.press('Enter');
  await conv.getByText('Fourth prompt, to be cancelled').waitFor();
  const turn4 = await lastTurnId();
  await page.locator(`li.turn[data-turn-id="${turn4}"]`).getByText(/demo only/).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.locator(`li.turn[data-turn-id="${turn4}"] .ended .badge.cancelled`).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  const cancelled = await storedTurn(threadId, turn4);
  if (cancelled?.status !== 'cancelled') throw new Error(`the cancelled turn is stored as ${cancelled?.status}`);
  log('turn cancelled: in the page and in history');

  log('a thread from an editor, live in the sidebar');
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const zed = (await api('POST', '/v1/threads', { client: 'acp-zed', body: { agent: 'sdk', cwd: work, title: 'From Zed' } })).thread;
  const zedButton = nav.getByRole('button', { name: /From Zed/ });
  await zedButton.waitFor();
  if (!/editor: ?zed/.test((await zedButton.textContent()) ?? '')) throw new Error('no editor badge on the editor thread');
  // Its turn ends while another thread is shown: unread.
  const zturn = (await api('POST', `/v1/threads/${zed.id}/turns`, { client: 'acp-zed', body: { input: 'hello from the editor' } })).turn;
  await new Promise((r) => setTimeout(r, 400));
  await api('POST', `/v1/turns/${zturn.id}/cancel`, { client: 'acp-zed' });
  await nav.getByRole('button', { name: /^Unread: ?From Zed/ }).waitFor();
  await page.screenshot({ path: join(shots, 'sidebar-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'sidebar-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.reload();
  await nav.getByRole('button', { name: /^Unread: ?From Zed/ }).waitFor(); // kept over a reload
  await nav.getByRole('button', { name: /From Zed/ }).click();
  await page.getByRole('heading', { name: 'From Zed' }).waitFor();
  await nav.getByRole('button', { name: /^From Zed/ }).waitFor();
  log('editor badge and unread mark: ok');

  log('deleting a thread from its header');
  await threadAction(page, 'Delete');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete thread' }).click();
  await nav.getByRole('button', { name: /From Zed/ }).waitFor({ state: 'detached' });
  await page.getByText(/Pick a thread/).waitFor();
  const after = await api('GET', '/v1/threads');
  if (after.threads.some((t) => t.id === zed.id)) throw new Error('the deleted thread is still listed');

  log('hand edits of the config file, seen live');
  const good = readFileSync(hub.config, 'utf8');
  const edit = (over) => writeFileSync(hub.config, JSON.stringify({ ...JSON.parse(good), ...over }, null, 2) + '\n');
  const banner = page.getByRole('alert').filter({ hasText: 'The config file was not applied' });
  edit({ permissons: { timeout: '1m' } }); // a typo: refused, the last good config stays
  await banner.filter({ hasText: /line \d+: unknown key permissons/ }).waitFor();
  edit({ ui: { theme: 'dark' } }); // fixed, and the theme changed by hand: applied at once
  await banner.waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  edit({});
  await page.waitForFunction(() => document.documentElement.dataset.theme !== 'dark');
  log('a refused edit shows until fixed; a theme edited by hand applies without a reload');

  for (const [file, fn] of [
    ['settings.mjs', 'settingsScenario'],
    ['threadview.mjs', 'threadViewScenario'],
    ['search.mjs', 'searchScenario'],
    ['a11y.mjs', 'a11yScenario'],
    ['auth.mjs', 'authScenario'],
  ]) {
    if (!existsSync(join(here, file))) continue;
    if ((process.env.E2E_SKIP ?? '').split(',').includes(file.replace('.mjs', ''))) {
      log(`skipping e2e/${file} (E2E_SKIP)`);
      continue;
    }
    const mod = await import(join(here, file));
    if (typeof mod[fn] !== 'function') throw new Error(`e2e/${file} does not export ${fn}`);
    log(`running ${fn} (e2e/${file})`);
    try {
      await mod[fn](page, { url, log, shots, hub, pageUrl, problems });
    } catch (e) {
      throw new Error(`${fn} (e2e/${file}) failed: ${e instanceof Error ? e.stack || e.message : e}`);
    } finally {
      log(`${fn} done`);
    }
  }

  noProblems(problems);
  log('ok');
}

await runScript('e2e', main, {
  live: () => ({ hub, browser }),
  failureDir: shots,
  hubLines: 0,
  cleanup: (failed) => {
    proxy?.close();
    if (failed && hub) log('hub log:\n' + hub.log().slice(-8192));
    scratch.remove(log);
  },
});
