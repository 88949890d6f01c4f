// End-to-end: the web UI against a real headless hub and the acp-go-sdk
// example agent (a scripted ACP agent: text, tool calls, one permission).
//
//   npm run e2e        (builds dist, the hub and the agent; needs go and /usr/bin/chromium)
//
// Screenshots go to <repo>/build/screenshots/: light.png and dark.png (the
// finished turn), new-thread-light.png, permission-{light,dark}.png.
// Env: CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the temp dir.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const shots = join(repo, 'build', 'screenshots');
const tmp = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
const dataDir = join(tmp, 'data');
const work = join(tmp, 'project');
mkdirSync(work);

const t0 = Date.now();
const log = (...a) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

let hub;
let browser;
let failed = false;

async function main() {
  log('building the hub and the example agent');
  const hubBin = join(tmp, 'switchboard');
  const agentBin = join(tmp, 'sdk-agent');
  execFileSync('go', ['build', '-tags', 'headless', '-o', hubBin, '.'], {
    cwd: repo,
    env: { ...process.env, CGO_ENABLED: '0' },
    stdio: 'inherit',
  });
  execFileSync('go', ['build', '-o', agentBin, 'github.com/coder/acp-go-sdk/example/agent'], { cwd: repo, stdio: 'inherit' });

  const config = join(tmp, 'config.yaml');
  writeFileSync(config, `agents:\n  sdk:\n    name: SDK\n    command: ${JSON.stringify(agentBin)}\n`);

  log('starting the hub');
  hub = spawn(hubBin, ['serve', '--data-dir', dataDir, '--config', config, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let hubLog = '';
  hub.stderr.on('data', (d) => (hubLog += d));
  hub.on('exit', (code) => {
    if (!failed && code !== null && code !== 0) log('hub exited', code, '\n' + hubLog);
  });
  const discovery = join(dataDir, 'hub.json');
  for (let i = 0; !existsSync(discovery); i++) {
    if (i > 200 || hub.exitCode !== null) throw new Error(`hub did not start:\n${hubLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(discovery, 'utf8'));
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  log('hub at', url);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  page.setDefaultTimeout(15000);

  // The one-time auth link sets the session cookie and redirects to "/".
  await page.goto(`${url}/auth?token=${token}`);
  if (new URL(page.url()).search !== '') throw new Error(`token left in the address: ${page.url()}`);
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();

  log('creating a thread');
  await page.getByRole('button', { name: 'New thread' }).click();
  const dialog = page.getByRole('dialog', { name: 'New thread' });
  await dialog.getByRole('radio', { name: /SDK/ }).check();
  await dialog.getByRole('textbox', { name: 'Folder' }).fill(work);
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('E2E thread');
  mkdirSync(shots, { recursive: true });
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
  const card = conv.getByRole('region', { name: /Permission request: Modifying critical configuration file/ });
  await card.waitFor();
  await page.getByRole('button', { name: 'Approvals: 1 pending' }).waitFor();
  const allow = card.getByRole('button', { name: 'Allow this change' });
  await allow.waitFor();
  // Inert at first, then enabled after 500 ms.
  await page.waitForFunction(
    () => {
      const b = [...document.querySelectorAll('button')].find((x) => x.textContent === 'Allow this change');
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
  await card.getByText(/decided by you/).waitFor();
  await conv.getByText(/successfully updated the configuration/).waitFor();
  await page.getByRole('button', { name: 'Approvals: 0 pending' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  const tools = await conv.locator('details.tool summary').allTextContents();
  log('tool calls:', tools.map((t) => t.replace(/\s+/g, ' ').trim()).join(' | '));
  if (tools.length < 2) throw new Error(`expected 2 tool calls, saw ${tools.length}`);

  await page.screenshot({ path: join(shots, 'light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'dark.png') });
  log('screenshots in', shots);

  if (problems.length) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
  log('ok');
}

try {
  await main();
} catch (e) {
  failed = true;
  console.error('[e2e] FAILED:', e instanceof Error ? e.stack || e.message : e);
  try {
    mkdirSync(shots, { recursive: true });
    const pages = browser?.contexts().flatMap((c) => c.pages()) ?? [];
    if (pages[0]) await pages[0].screenshot({ path: join(shots, 'failure.png') });
  } catch {
    // best effort
  }
} finally {
  await browser?.close().catch(() => {});
  if (hub && hub.exitCode === null) {
    hub.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        hub.kill('SIGKILL');
        r();
      }, 5000);
      hub.on('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  }
  if (!process.env.E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
  else log('kept', tmp);
}
process.exit(failed ? 1 : 0);
