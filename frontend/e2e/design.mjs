// The design system as people see it: a real headless hub, the project's
// fake ACP agent, headless Chromium.
//
//   node e2e/design.mjs        (after `vite build`)
//
//   1. the sidebar's rows are one dense line each (agent monogram, title,
//      status dot, relative time) and its dots say needs you (a permission
//      waits), running and failed, in the --status-* colours, each with a
//      text alternative;
//   2. the running turn's spinner is the icon, not a text character;
//   3. the list does not reorder under the mouse: a thread that gets newer
//      while the pointer is over the list keeps its place until the
//      pointer leaves;
//   4. screenshots, light and dark, 1440 and 700 px wide, of the main
//      screen and the decision history dialog, and at 1440 of the
//      Approvals inbox and the Usage view (build/screenshots/design-*.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('design');
const shots = screenshotDir();
const tmp = tempDir('switchboard-design-');
const proj = tempDir('switchboard-design-project-');
let hub;
let browser;
const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake Agent', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const mk = async (title) => (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title } })).thread;
  const turn = (th, input) => api('POST', `/v1/threads/${th.id}/turns`, { body: { input } });
  const until = async (what, ok) => {
    for (let i = 0; i < 200; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const status = async (th) => (await api('GET', `/v1/threads/${th.id}`)).thread.status;

  // The page first: how a turn ended reaches it as events.
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.mouse.move(1400, 450);

  const done = await mk('Refactor the parser');
  await turn(done, 'think');
  await until('the first turn to end', async () => (await status(done)) === 'idle');
  const failed = await mk('Crash on start');
  await turn(failed, 'crash');
  await until('the crash to end the turn', async () => (await status(failed)) !== 'running');
  const asking = await mk('Clean the build');
  await turn(asking, 'permission');
  await until('the permission', async () => (await api('GET', '/v1/permissions?status=pending')).permissions.length === 1);
  const busy = await mk('Write the release notes');
  await turn(busy, 'hang');

  const nav = page.getByRole('navigation', { name: 'Threads' });
  const row = (title) => nav.getByRole("button", { name: new RegExp(`^(Unread: ?)?${title}`) });

  // 1. Dense rows and status dots.
  log('1. rows and dots');
  await row('Clean the build').locator('.status.needs-you').waitFor();
  await row('Write the release notes').locator('.status.running').waitFor();
  await row('Crash on start').locator('.status.failed').waitFor();
  check(/needs you: 1 waiting for approval/.test(await row('Clean the build').textContent()), 'the needs-you dot has a text alternative');
  check((await row('Refactor the parser').locator('.status').count()) === 0, 'a finished, seen thread has no dot');
  const box = await row('Refactor the parser').boundingBox();
  const controlH = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--control-h')) * 14);
  check(box && box.height <= controlH + 2, `a row is one line (${box?.height}px, a control is ${controlH}px)`);
  check((await row('Refactor the parser').locator('.monogram').textContent()) === 'FA', 'the row shows the agent monogram');
  const colours = await page.evaluate(() => {
    const probe = document.createElement('span');
    document.body.append(probe);
    const of = (v) => ((probe.style.color = `var(${v})`), getComputedStyle(probe).color);
    const bg = (sel) => getComputedStyle(document.querySelector(sel)).backgroundColor;
    const out = {
      needs: [bg('.status.needs-you'), of('--status-needs-you')],
      running: [bg('.status.running'), of('--status-running')],
      failed: [bg('.status.failed'), of('--status-failed')],
    };
    probe.remove();
    return out;
  });
  for (const [k, [got, want]] of Object.entries(colours)) check(got === want, `the ${k} dot is --status-${k === 'needs' ? 'needs-you' : k} (${got})`);

  // 2. The icon spinner.
  log('2. the spinner');
  await row('Write the release notes').click();
  const working = page.locator('p.working');
  await working.waitFor();
  check((await working.locator('svg.spinner').count()) === 1 && !(await working.textContent()).includes('◐'), 'the running turn shows the icon spinner');

  // 4. Screenshots (before 3 moves the rows).
  log('4. screenshots');
  for (const width of [1440, 700]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.mouse.move(width - 5, 890);
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(shots, `design-main-${width}-${scheme}.png`) });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: /^Approvals/ }).click();
  const inbox = page.getByRole('region', { name: 'Pending approvals' });
  await inbox.locator('.check svg').first().waitFor();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(shots, `design-inbox-1440-${scheme}.png`) });
  }
  await inbox.getByRole('button', { name: 'History…' }).click();
  const history = page.getByRole('dialog', { name: 'Decision history' });
  await history.waitFor();
  for (const width of [1440, 700]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(shots, `design-dialog-${width}-${scheme}.png`) });
    }
  }
  await page.keyboard.press('Escape');
  await history.waitFor({ state: 'detached' });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Usage' }).click();
  const usage = page.getByRole('dialog', { name: 'Usage' });
  await usage.waitFor();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(shots, `design-usage-1440-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await usage.getByRole('button', { name: 'Close' }).click();

  // 3. No reordering under the mouse.
  log('3. the order holds under the pointer');
  const order = async () => (await nav.locator('.title').allTextContents()).map((t) => t.replace(/^Unread: ?/, ''));
  await row('Refactor the parser').waitFor();
  const before = await order();
  check(before.indexOf('Refactor the parser') > 0, `the oldest thread is not first: ${before.join(' | ')}`);
  await row('Crash on start').hover();
  await turn(done, 'think');
  await until('the new turn to end', async () => (await status(done)) === 'idle');
  await until('the hub to announce it', async () => (await api('GET', '/v1/threads')).threads[0].id === done.id);
  await page.waitForTimeout(500); // the event reaches the page; the list must not move
  check(JSON.stringify(await order()) === JSON.stringify(before), 'the list keeps its order while the pointer is over it');
  await page.mouse.move(1400, 450);
  await page.waitForFunction(() => /Refactor the parser$/.test(document.querySelector('nav[aria-label="Threads"] .title')?.textContent ?? ''));
  check((await order())[0] === 'Refactor the parser', 'the newer thread moves up once the pointer leaves');

  noProblems(problems);
}

await runScript('design', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
