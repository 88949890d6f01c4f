// Approvals with leverage through the real UI: a real headless hub with
// permissions.rules in its config file, the project's fake ACP agent
// (acp/acptest: "ask {toolCall, options}" asks for one permission and says
// the answer; "permissions N" asks N at once), headless Chromium.
//
//   node e2e/approvals.mjs        (after `vite build`; npm run e2e runs it)
//
//   1. a config rule (reads-in-project: kind read → allow) lets a read
//      through with nobody answering; the decision history shows
//      "rule: reads-in-project" for it (and the hub stored decidedBy
//      rule:reads-in-project);
//   2. "Always…" → "Always allow in this thread" on a card: the card
//      says what was remembered; the next identical request in that thread
//      passes with nobody answering (decidedBy remembered:<id>), the same
//      request in another thread waits; Settings lists the remembered
//      decision, and Remove deletes it (GET /v1/rules is empty); the rules
//      editor: a rule with a bad expression is refused by the hub on its
//      Match field, fixed it is saved, moved first and removed;
//   3. three pending requests across two threads are approved from the
//      inbox with the keyboard (Space to select, ↓ to move, Enter): one
//      batch call, each approved by the browser, both turns end
//      (screenshots in build/screenshots/: inbox-selection.png, and
//      history.png and rules-editor.png of steps 1 and 2);
//   4. Settings saves escalateAfter 2 s; a request nobody answers is marked
//      escalated in the inbox (permission_escalated), then denied with
//      Delete.
// The page reports no error, no HTTP error and no failed request.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('approvals');
const shots = screenshotDir();
const tmp = tempDir('switchboard-approvals-');
let hub;
let browser;

const check = checker(log);

const options = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
/** The fake agent's prompt that asks for one permission. */
const ask = (toolCall) => `ask ${JSON.stringify({ toolCall, options })}`;
const runMake = (id) => ask({ toolCallId: id, title: 'Run make test', kind: 'execute', status: 'pending', rawInput: { command: 'make test' } });

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  hub = await startHub(
    tmp.dir,
    { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } },
    { permissions: { timeout: '10m', rules: [{ name: 'reads-in-project', kinds: ['read'], decision: 'allow' }] } },
  );
  const { api } = hub;
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const nav = page.getByRole('navigation', { name: 'Threads' });

  const newThread = async (title) => (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title } })).thread;
  const send = async (th, input) => (await api('POST', `/v1/threads/${th.id}/turns`, { body: { input } })).turn;
  const permissionsOf = async (turn) => (await api('GET', '/v1/permissions')).permissions.filter((p) => p.turnId === turn.id);
  const waitPending = async (n) => {
    for (let i = 0; i < 200; i++) {
      const ps = (await api('GET', '/v1/permissions?status=pending')).permissions;
      if (ps.length === n) return ps;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`never ${n} pending requests`);
  };
  const openThread = async (title) => {
    await nav.getByRole('button', { name: new RegExp(title) }).click();
    await page.getByRole('heading', { name: title }).waitFor();
  };
  /** Waits until a freshly shown card's answers are armed (500 ms). */
  const armed = (scope) =>
    page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .options button`)].some((b) => !b.disabled), scope);

  // 1. A config rule decides with nobody answering.
  log('1. a config rule lets a read through');
  const reads = await newThread('Reads');
  let turn = await send(reads, ask({ toolCallId: 'r1', title: 'Read README.md', kind: 'read', status: 'pending' }));
  let done = await turnDone(hub, reads.id, turn.id);
  check(/"optionId":"allow"/.test(done.output), `the agent got allow with nobody answering (${done.output.trim()})`);
  let [p] = await permissionsOf(turn);
  check(p?.status === 'approved' && p.decidedBy === 'rule:reads-in-project', `stored decidedBy ${p?.decidedBy}`);
  await page.getByRole('button', { name: 'Approvals: 0 pending' }).click();
  await page.getByRole('region', { name: 'Pending approvals' }).getByRole('button', { name: 'History…' }).click();
  const history = page.getByRole('dialog', { name: 'Decision history' });
  await history.getByRole('combobox', { name: 'Decided by' }).selectOption('rule:');
  const row = history.getByRole('row').filter({ hasText: 'Read README.md' });
  await row.getByRole('cell', { name: 'rule: reads-in-project' }).waitFor();
  check((await row.getByRole('cell').nth(2).textContent()) === 'Reads', 'the history row names the thread');
  await page.screenshot({ path: join(shots, 'history.png') });
  await page.keyboard.press('Escape');
  await history.waitFor({ state: 'detached' });
  await page.keyboard.press('Escape'); // the Approvals panel
  await page.getByRole('region', { name: 'Pending approvals' }).waitFor({ state: 'detached' });
  check(true, 'the decision history shows "rule: reads-in-project"');

  // 2. Always for this thread.
  log('2. "Always allow in this thread"');
  const here = await newThread('Remember here');
  const other = await newThread('Elsewhere');
  await openThread('Remember here');
  turn = await send(here, runMake('m1'));
  const card = page.getByRole('region', { name: 'Permission request: make test' });
  await armed('[aria-label="Permission request: make test"]');
  await card.getByRole('button', { name: 'Always…' }).click();
  await card.getByRole('menuitem', { name: 'Always allow in this thread' }).click();
  await card.getByText('Remembered: Always allow execute “make test” in thread Remember here.').waitFor();
  done = await turnDone(hub, here.id, turn.id);
  check(/"optionId":"allow"/.test(done.output), 'the request decided with "always" was allowed');
  const rules = (await api('GET', '/v1/rules')).rules;
  check(rules.length === 1 && rules[0].scope === 'thread' && rules[0].threadId === here.id && rules[0].command === 'make test', `one thread rule: ${JSON.stringify(rules)}`);
  turn = await send(here, runMake('m2'));
  done = await turnDone(hub, here.id, turn.id);
  [p] = await permissionsOf(turn);
  check(p?.decidedBy === `remembered:${rules[0].id}` && /"optionId":"allow"/.test(done.output), `the next identical request passed by itself (decidedBy ${p?.decidedBy})`);
  const elsewhere = await send(other, runMake('m3'));
  await page.getByRole('button', { name: 'Approvals: 1 pending' }).waitFor();
  check(true, 'the same request in another thread waits for a person');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const remembered = settings.getByRole('table', { name: 'Remembered decisions' });
  const ruleRow = remembered.getByRole('row').filter({ hasText: 'make test' });
  await ruleRow.getByRole('cell', { name: 'thread Remember here' }).waitFor();
  await settings.getByRole('list', { name: 'Rules' }).getByText('reads-in-project').waitFor();
  await ruleRow.getByRole('button', { name: 'Remove the remembered decision for make test' }).click();
  await remembered.waitFor({ state: 'detached' });
  await settings.getByText('None yet.').waitFor();
  check((await api('GET', '/v1/rules')).rules.length === 0, 'Settings lists the remembered decision and Remove deletes it');

  // The rules editor against the hub's own checks: a bad expression is
  // refused on its field, fixed it is saved, moved first, then removed.
  log('the rules editor: a refused rule, fixed, moved, removed');
  await settings.getByRole('button', { name: 'Add rule' }).click();
  const form = settings.getByRole('form', { name: 'Rule (new)' });
  await form.getByRole('textbox', { name: 'Name' }).fill('make-in-project');
  await form.getByRole('checkbox', { name: 'execute' }).check();
  const match = form.getByRole('textbox', { name: 'Match' });
  await match.fill('^make (');
  await form.getByRole('button', { name: 'Save rule' }).click();
  await page.waitForFunction(() => document.getElementById('rule-new-match')?.getAttribute('aria-invalid') === 'true');
  const why = await form.locator('#rule-new-match-error').textContent();
  check(/regular expression/.test(why ?? ''), `the hub's refusal shows on the Match field: ${why}`);
  await form.screenshot({ path: join(shots, 'rules-editor.png') });
  check((await api('GET', '/v1/settings')).settings.permissions.rules.length === 1, 'the refused rule was not saved');
  // That refusal (400) was the point: it is not a problem of the page.
  const expected = ['HTTP 400 PATCH /v1/settings', 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)'];
  for (const e of expected) {
    const i = problems.indexOf(e);
    check(i >= 0, `the page saw the refusal: ${e}`);
    problems.splice(i, 1);
  }
  await match.fill('^make ');
  await form.getByRole('button', { name: 'Save rule' }).click();
  await form.waitFor({ state: 'detached' });
  await settings.getByRole('button', { name: 'Move make-in-project up' }).click();
  await settings.getByText('Rule make-in-project moved up.').waitFor();
  let saved = (await api('GET', '/v1/settings')).settings.permissions.rules;
  check(
    JSON.stringify(saved.map((r) => r.name)) === '["make-in-project","reads-in-project"]' && saved[0].match === '^make ' && saved[0].kinds?.[0] === 'execute',
    `saved, then moved first: ${JSON.stringify(saved)}`,
  );
  await settings.getByRole('button', { name: 'Remove make-in-project' }).click();
  await settings.getByText('Rule make-in-project removed.').waitFor();
  saved = (await api('GET', '/v1/settings')).settings.permissions.rules;
  check(saved.length === 1 && saved[0].name === 'reads-in-project', 'removed; the config rule is left');
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });

  // 3. Batch from the inbox with the keyboard: Elsewhere's request and two more.
  log('3. approving three requests across two threads from the inbox, by keyboard');
  const batchThread = await newThread('Batch');
  const two = await send(batchThread, 'permissions 2');
  const pending = await waitPending(3);
  await page.getByRole('button', { name: 'Approvals: 3 pending' }).click();
  const inbox = page.getByRole('region', { name: 'Pending approvals' });
  const list = inbox.getByRole('listbox', { name: 'Pending requests' });
  await list.getByRole('option').nth(2).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'listbox');
  await page.waitForFunction(() => document.querySelector('[role="listbox"]')?.getAttribute('aria-busy') === 'false');
  await inbox.getByText('↑/↓ move · Space select · Ctrl+A all · Enter approve · Delete deny · Esc close', { exact: false }).waitFor();
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  check((await list.locator('[aria-selected="true"]').count()) === 3, 'three rows selected with Space');
  await inbox.getByRole('button', { name: 'Approve selected (3)' }).waitFor();
  await page.screenshot({ path: join(shots, 'inbox-selection.png') });
  await page.keyboard.press('Enter');
  await inbox.getByText('Approved 3 of 3.').waitFor();
  await inbox.getByText('Nothing waits for you.').waitFor();
  const after = (await api('GET', '/v1/permissions')).permissions.filter((x) => pending.some((q) => q.id === x.id));
  check(after.length === 3 && after.every((x) => x.status === 'approved' && x.decidedBy === 'browser'), `each approved by the browser: ${after.map((x) => `${x.status}/${x.decidedBy}`)}`);
  check(/selected:allow-once=2/.test((await turnDone(hub, batchThread.id, two.id)).output), 'the batch thread got both approvals');
  check(/"optionId":"allow"/.test((await turnDone(hub, other.id, elsewhere.id)).output), 'the other thread got its approval');

  // 4. An escalated request is marked: escalateAfter 2 s, through Settings.
  log('4. saving escalateAfter 2 s in Settings');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await settings.getByRole('checkbox', { name: 'Escalate a request nobody answered' }).check();
  await settings.getByRole('spinbutton', { name: 'Escalate after' }).fill('2');
  await settings.getByRole('combobox', { name: 'Unit of the escalation time' }).selectOption('s');
  // Each value saves as it is committed (ADR 0037); the last one committed is 2 s.
  await settings.locator('#settings-escalate-status').getByText('Saved').waitFor();
  let s = (await api('GET', '/v1/settings')).settings;
  for (let i = 0; i < 50 && s.permissions.escalateAfter !== '2s'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    s = (await api('GET', '/v1/settings')).settings;
  }
  check(s.permissions.escalateAfter === '2s', `escalateAfter saved: ${s.permissions.escalateAfter}`);
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });

  log('4. an unanswered request is escalated');
  turn = await send(other, ask({ toolCallId: 'e1', title: 'Run deploy', kind: 'execute', status: 'pending', rawInput: { command: './deploy.sh' } }));
  const escalatedRow = list.getByRole('option').filter({ hasText: './deploy.sh' });
  await escalatedRow.waitFor();
  await escalatedRow.getByText('escalated').waitFor({ timeout: 15000 });
  check(/escalated/.test((await escalatedRow.getAttribute('class')) ?? ''), 'the escalated row is marked');
  await page.getByRole('button', { name: 'Approvals: 1 pending, 1 escalated', exact: true }).waitFor();
  [p] = await permissionsOf(turn);
  check(p?.status === 'pending' && !!p.escalatedAt, `the hub escalated it and left it pending (${p?.status}, ${p?.escalatedAt})`);
  await list.focus();
  await page.waitForFunction(() => document.querySelector('[role="listbox"]')?.getAttribute('aria-busy') === 'false');
  await page.keyboard.press('Delete');
  await inbox.getByText('Denied 1 of 1.').waitFor();
  check(/"optionId":"reject"/.test((await turnDone(hub, other.id, turn.id)).output), 'Delete denied the current request');

  noProblems(problems);
}

await runScript('approvals', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) tmp.remove(log);
  },
});
