// The pause that asks (issue 33): a real headless hub with a tokens budget,
// the project's fake ACP agent reporting tokens but no cost, headless
// Chromium.
//
//   node e2e/budgetpause.mjs        (after `vite build`)
//
//   1. A turn crosses budgets.tokens.perThread: the budget question is in
//      the Approvals inbox, says the amounts, offers "Allow 200 tokens more
//      for this turn" and "Stop now" and no "Always…"; the agent's own
//      request is held, not raised (screenshots budget-question-*.png,
//      light and dark, 700 and 1440 wide);
//   2. "Allow … more" in the inbox: the held request comes, is approved,
//      and the turn finishes with the agent's answer;
//   3. Settings → Budgets shows the limits in tokens and minutes, the
//      shares and the prices (screenshots budget-settings-*.png), and the
//      Usage view plots tokens per day and says what holds each agent
//      (screenshots budget-usage-*.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('budgetpause');
const shots = screenshotDir();
const tmp = tempDir('switchboard-budgetpause-');
const proj = tempDir('switchboard-budgetpause-project-');
let hub;
let browser;
const check = checker(log);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Screenshots of target (the page when absent) as name-<scheme>-<width>.png,
 * light and dark, 700 and 1440 wide; before(), if given, runs after each
 * resize (to scroll what is shown into place).
 */
async function shoot(page, name, target, before) {
  for (const width of [1440, 700]) {
    await page.setViewportSize({ width, height: 900 });
    await before?.();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await (target ?? page).screenshot({ path: join(shots, `${name}-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(
    tmp.dir,
    { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1', FAKEAGENT_UNIQUE_SESSIONS: '1' } } },
    {
      budgets: {
        currency: 'USD',
        grace: 0.5,
        tokens: { perThread: 1000, daily: 2000000 },
        minutes: { daily: 240 },
        prices: { 'claude-sonnet-4-5': { input: 3, output: 15 } },
      },
    },
  );
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Refactor the parser' } })).thread;
  const tu = (await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'usage-permission 1200 100000 - USD 900 300' } })).turn;
  let pending = [];
  for (let i = 0; i < 200 && !pending.length; i++) {
    pending = (await api('GET', '/v1/permissions?status=pending')).permissions;
    if (!pending.length) await sleep(50);
  }
  const bp = pending[0];
  check(bp?.kind === 'budget' && bp.request?.budget?.budget === 'tokens.perThread', `the hub raised the budget question: ${JSON.stringify(bp)}`);

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;

  // 1. The question in the inbox; the agent's request held.
  log('1. the budget question in the inbox');
  await page.getByRole('button', { name: 'Approvals: 1 pending' }).click();
  const inbox = page.getByRole('region', { name: 'Pending approvals' });
  const row = inbox.getByRole('listbox', { name: 'Pending requests' }).getByRole('option').first();
  await row.waitFor();
  check((await row.textContent()).includes('1,200 tokens spent'), `the inbox row says the amounts: ${await row.textContent()}`);
  const card = inbox.getByRole('region', { name: /^Permission request in Refactor the parser/ });
  await card.waitFor();
  check((await card.locator('strong.title').textContent()) === 'Spending limit', 'the card says it is a spending limit');
  check(
    (await card.textContent()).includes('reached its per-thread limit of 1,000 tokens (1,200 tokens spent)'),
    'the card says the limit and what was spent',
  );
  await page.waitForFunction(() => [...document.querySelectorAll('[aria-label^="Permission request in"] .options button')].some((b) => !b.disabled));
  const answer = card.getByRole('group', { name: 'Answer' });
  const labels = await answer.getByRole('button').allTextContents();
  check(labels.join('|') === 'Allow 200 tokens more for this turn|Stop now', `the hub's options, by name: ${labels.join('|')}`);
  check((await card.getByRole('button', { name: /Always/ }).count()) === 0, 'no "Always…" for a spending limit');
  check(!(await card.textContent()).includes('The agent says'), 'the amounts are not shown as the agent’s words');
  await sleep(500);
  check((await api('GET', '/v1/permissions?status=pending')).permissions.length === 1, 'the agent’s own request is held while the question waits');
  await shoot(page, 'budget-question');
  // The same question in its thread.
  await inbox.getByRole('link', { name: 'Show in Refactor the parser' }).or(inbox.getByRole('button', { name: 'Show in Refactor the parser' })).click();
  const inThread = page.locator('main, [role="main"]').getByRole('region', { name: /^Permission request: / }).first();
  await inThread.waitFor();
  await inThread.scrollIntoViewIfNeeded();
  check((await inThread.locator('strong.title').textContent()) === 'Spending limit', 'the thread shows the question too');
  await shoot(page, 'budget-thread');
  if (!(await inbox.isVisible())) await page.getByRole('button', { name: 'Approvals: 1 pending' }).click();
  await card.waitFor();

  // 2. Allow more: the held request comes, and the turn finishes.
  log('2. allow more, the held request, the turn finishes');
  await answer.getByRole('button', { name: 'Allow 200 tokens more for this turn' }).click();
  const agentCard = inbox.getByRole('region', { name: /^Permission request in Refactor the parser: / }).filter({ hasNotText: 'Spending limit' });
  await agentCard.waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('[aria-label^="Permission request in"] .options button')].some((b) => !b.disabled));
  await agentCard.getByRole('group', { name: 'Answer' }).getByRole('button', { name: /^Allow once/ }).click();
  const turn = await turnDone(hub, th.id, tu.id);
  check(turn?.status === 'completed' && turn.output.endsWith('outcome: selected allow-once'), `the turn finished: ${turn?.status} ${turn?.output}`);
  const decided = (await api('GET', '/v1/permissions')).permissions.find((p) => p.id === bp.id);
  check(decided.status === 'approved' && decided.optionId === 'allow-more' && decided.decidedBy === 'browser', `audited: ${JSON.stringify(decided)}`);
  await page.keyboard.press('Escape');

  // 3. Settings → Budgets and the Usage view.
  log('3. settings and usage');
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('navigation').getByRole('button', { name: 'Budgets' }).click();
  const budgets = dialog.getByRole('region', { name: 'Budgets' });
  check((await budgets.getByRole('spinbutton', { name: 'Per thread, in tokens' }).inputValue()) === '1000', 'the tokens limit is shown');
  check((await budgets.getByRole('spinbutton', { name: 'Daily, in minutes' }).inputValue()) === '240', 'the minutes limit is shown');
  check((await budgets.getByRole('table', { name: 'Prices' }).textContent()).includes('claude-sonnet-4-5'), 'the price is listed');
  const grace = budgets.getByRole('spinbutton', { name: 'Grace (%)' });
  check((await grace.inputValue()) === '50', 'the grace is shown in percent');
  await shoot(page, 'budget-settings', undefined, () =>
    budgets.getByRole('heading', { name: 'In tokens' }).evaluate((h) => h.scrollIntoView({ block: 'start' })),
  );
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Usage' }).click();
  const usage = page.getByRole('dialog', { name: 'Usage' });
  const tokensPlot = usage.getByRole('img', { name: 'Tokens per day, stacked by agent' });
  await tokensPlot.waitFor();
  check((await tokensPlot.locator('rect[data-agent="fake"]').count()) === 1, 'tokens per day are plotted for the agent without cost');
  check((await usage.getByTestId('held-by').textContent()).includes('fake: its tokens (it reports no cost)'), 'the view says the tokens hold it');
  await shoot(page, 'budget-usage', usage);

  noProblems(problems);
}

await runScript('budgetpause', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
