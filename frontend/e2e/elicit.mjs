// The agents' questions (elicitation, issue 16) through the real UI: a real
// headless hub, the project's fake ACP agent ("elicit <json>" sends
// elicitation/create and says the answer), headless Chromium.
//
//   node e2e/elicit.mjs        (after `vite build`; npm run e2e runs it)
//
//   1. a form is answered from the Approvals inbox: its message shown as
//      text (markup inert), an empty required field refused on the page
//      before anything is sent, then sent: the agent gets the typed
//      content, the hub stored it accepted by "browser"; 1b. a form with
//      an email, a date-time and a pattern: the browser's own inputs, a
//      malformed email refused on the page, a code the pattern refuses
//      refused by the hub (the page never runs an agent's pattern), the
//      time sent as RFC 3339;
//   2. a form declined, 3. cancelled: the agent gets decline / cancel;
//   4. a form nobody answers (permissions.timeout set to 2 s through the
//      settings) leaves the inbox: expired, the agent got cancel;
//   5. a link: shown whole, its host emphasised; Open opens it in a new
//      tab with no opener and this page never navigates; Done accepts
//      (screenshot build/screenshots/question-link.png);
//   6. the script the desktop app injects into its window (app/desktop.go
//      focusScript) reports the thread the page shows ("window:thread")
//      as the real router moves (a click in the list, back, "#/"), for
//      the notification rule "nothing about the thread you look at".
// The page reports no error, no HTTP error and no failed request.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, repo, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';
import { axeRun, scheme } from './a11y.mjs';

const log = logger('elicit');
const shots = screenshotDir();
const tmp = tempDir('switchboard-elicit-');
let hub;
let browser;
const check = checker(log);

const form = {
  mode: 'form',
  message: '<img src=x onerror="window.__pwned=1"> Which <b>branch</b>?',
  requestedSchema: {
    type: 'object',
    properties: {
      branch: { type: 'string', title: 'Branch' },
      count: { type: 'integer', title: 'Count', minimum: 1, maximum: 5 },
      force: { type: 'boolean', title: 'Force' },
    },
    required: ['branch'],
  },
};
const elicit = (q) => `elicit ${JSON.stringify(q)}`;

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
  hub = await startHub(tmp.dir, { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } }, {
    permissions: { timeout: '10m' },
  });
  const { api } = hub;
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const home = page.url();

  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title: 'Questions' } })).thread;
  const send = async (input) => (await api('POST', `/v1/threads/${th.id}/turns`, { body: { input } })).turn;
  const questionOf = async (turn) => (await api('GET', `/v1/elicitations?threadId=${th.id}`)).elicitations.find((e) => e.turnId === turn.id);

  await page.getByRole('button', { name: /^Approvals: 0 pending/ }).click();
  const inbox = page.getByRole('region', { name: 'Pending approvals' });
  const card = inbox.getByRole('article', { name: /Question from Fake/ });
  const armed = () => page.waitForFunction(() => [...document.querySelectorAll('article.question button')].some((b) => !b.disabled));

  log('1. a form answered from the inbox');
  let turn = await send(elicit(form));
  await card.waitFor();
  await page.getByRole('button', { name: 'Approvals: 1 waiting — 0 pending, 1 question' }).waitFor();
  check((await card.locator('img, b').count()) === 0, 'markup in the message is not rendered');
  check((await card.getByText('Which <b>branch</b>?', { exact: false }).count()) === 1, 'the message is shown as text');
  check((await page.evaluate(() => window.__pwned)) === undefined, 'no script of the message ran');
  await armed();
  await card.getByRole('button', { name: 'Send' }).click();
  await card.getByText('Required.').waitFor();
  await accessible(page, 'question-form');
  check((await questionOf(turn)).status === 'pending', 'an empty required field is refused on the page, nothing sent');
  await card.getByLabel('Branch (required)').fill('main');
  await card.getByLabel('Count').fill('3');
  await card.getByLabel('Force').check();
  await card.getByRole('button', { name: 'Send' }).click();
  await card.waitFor({ state: 'detached' });
  let done = await turnDone(hub, th.id, turn.id);
  check(done.output === 'elicit: {"action":"accept","content":{"branch":"main","count":3,"force":true}}', `the agent got the content (${done.output})`);
  let q = await questionOf(turn);
  check(q.status === 'accepted' && q.decidedBy === 'browser', `stored ${q.status} by ${q.decidedBy}`);

  log('1b. formats and a pattern');
  turn = await send(
    elicit({
      mode: 'form',
      message: 'When, and who?',
      requestedSchema: {
        type: 'object',
        properties: {
          email: { type: 'string', title: 'Email', format: 'email' },
          when: { type: 'string', title: 'When', format: 'date-time' },
          code: { type: 'string', title: 'Code', pattern: '^[A-Z]{3}-[0-9]+$' },
        },
        required: ['email', 'when', 'code'],
      },
    }),
  );
  await card.waitFor();
  await armed();
  check((await card.getByLabel('Email (required)').getAttribute('type')) === 'email', 'an email field is an email input');
  check((await card.getByLabel('When (required)').getAttribute('type')) === 'datetime-local', 'a date-time field is a datetime-local input');
  check((await card.getByText('Must match ^[A-Z]{3}-[0-9]+$').count()) === 1, 'the pattern is shown, as text');
  await card.getByLabel('Email (required)').fill('ann');
  await card.getByLabel('When (required)').fill('2026-11-25T16:00');
  await card.getByLabel('Code (required)').fill('abc-1');
  await card.getByRole('button', { name: 'Send' }).click();
  await card.getByText('An email address.').waitFor();
  check((await questionOf(turn)).status === 'pending', 'a malformed email is refused on the page, nothing sent');
  await card.getByLabel('Email (required)').fill('ann@example.org');
  await card.getByRole('button', { name: 'Send' }).click();
  await card.getByText(/does not match the pattern/).waitFor();
  const asked = await questionOf(turn);
  check(asked.status === 'pending', 'the hub refused the code its pattern does not match; still pending');
  // That refusal (400) was the point: it is not a problem of the page.
  for (const e of [`HTTP 400 POST /v1/elicitations/${asked.id}`, 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)']) {
    const i = problems.indexOf(e);
    check(i >= 0, `the page saw the refusal: ${e}`);
    problems.splice(i, 1);
  }
  await card.getByLabel('Code (required)').fill('ABC-1');
  await card.getByRole('button', { name: 'Send' }).click();
  await card.waitFor({ state: 'detached' });
  done = await turnDone(hub, th.id, turn.id);
  const when = await page.evaluate(() => new Date('2026-11-25T16:00').toISOString());
  check(
    done.output === `elicit: {"action":"accept","content":{"code":"ABC-1","email":"ann@example.org","when":"${when}"}}`,
    `the agent got the content, the time as RFC 3339 (${done.output})`,
  );

  for (const [action, button, status] of [
    ['decline', 'Decline', 'declined'],
    ['cancel', 'Cancel', 'cancelled'],
  ]) {
    log(`${action === 'decline' ? 2 : 3}. a form ${status}`);
    turn = await send(elicit(form));
    await card.waitFor();
    await armed();
    await card.getByRole('button', { name: button, exact: true }).click();
    await card.waitFor({ state: 'detached' });
    done = await turnDone(hub, th.id, turn.id);
    check(done.output === `elicit: {"action":"${action}"}`, `the agent got ${action}`);
    q = await questionOf(turn);
    check(q.status === status && q.decidedBy === 'browser', `stored ${q.status} by ${q.decidedBy}`);
  }

  log('4. a question nobody answers expires');
  // PATCH /v1/settings answers once the new file is applied.
  await api('PATCH', '/v1/settings', { body: { permissions: { timeout: '2s' } } });
  turn = await send(elicit(form));
  await card.waitFor();
  await card.waitFor({ state: 'detached', timeout: 15000 });
  done = await turnDone(hub, th.id, turn.id);
  check(done.output === 'elicit: {"action":"cancel"}', 'the agent got cancel at the deadline');
  q = await questionOf(turn);
  check(q.status === 'expired' && q.decidedBy === 'timeout', `stored ${q.status} by ${q.decidedBy}`);
  await api('PATCH', '/v1/settings', { body: { permissions: { timeout: '10m' } } });

  log('5. a link opens in a new tab, never here');
  const url = 'http://127.0.0.1:9/device?code=42&next=https://evil.example/';
  turn = await send(elicit({ mode: 'url', message: 'Sign in to <i>continue</i>', elicitationId: 'e1', url }));
  await card.waitFor();
  check((await card.locator('.url').textContent()) === url, 'the whole URL is shown');
  check((await card.locator('.url strong.host').textContent()) === '127.0.0.1:9', 'its host is emphasised');
  check((await card.locator('a').count()) === 0, 'there is no link to follow in the page');
  await page.screenshot({ path: join(shots, 'question-link.png') });
  await accessible(page, 'question-link');
  await armed();
  // The "sign-in page" the link names, served by the test.
  await page.context().route('http://127.0.0.1:9/**', (r) => r.fulfill({ contentType: 'text/html', body: '<p>device sign-in</p>' }));
  const popup = page.context().waitForEvent('page');
  await card.getByRole('button', { name: 'Open 127.0.0.1:9 in the browser' }).click();
  const tab = await popup;
  await tab.waitForLoadState();
  check(tab.url() === url, `the link opened in a new tab (${tab.url()})`);
  check((await tab.evaluate(() => window.opener)) === null, 'the new tab has no opener');
  await tab.close();
  check(page.url() === home, `this page never navigated (${page.url()})`);
  await card.getByRole('button', { name: 'Done' }).click();
  await card.waitFor({ state: 'detached' });
  done = await turnDone(hub, th.id, turn.id);
  check(done.output === 'elicit: {"action":"accept"}', 'Done accepts the link');
  check(page.url() === home, 'still on the same page');

  log('6. the window reports the thread it shows');
  const go = readFileSync(join(repo, 'app', 'desktop.go'), 'utf8');
  const m = /const focusScript = ((?:`[^`]*`\s*\+\s*)*`[^`]*`)/.exec(go);
  if (!m) throw new Error('focusScript not found in app/desktop.go');
  const focusScript = [...m[1].matchAll(/`([^`]*)`/g)].map((x) => x[1]).join('');
  await page.evaluate(() => {
    window.__emitted = [];
    window.runtime = { EventsEmit: (name, v) => window.__emitted.push([name, v]) };
  });
  await page.evaluate(focusScript);
  const lastThread = () => page.evaluate(() => window.__emitted.filter((e) => e[0] === 'window:thread').at(-1)?.[1]);
  check((await lastThread()) === '', 'no thread shown: ""');
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /Questions/ }).click();
  await page.getByRole('heading', { name: 'Questions' }).waitFor();
  await page.waitForFunction((id) => window.__emitted.some((e) => e[0] === 'window:thread' && e[1] === id), th.id);
  check((await lastThread()) === th.id, 'selecting the thread reports its id');
  await page.evaluate(() => (location.hash = '#/'));
  await page.waitForFunction(() => window.__emitted.filter((e) => e[0] === 'window:thread').at(-1)?.[1] === '');
  check(true, 'leaving it reports ""');
  await page.goBack();
  await page.waitForFunction((id) => window.__emitted.filter((e) => e[0] === 'window:thread').at(-1)?.[1] === id, th.id);
  check(true, 'back reports the thread again');
  check(
    (await page.evaluate(() => window.__emitted.filter((e) => e[0] === 'window:focus').length)) > 0,
    'and the focus is reported (window:focus)',
  );

  noProblems(problems);
}

await runScript('elicit', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) tmp.remove(log);
  },
});
