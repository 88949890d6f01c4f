// Importing the agent's own sessions (issue 16) through the real UI: a real
// headless hub, the fake agent (acp/acptest) knowing sessions of its own
// from its start (FAKEAGENT_SESSIONS), headless Chromium.
//
//   node e2e/sessions.mjs       (after `vite build`; npm run e2e runs it)
//
//   - New thread → "Import the agent's sessions…" lists the folder's
//     sessions a page at a time (More follows the agent's cursor), by
//     keyboard only; an agent's hostile title is shown as text;
//   - Enter on Import makes the thread and opens it, its history the
//     agent's replay; listing again offers "Open thread", which opens
//     the same thread (no second one);
//   - after a reload the history is still there, and a message goes on in
//     the agent's session;
//   - an agent with session/resume only: the thread says its history is
//     kept by the agent;
//   - axe-core finds no violation in the dialog.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeCheck } from './a11y.mjs';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, startHub, tempDir } from './harness.mjs';

const log = logger('sessions');
const check = checker(log);
const tmp = tempDir('switchboard-sessions-');
// The folder the sessions are in: not under the hub's config folder, which is protected.
const workDir = tempDir('switchboard-sessions-work-');
let hub;
let browser;

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const proj = join(workDir.dir, 'proj');
  mkdirSync(proj);
  const hostile = '<img src=x onerror="window.__pwned=1">';
  const seeded = join(tmp.dir, 'sessions.json');
  writeFileSync(
    seeded,
    JSON.stringify([
      { sessionId: 's-a', cwd: proj, title: 'Session A', updatedAt: '2026-11-20T10:00:00Z', history: [['what is alpha?', 'alpha is the first letter']] },
      { sessionId: 's-b', cwd: proj, title: hostile, updatedAt: '2026-11-21T10:00:00Z', history: [['q', 'a']] },
      { sessionId: 's-c', cwd: proj, title: 'Session C', updatedAt: '2026-11-22T10:00:00Z', history: [['q', 'a']] },
    ]),
  );
  const resumable = join(tmp.dir, 'resumable.json');
  writeFileSync(resumable, JSON.stringify([{ sessionId: 'r-1', cwd: proj, title: 'Resumable', history: [['old', 'older']] }]));
  const fake = (env) => ({ command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1', ...env } });
  hub = await startHub(tmp.dir, {
    lister: { name: 'Lister', ...fake({ FAKEAGENT_SESSION_CAPS: '1', FAKEAGENT_LOAD_SESSION: '1', FAKEAGENT_LIST_PAGE: '2', FAKEAGENT_SESSIONS: seeded }) },
    resumer: { name: 'Resumer', ...fake({ FAKEAGENT_SESSION_CAPS: '1', FAKEAGENT_SESSIONS: resumable }) },
  });
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);

  const openImport = async (agentName) => {
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.getByRole('dialog', { name: 'New thread' }).getByRole('button', { name: "Import the agent's sessions…" }).click();
    const dialog = page.getByRole('dialog', { name: 'Import sessions' });
    await dialog.waitFor();
    // The keyboard only: the agent, the folder, Enter.
    await dialog.getByRole('combobox', { name: 'Agent' }).selectOption({ label: agentName });
    await dialog.getByRole('textbox', { name: 'Folder' }).fill(proj);
    await dialog.getByRole('textbox', { name: 'Folder' }).press('Enter');
    return dialog;
  };

  log('listing, paging, a hostile title');
  let dialog = await openImport('Lister');
  const list = dialog.getByRole('list', { name: "The agent's sessions" });
  await list.getByRole('listitem').nth(1).waitFor();
  check((await list.getByRole('listitem').count()) === 2, 'the first page holds two sessions');
  await axeCheck(page, 'the Import sessions dialog', log);
  await dialog.getByRole('button', { name: 'More' }).click();
  await list.getByRole('listitem').nth(2).waitFor();
  check((await dialog.getByRole('button', { name: 'More' }).count()) === 0, 'More pages to the last, then goes');
  check((await list.getByText(hostile, { exact: true }).count()) === 1, 'the hostile title is shown as text');
  check((await dialog.locator('img').count()) === 0 && !(await page.evaluate(() => window.__pwned)), 'no markup of the agent ran');

  log('import by keyboard');
  const first = list.getByRole('button', { name: 'Import Session A' });
  await first.focus();
  await page.keyboard.press('ArrowDown');
  check(await list.getByRole('button', { name: `Import ${hostile}` }).evaluate((b) => b === document.activeElement), '↓ moves to the next session');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Session A' }).waitFor();
  await page.getByText('alpha is the first letter').waitFor();
  check(true, 'the imported thread opens with the agent’s replayed history');
  let threads = (await hub.api('GET', '/v1/threads')).threads;
  check(threads.length === 1 && threads[0].imported?.history === 'stored', `one imported thread (${JSON.stringify(threads.map((t) => t.imported))})`);

  log('a reload, then a message: the thread goes on in the agent session');
  await page.reload();
  await page.getByRole('heading', { name: 'Session A' }).waitFor();
  const conv = page.getByRole('list', { name: 'Conversation' });
  await conv.getByText('alpha is the first letter').waitFor();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('echo beta comes next');
  await box.press('Enter');
  await conv.getByText('beta comes next', { exact: true }).waitFor();
  let hist = [];
  for (let i = 0; i < 400; i++) {
    hist = (await hub.api('GET', `/v1/threads/${threads[0].id}/history`)).turns;
    if (hist.length === 2 && hist[1].status !== 'running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  check(hist.length === 2 && hist[1].output === 'beta comes next', `the imported thread's next turn ran in its session (${hist.map((t) => t.output).join(' | ')})`);

  log('listing again: imported, open');
  dialog = await openImport('Lister');
  await dialog.getByRole('button', { name: 'Open thread of Session A' }).click();
  await page.getByRole('heading', { name: 'Session A' }).waitFor();
  threads = (await hub.api('GET', '/v1/threads')).threads;
  check(threads.length === 1, 'opening an imported session makes no second thread');

  log('an agent with resume only');
  dialog = await openImport('Resumer');
  await dialog.getByRole('button', { name: 'Import Resumable' }).click();
  await page.getByRole('heading', { name: 'Resumable' }).waitFor();
  await page.getByText(/History kept by the agent/).waitFor();
  check(true, 'a resume-only import says the history is kept by the agent');

  noProblems(problems);
  log('ok');
}

await runScript('sessions', main, {
  live: () => ({ hub, browser }),
  hubLines: 20,
  cleanup: () => {
    tmp.remove(log);
    workDir.remove(log);
  },
});
