// The approval card (issue 29): one card per tool call, its buttons in
// Switchboard's order, one "Always…" menu, and the agent's own "always"
// for a command remembered by the hub for exactly that command — a real
// headless hub, the project's fake ACP agent (ask-always-terminal: an
// agent that keeps its own "always", like claude-agent-acp), headless
// Chromium.
//
//   node e2e/card.mjs        (after `vite build`)
//
//   1. the agent asks to run `echo hi`: the thread shows ONE card, the
//      tool call's, with the request (the hub's command line) and the
//      buttons "Allow once" (filled), "Deny", "Always…"; the turn is
//      numbered (screenshots card-pending-{light,dark}-{700,1440}.png);
//   2. "Always…" opens from the keyboard, lists the hub's scopes and the
//      agent's own option, Escape closes it and gives focus back
//      (card-menu.png); choosing the agent's option approves;
//   3. the card shows its decided state in place: "Approved by you …"
//      (card-decided-{light,dark}-{700,1440}.png);
//   4. the agent runs `echo hi` again without asking: nobody is asked, the
//      hub's terminal permission is decided by the remembered rule;
//      `echo bye` is asked;
//   5. after a reload the decided card is still in its tool call's card
//      (card-reloaded-{light,dark}-{700,1440}.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('card');
const shots = screenshotDir();
const tmp = tempDir('switchboard-card-');
const proj = tempDir('switchboard-card-project-');
let hub;
let browser;
const check = checker(log);

/** Screenshots of the page at 700 and 1440 px wide, light and dark. */
async function shoot(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [700, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(shots, `${name}-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Card' } })).thread;
  const pending = async () => (await api('GET', '/v1/permissions?status=pending')).permissions;
  const turnEnds = async (n) => {
    for (let i = 0; i < 300; i++) {
      const h = (await api('GET', `/v1/threads/${th.id}/history`)).turns ?? [];
      if (h.length >= n && h[n - 1].status !== 'running') return h[n - 1];
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`turn ${n} did not end`);
  };
  await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'ask-always-terminal echo hi' } });
  for (let i = 0; i < 200 && !(await pending()).length; i++) await new Promise((r) => setTimeout(r, 50));

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;

  log('1. one card per tool call');
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /^Card/ }).click();
  await page.getByRole('heading', { name: 'Card', exact: true }).waitFor();
  const conv = page.getByRole('list', { name: 'Conversation' });
  const region = conv.getByRole('region', { name: 'Permission request: echo hi' });
  await region.waitFor();
  check((await conv.locator('.tool-card').count()) === 1, 'one tool call card');
  check((await conv.locator('section.permission').count()) === 1, 'one permission, shown once');
  const card = conv.locator('.tool-card').filter({ has: page.getByRole('region', { name: 'Permission request: echo hi' }) });
  check((await card.count()) === 1, 'the permission is inside its tool call’s card');
  check((await card.locator('summary .title').textContent()) === 'echo hi', 'the card’s title is the command that runs');
  check((await region.getByRole('group', { name: 'Command' }).textContent()) === 'echo hi', 'the card shows the hub’s command line');
  check((await conv.getByText('Turn 1', { exact: true }).count()) === 1, 'the turn is numbered');
  const answer = region.getByRole('group', { name: 'Answer' });
  await page.waitForFunction(() => [...document.querySelectorAll('.options button')].some((b) => !b.disabled));
  const labels = await answer.locator(':scope > button, :scope > .always > button').allTextContents();
  check(JSON.stringify(labels) === JSON.stringify(['Allow once', 'Deny', 'Always…']), `buttons in Switchboard's order: ${JSON.stringify(labels)}`);
  check(await answer.getByRole('button', { name: 'Allow once' }).evaluate((b) => b.classList.contains('primary')), '"Allow once" is the filled one');
  check(!(await answer.getByRole('button', { name: 'Always…' }).evaluate((b) => b.classList.contains('primary'))), '"Always…" is plain');
  await card.scrollIntoViewIfNeeded();
  await shoot(page, 'card-pending');

  log('2. the Always… menu');
  const always = answer.getByRole('button', { name: 'Always…' });
  await always.focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'Always…' });
  await menu.waitFor();
  const items = (await menu.getByRole('menuitem').allTextContents()).map((s) => s.replace(/, in the agent's words:/, '').replace(/\s+/g, ' ').trim());
  check(items.includes('Always allow in this thread') && items.includes('Always deny in this folder'), `the hub's scopes: ${JSON.stringify(items)}`);
  check(items.some((s) => s.startsWith("Always allow (the agent's option)")), 'the agent’s own option');
  check(new Set(items).size === items.length, 'no two items alike');
  check(await menu.getByRole('menuitem').first().evaluate((el) => el === document.activeElement), 'focus on the first item');
  await page.screenshot({ path: join(shots, 'card-menu.png') });
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  check(await always.evaluate((el) => el === document.activeElement), 'Escape gives focus back to "Always…"');
  await always.click();
  await menu.getByRole('menuitem', { name: /the agent's option/ }).click();

  log('3. decided, in place');
  const decided = card.locator('.resolved');
  await decided.waitFor();
  const said = (await decided.textContent()) ?? '';
  check(/^Approved by you, in a browser at .+ · Always allow “Always allow echo”$/.test(said), `who decided, when, what: ${said}`);
  await turnEnds(1);
  check((await conv.locator('section.permission').count()) === 1, 'still one card after the decision');
  await shoot(page, 'card-decided');

  log('4. the same command again: nobody asked; another one is');
  await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'ask-always-terminal echo hi' } });
  const t2 = await turnEnds(2);
  check(/ask-always-terminal remembered/.test(t2.output) && /terminal exit 0/.test(t2.output), `the agent ran it again: ${t2.output}`);
  const all = (await api('GET', `/v1/permissions?threadId=${th.id}`)).permissions;
  const term = all.find((p) => p.turnId === t2.id && p.kind === 'terminal');
  check(term?.decidedBy?.startsWith('remembered:'), `its terminal was decided by the remembered rule: ${term?.decidedBy}`);
  check(!all.some((p) => p.status === 'pending'), 'nobody was asked');
  await conv.getByText('Turn 2', { exact: true }).waitFor();
  await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'ask-always-terminal echo bye' } });
  await conv.getByRole('region', { name: 'Permission request: echo bye' }).waitFor();
  check(true, 'echo bye is asked');
  const bye = (await pending()).find((p) => p.request?.argv?.join(' ') === 'echo bye');
  await api('POST', `/v1/permissions/${bye.id}`, { body: { outcome: 'declined' } });
  await turnEnds(3);

  log('5. after a reload');
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /^Card/ }).click();
  const conv2 = page.getByRole('list', { name: 'Conversation' });
  const again = conv2.getByRole('region', { name: 'Permission request: echo hi', exact: true });
  await again.waitFor();
  const kept = (await again.locator('.resolved').textContent()) ?? '';
  check(/^Approved by you, in a browser at /.test(kept), `the decided card is kept after a reload: ${kept}`);
  check((await again.locator('xpath=ancestor::*[contains(@class,"tool-card")]').count()) === 1, 'still inside its tool call’s card');
  // The terminal that ran under the approval is not shown again; the
  // second turn's, which nobody was asked about, says who let it run.
  check((await conv2.locator('section.permission').count()) === 3, 'three cards: the approval, the remembered terminal, echo bye');
  const ruled = conv2.getByRole('region', { name: 'Permission request: echo hi (2)' });
  check(/^Approved by a remembered decision/.test((await ruled.locator('.resolved').textContent()) ?? ''), 'the terminal decided by the remembered rule says so');
  const byeCard = page.getByRole('region', { name: 'Permission request: echo bye' });
  check(/^Declined by /.test((await byeCard.locator('.resolved').textContent()) ?? ''), 'the declined one too');
  await shoot(page, 'card-reloaded');

  noProblems(problems);
}

await runScript('card', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
