// Prompts that wait (issue 33): a real headless hub, the project's fake
// ACP agent, headless Chromium.
//
//   node e2e/queue.mjs        (after `vite build`)
//
//   1. While a turn runs (the agent waits on a permission), three messages
//      typed in the composer go to the queue (the button says "Queue"),
//      shown under the composer in order; the third moved up with
//      Alt+Up, the second removed with its button (screenshots
//      queue-{light,dark}-{1440,700}.png).
//   2. Once the turn is approved, the queue is sent in its order, each
//      prompt once (the hub's history), and the list empties.
//   3. A thread limited by its agent until a reset shows "Limited until
//      <time>" and keeps its queue (screenshot queue-limited.png).
//   4. The limited thread's queue moved to another agent (ADR 0052):
//      "Move to another agent…" offers the other installed agent
//      (screenshots queue-move-{light,dark}-{1440,700}.png); the new
//      thread opens, says "Continued from", and sends the moved prompt
//      once on the other agent; the first thread says "Continued in" and
//      its queue is empty (screenshots queue-moved-{from,to}.png).
//   5. A turn stopped with a message queued pauses the queue: nothing is
//      sent until "Send next" (screenshots queue-paused-{light,dark}.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('queue');
const shots = screenshotDir();
const tmp = tempDir('switchboard-queue-');
const proj = tempDir('switchboard-queue-project-');
let hub;
let browser;
const check = checker(log);

async function until(what, f) {
  for (let i = 0; i < 400; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
    other: { name: 'Other agent', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Queue' } })).thread;
  await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'permission' } });
  await until('the permission', async () => (await api('GET', '/v1/permissions?status=pending')).permissions.length > 0);

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;

  log('1. three messages queued while the turn runs');
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /^Queue/ }).click();
  await page.getByRole('heading', { name: 'Queue', exact: true }).waitFor();
  const box = page.getByRole('textbox', { name: 'Message' });
  await page.getByRole('button', { name: 'Queue', exact: true }).waitFor();
  for (const text of ['echo one', 'echo two', 'echo three']) {
    await box.fill(text);
    await box.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('[aria-label="Queued messages"] li').length === n, ['one', 'two', 'three'].indexOf(text.slice(5)) + 1);
  }
  const queue = page.getByRole('region', { name: 'Queued messages' });
  const texts = () => queue.locator('li .text').allTextContents();
  check((await texts()).join('|') === 'echo one|echo two|echo three', `queued in order: ${await texts()}`);
  await queue.locator('li .text').nth(2).focus();
  await page.keyboard.press('Alt+ArrowUp');
  await until('the move', async () => (await texts()).join('|') === 'echo one|echo three|echo two');
  check(true, 'Alt+Up moved the third message up');
  check(
    (await page.evaluate(() => document.activeElement?.textContent ?? '')).includes('echo three'),
    'the moved message keeps the focus',
  );
  await queue.locator('li').filter({ hasText: 'echo two' }).getByRole('button', { name: 'Remove' }).click();
  await until('the removal', async () => (await texts()).join('|') === 'echo one|echo three');
  check(true, 'Remove took the second message out');
  const listed = (await api('GET', `/v1/threads/${th.id}/queue`)).queue.map((q) => q.input).join('|');
  check(listed === 'echo one|echo three', `the hub's queue is the one shown: ${listed}`);
  const composer = page.locator('form.composer');
  for (const scheme of ['light', 'dark']) {
    for (const width of [1440, 700]) {
      await page.setViewportSize({ width, height: 860 });
      await page.emulateMedia({ colorScheme: scheme });
      await composer.screenshot({ path: join(shots, `queue-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });

  log('2. the turn ends: the queue is sent in order, once each');
  const [perm] = (await api('GET', '/v1/permissions?status=pending')).permissions;
  await api('POST', `/v1/permissions/${perm.id}`, { body: { outcome: 'approved' } });
  await until('the queue sent', async () => {
    const { turns } = await api('GET', `/v1/threads/${th.id}/history`);
    const t = (await api('GET', `/v1/threads/${th.id}`)).thread;
    return turns.length === 3 && t.status === 'idle' && turns.every((x) => x.status === 'completed');
  });
  const inputs = (await api('GET', `/v1/threads/${th.id}/history`)).turns.map((x) => x.input).join('|');
  check(inputs === 'permission|echo one|echo three', `sent in the queue's order, once each: ${inputs}`);
  await page.waitForFunction(() => !document.querySelector('[aria-label="Queued messages"]'));
  check(true, 'the queue is empty on screen');
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
  check(true, 'the button says Send again once the thread is idle');

  log('3. a limited thread shows its reset time and keeps its queue');
  const lim = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Limited' } })).thread;
  await api('POST', `/v1/threads/${lim.id}/turns`, { body: { input: 'rate-limit-error 3600' } });
  await until('the limit', async () => {
    const t = (await api('GET', `/v1/threads/${lim.id}`)).thread;
    return t.status === 'idle' && t.limitedUntil;
  });
  await api('POST', `/v1/threads/${lim.id}/queue`, { body: { input: 'echo after the reset' } });
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button').filter({ hasText: 'Limited' }).click();
  await page.getByRole('heading', { name: 'Limited', exact: true }).waitFor();
  const limited = page.getByRole('region', { name: 'Queued messages' }).getByRole('status');
  await limited.waitFor();
  const until1 = new Date((await api('GET', `/v1/threads/${lim.id}`)).thread.limitedUntil);
  const shown = (await limited.textContent()) ?? '';
  const hhmm = await page.evaluate((iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), until1.toISOString());
  check(shown.includes(`Limited until ${hhmm}`) || shown.includes('Limited until'), `the thread says when the limit ends: ${shown}`);
  check(shown.includes(hhmm), `in local time (${hhmm})`);
  const { turns: limTurns } = await api('GET', `/v1/threads/${lim.id}/history`);
  check(limTurns.length === 1, 'the queued prompt waits for the reset');
  await page.locator('form.composer').screenshot({ path: join(shots, 'queue-limited.png') });

  log('4. the limited queue moves to another agent');
  await page.getByRole('button', { name: 'Move to another agent…' }).click();
  const picker = page.getByRole('form', { name: 'Move the queue to another agent' });
  const choice = picker.getByRole('combobox', { name: 'Continue in a new thread with' });
  const offered = await choice.locator('option').allTextContents();
  check(offered.join('|') === 'Other agent', `only the other installed agent is offered: ${offered}`);
  for (const scheme of ['light', 'dark']) {
    for (const width of [1440, 700]) {
      await page.setViewportSize({ width, height: 860 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.locator('form.composer').screenshot({ path: join(shots, `queue-move-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
  await picker.getByRole('button', { name: 'Move queue' }).click();
  await page.getByRole('heading', { name: 'Limited (continued)', exact: true }).waitFor();
  check(true, 'the new thread opened');
  const moved = (await api('GET', `/v1/threads/${lim.id}`)).thread;
  check(!!moved.continuedIn && moved.queued === undefined, `the first thread is linked and its queue empty: ${JSON.stringify(moved)}`);
  await until('the moved prompt sent on the other agent', async () => {
    const { turns } = await api('GET', `/v1/threads/${moved.continuedIn}/history`);
    return turns.length === 1 && turns[0].status === 'completed';
  });
  const nt = (await api('GET', `/v1/threads/${moved.continuedIn}`)).thread;
  const ntInputs = (await api('GET', `/v1/threads/${nt.id}/history`)).turns.map((x) => x.input).join('|');
  check(nt.agent === 'other' && nt.continuedFrom === lim.id && ntInputs === 'echo after the reset', `sent once on the other agent: ${nt.agent} ${ntInputs}`);
  check((await api('GET', `/v1/threads/${lim.id}/history`)).turns.length === 1, 'nothing more was sent on the first thread');
  const from = page.getByRole('region', { name: 'Queued messages' }).getByRole('button', { name: 'Limited', exact: true });
  await from.waitFor();
  check(((await page.getByRole('region', { name: 'Queued messages' }).textContent()) ?? '').includes('Continued from Limited'), 'the new thread says where it came from');
  await page.locator('form.composer').screenshot({ path: join(shots, 'queue-moved-to.png') });
  await from.click();
  await page.getByRole('heading', { name: 'Limited', exact: true }).waitFor();
  const back = page.getByRole('region', { name: 'Queued messages' });
  await back.getByRole('button', { name: 'Limited (continued)', exact: true }).waitFor();
  check(((await back.textContent()) ?? '').includes('Continued in Limited (continued)'), 'the first thread says where its queue went');
  check((await back.locator('li').count()) === 0, 'the first thread shows no queue');
  await page.locator('form.composer').screenshot({ path: join(shots, 'queue-moved-from.png') });

  log('5. a stopped turn pauses the queue until "Send next"');
  const pz = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Paused' } })).thread;
  const { turn: hung } = await api('POST', `/v1/threads/${pz.id}/turns`, { body: { input: 'hang' } });
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button').filter({ hasText: 'Paused' }).click();
  await page.getByRole('heading', { name: 'Paused', exact: true }).waitFor();
  await box.fill('echo after the stop');
  await box.press('Enter');
  await page.getByRole('region', { name: 'Queued messages' }).waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  const next = page.getByRole('button', { name: 'Send next', exact: true });
  await next.waitFor();
  check((await api('GET', `/v1/threads/${pz.id}`)).thread.queuePaused === 'cancelled', 'the hub paused the queue');
  check((await api('GET', `/v1/threads/${pz.id}/history`)).turns.length === 1, 'nothing was sent after the stop');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('form.composer').screenshot({ path: join(shots, `queue-paused-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await next.click();
  await until('the next prompt sent', async () => {
    const { turns } = await api('GET', `/v1/threads/${pz.id}/history`);
    return turns.length === 2 && turns[1].status === 'completed' && turns[0].id === hung.id;
  });
  check(true, '"Send next" sent the queued prompt');
  await page.waitForFunction(() => !document.querySelector('[aria-label="Queued messages"]'));

  noProblems(problems);
}

await runScript('queue', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
