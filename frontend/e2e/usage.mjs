// The usage ledger and budgets in a real browser against a real headless
// hub and the project's fake agent (its `usage` script command reports
// usage_update with a cumulative cost): the context meter, each turn's
// cost and the thread's, a daily budget that warns, cancels the crossing
// turn and refuses the next one (the page offers "Allow one more turn",
// which lets exactly one through), and the Usage view's plots; axe-core
// (as e2e/a11y.mjs runs it) on the thread with its costs and refusal and on
// the Usage view, light and dark.
//
//   node e2e/usage.mjs   (after vite build; part of npm run e2e)
//
// Screenshots: <repo>/build/screenshots/usage-thread.png and usage-view.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { axeRun, scheme } from './a11y.mjs';
import { buildFakeAgent, checker, logger, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('usage');
const tmp = tempDir('switchboard-usage-');
const shots = screenshotDir();
let hub;
let browser;

const check = checker(log);

/** axe-core (as e2e/a11y.mjs runs it) in light and dark: fails on any violation. */
async function accessible(page, state) {
  const found = [];
  for (const s of ['light', 'dark']) {
    await scheme(page, s);
    for (const v of (await axeRun(page)).violations) found.push(`${state}/${s}: ${v.id} (${v.impact}) ${v.help}: ${v.targets.join(', ')}`);
  }
  await scheme(page, 'light');
  if (found.length) throw new Error(`accessibility violations:\n${found.join('\n')}`);
  log('ok: axe finds nothing in', state, '(light and dark)');
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  hub = await startHub(
    tmp.dir,
    {
      fake: {
        name: 'Fake',
        command: agentBin,
        args: ['-test.run=^$'],
        env: { SWITCHBOARD_FAKE_AGENT: '1', FAKEAGENT_UNIQUE_SESSIONS: '1' },
      },
    },
    { budgets: { currency: 'USD', daily: 1 } },
  );
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);

  const title = 'Costly thread';
  const { thread } = await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title } });
  const nav = page.getByRole('navigation', { name: 'Threads' });
  await nav.getByRole('button', { name: new RegExp(title) }).click();
  await page.getByRole('heading', { name: title }).waitFor();

  const box = page.getByRole('textbox', { name: 'Message' });
  const send = async (text) => {
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
    await box.fill(text);
    await box.press('Enter');
    const li = page.locator('li.turn').last();
    await li.locator('pre.input').filter({ hasText: text.slice(0, 30) }).waitFor();
    await page.waitForFunction(() => !document.querySelector('li.turn:last-child .working'));
    return li;
  };

  log('a turn that reports usage: the context meter, its cost, the thread cost');
  let li = await send('usage 50000 200000 0.40 USD 1200 300');
  const foot = li.getByLabel(/^Turn \d+ usage$/);
  await foot.filter({ hasText: 'cost 0.40 USD' }).waitFor();
  const said = (await li.getByRole('group', { name: 'Agent' }).textContent()) ?? '';
  check(said.split('0.40 USD').length === 2, `the turn says its cost once, in its footer: ${said}`);
  const meter = page.getByRole('group', { name: 'Context usage' });
  await meter.filter({ hasText: /50k \/ 200k \(25%\)/i }).waitFor();
  check((await meter.locator('meter').getAttribute('value')) === '0.25', 'the context meter shows 50k of 200k');
  await page.getByLabel('Thread cost').filter({ hasText: 'This thread has cost 0.40 USD' }).waitFor();
  check(true, 'the turn and the thread show their cost from the ledger');

  log('the next turn costs the increase, and reaches 80 % of the daily budget');
  li = await send('usage 60000 200000 0.90 USD');
  await li.getByLabel(/^Turn \d+ usage$/).filter({ hasText: 'cost 0.50 USD' }).waitFor();
  await page.getByLabel('Thread cost').filter({ hasText: 'This thread has cost 0.90 USD' }).waitFor();
  await page.getByRole('status').filter({ hasText: 'The daily budget is at 90 %: 0.90 USD of 1.00 USD.' }).waitFor();
  check(true, 'the page shows the budget_warning');
  await page.screenshot({ path: join(shots, 'usage-thread.png') });

  log('the crossing turn is cancelled');
  li = await send('usage-hang 70000 200000 1.20 USD');
  await li.locator('.badge.cancelled').waitFor();
  const events = await fetch(`${hub.url}/v1/events?scope=all&after=0`, {
    headers: { Authorization: `Bearer ${hub.token}`, 'X-Client-ID': 'script', Accept: 'text/event-stream' },
    signal: AbortSignal.timeout(2000),
  })
    .then(async (r) => {
      const reader = r.body.getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (text.includes('budget_exceeded')) break;
      }
      reader.cancel().catch(() => {});
      return text;
    })
    .catch((e) => String(e));
  check(/event: budget_warning/.test(events) && /event: budget_exceeded/.test(events), 'budget_warning and budget_exceeded were announced');
  await page.getByRole('status').filter({ hasText: 'The daily budget is spent (1.20 USD of 1.00 USD)' }).waitFor();
  check(true, 'the page shows the budget_exceeded');

  log('the next turn is refused; one override lets exactly one through');
  await box.fill('echo refused');
  await box.press('Enter');
  const blocked = page.getByRole('alert', { name: 'Budget spent' });
  await blocked.filter({ hasText: 'The daily budget is spent: 1.20 USD of 1.00 USD' }).waitFor();
  // Said once: the refusal's banner, not a toast as well, and the
  // event's notice gives way to it.
  check((await page.locator('.toasts [role="alert"]').count()) === 0, 'no toast beside the banner');
  check((await page.getByRole('status').filter({ hasText: 'The daily budget is spent (' }).count()) === 0, 'the notice gave way to the banner');
  await accessible(page, 'thread with costs and refusal');
  await blocked.getByRole('button', { name: 'Allow one more turn' }).click();
  await blocked.waitFor({ state: 'detached' });
  li = await send('echo allowed once');
  check((await li.locator('.badge').count()) === 0 && (await li.textContent()).includes('allowed once'), 'the overridden turn ran');
  await box.fill('echo refused again');
  await box.press('Enter');
  await blocked.waitFor();
  check(true, 'the turn after it is refused again');
  const overrides = await hub.api('GET', '/v1/usage?by=thread');
  check(Math.abs(overrides.buckets.find((b) => b.key === thread.id).cost.USD - 1.2) < 1e-9, 'GET /v1/usage totals 1.20 USD for the thread');

  log('the Usage view');
  await page.getByRole('button', { name: 'Usage' }).click();
  const view = page.getByRole('dialog', { name: 'Usage' });
  const plot = view.getByRole('img', { name: 'Cost per day, stacked by agent' });
  await plot.locator('rect[data-agent="fake"]').first().waitFor();
  await view.getByRole('img', { name: 'Threads that cost most' }).filter({ hasText: title }).waitFor();
  await view.getByRole('img', { name: 'Threads that cost most' }).filter({ hasText: '1.20 USD' }).waitFor();
  await page.screenshot({ path: join(shots, 'usage-view.png') });
  await accessible(page, 'Usage view');
  check(true, 'the Usage view plots cost per day by agent and the thread that cost most');

  // The two refusals are the 409s the page expected; nothing else.
  const unexpected = problems.filter((p) => !/HTTP 409 POST \/v1\/threads\/[^/]+\/turns|status of 409/.test(p));
  if (unexpected.length) throw new Error(`the page reported errors:\n${unexpected.join('\n')}`);
  log('ok');
}

await runScript('usage', main, { live: () => ({ hub, browser }), hubLines: 20, cleanup: () => tmp.remove(log) });
