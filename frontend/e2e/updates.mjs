// The agent's newer updates as the window shows them (issue 32): a real
// headless hub, the project's fake ACP agent, headless Chromium.
//
//   node e2e/updates.mjs        (after `vite build`)
//
// One thread whose turns send:
//   1. two messages interleaved by id ("messages"): the window shows
//      "Hello world" as one message and "Aside." as another, and the tool
//      card names the tool ("Bash");
//   2. a notice ("notice warning …"): a quiet row with its title;
//   3. a compaction ("compact"): "The agent compacted its context", the
//      summary behind "What it kept", which opens;
//   4. a sub-agent ("subagent Explore the tests"): a nested card with its
//      title, state and its own stream; its permission card, nested in it,
//      says the sub-agent asked; allowed from the card, the card says done;
//   5. the agent's boolean option ("Fast mode", FAKEAGENT_BOOL_OPTION) is a
//      checkbox beside the model: ticked, the hub sets it to true.
// Screenshots build/screenshots/updates-{light,dark}-{700,1440}.png.
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('updates');
const shots = screenshotDir();
const tmp = tempDir('switchboard-updates-');
const proj = tempDir('switchboard-updates-project-');
let hub;
let browser;
const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1', FAKEAGENT_BOOL_OPTION: '1' } },
  });
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Updates' } })).thread;
  for (const input of ['messages', 'notice warning Model switched to Sonnet', 'compact']) {
    await api('POST', `/v1/threads/${th.id}/turns`, { body: { input } });
    // One turn at a time: the next is refused while the thread runs.
    for (let i = 0; i < 200 && (await api('GET', `/v1/threads/${th.id}`)).thread.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  // The sub-agent's turn waits on its permission.
  await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'subagent Explore the tests' } });
  for (let i = 0; i < 200 && !(await api('GET', '/v1/permissions?status=pending')).permissions.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /^Updates/ }).click();
  await page.getByRole('heading', { name: 'Updates', exact: true }).waitFor();
  const convo = page.getByRole('list', { name: 'Conversation' });

  log('1. messages grouped by id, and the tool name');
  const first = convo.locator('li.turn').nth(0);
  await first.getByText('Hello world').waitFor();
  check((await first.getByText('Aside.').count()) === 1, 'the aside is its own message');
  check((await first.getByText('Hello world').count()) === 1, 'the interleaved chunks of m1 are one message');
  check((await first.locator('[data-tool-call-id] summary').textContent()).includes('Bash'), 'the tool card names the tool');

  log('2. the notice');
  const notice = convo.getByRole('status', { name: 'Agent warning' });
  await notice.waitFor();
  check((await notice.textContent()).includes('Model switched to Sonnet'), 'the notice says its title');

  log('3. the compaction');
  const compaction = convo.locator('[data-compaction="completed"]');
  await compaction.waitFor();
  check((await compaction.textContent()).includes('The agent compacted its context'), 'the thread says the agent compacted its context');
  await compaction.getByText('What it kept').click();
  await compaction.getByText('We renamed the parser. Tests pass.').waitFor();

  log('4. the sub-agent card and its permission');
  const card = convo.getByRole('region', { name: 'Sub-agent Explore the tests' });
  await card.waitFor();
  check((await card.locator('.state').textContent()) === 'running', 'the card shows the sub-agent’s state');
  await card.getByText('Looking at the tests.').waitFor();
  check((await card.getByRole('list', { name: 'Tool calls of Explore the tests' }).textContent()).includes('Run the tests'), 'the card lists the sub-agent’s tool call');
  const asker = card.locator('[data-subagent-asker]');
  await asker.waitFor();
  check((await asker.textContent()) === 'Asked by the sub-agent Explore the tests', 'the permission card, inside the sub-agent’s card, says the sub-agent asked');
  check((await convo.locator('[data-subagent-asker]').count()) === 1, 'the request has one card, the nested one');

  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [700, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await notice.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, `updates-${scheme}-${width}.png`) });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, `updates-subagent-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });

  log('5. allowed from the card: the sub-agent is done');
  const allow = card.getByRole('button', { name: /^Allow/ }).first();
  await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => /^Allow/.test(b.textContent?.trim() ?? '') && !b.disabled));
  await allow.click();
  await card.locator('.state', { hasText: 'done' }).waitFor();
  await convo.getByText(/subagent outcome: .*allow/).waitFor();

  log('6. a boolean session option');
  const fast = page.getByRole('checkbox', { name: 'Fast mode' });
  check(!(await fast.isChecked()), 'the boolean option starts off');
  await fast.check();
  for (let i = 0; i < 100; i++) {
    const opts = (await api('GET', `/v1/threads/${th.id}`)).thread.configOptions ?? [];
    if (opts.find((o) => o.id === 'fast')?.currentValue === true) break;
    if (i === 99) throw new Error(`fast was not set: ${JSON.stringify(opts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  check(await fast.isChecked(), 'the hub set it to true');
  await page.screenshot({ path: join(shots, 'updates-options-light-1440.png') });
  noProblems(problems);
}

await runScript('updates', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
