// Two agents on the same file (issue 31 "Before two agents collide")
// through the real UI: a real headless hub, the fake agent (acp/acptest)
// writing files with fs/write_text_file, real git repositories in a temp
// dir, headless Chromium.
//
//   node e2e/overlap.mjs        (after `vite build`; npm run e2e runs it)
//
//   - two threads in the same checkout change a.txt: both show the file
//     and a link to the other thread; the second (newer) one, and only it,
//     is told in one line to use a worktree; the link opens the other;
//   - an approval for an edit of a.txt carries the overlap warning;
//   - two worktree threads changing the same line show "would conflict if
//     merged", the conflicting file marked;
//   - archiving one thread clears the other's notice, live (thread_updated);
//   - axe-core finds no violation in the notice; screenshots
//     overlap-{light,dark}-{700,1440}.png and overlap-conflict-{light,dark}-1440.png.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeCheck } from './a11y.mjs';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('overlap');
const tmp = tempDir('switchboard-overlap-');
const workDir = tempDir('switchboard-overlap-work-'); // not under the hub's config folder, which is protected
let hub;
let browser;
const check = checker(log);

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmp.dir, GIT_AUTHOR_NAME: 'E2E', GIT_AUTHOR_EMAIL: 'e2e@example.com', GIT_COMMITTER_NAME: 'E2E', GIT_COMMITTER_EMAIL: 'e2e@example.com' };
const git = (dir, ...args) => execFileSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8' }).trim();

function repoWith(name, files) {
  const dir = join(workDir.dir, name);
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  for (const [f, body] of Object.entries(files)) writeFileSync(join(dir, f), body);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const repo = repoWith('app', { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
  const lines = '1\n2\n3\n4\n5\n6\n';
  const wtRepo = repoWith('lib', { 'shared.txt': lines });
  hub = await startHub(
    tmp.dir,
    { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } },
    { worktrees: { location: join(workDir.dir, 'worktrees') } },
  );
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const nav = page.getByRole('navigation', { name: 'Threads' });

  const write = async (th, path, text) => {
    const turn = (await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: `fs-write ${path} ${text}` } })).turn;
    const done = await turnDone(hub, th.id, turn.id);
    check(done.output === 'fs-write ok', `${th.title} wrote ${path.slice(workDir.dir.length)}`);
  };
  const newThread = async (body) => (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', ...body } })).thread;
  const open = async (title) => {
    await nav.getByRole('button', { name: new RegExp(title) }).first().click();
    await page
      .getByRole('heading', { name: title })
      .waitFor()
      .catch((e) => {
        throw new Error(`${e.message}\npage problems:\n${problems.join('\n')}`);
      });
  };
  const notice = page.getByRole('region', { name: 'Overlapping work' });

  log('two threads in the same checkout change a.txt');
  const first = await newThread({ cwd: repo, title: 'Fix the parser' });
  const second = await newThread({ cwd: repo, title: 'Tidy the README' });
  await write(first, join(repo, 'a.txt'), 'alpha, parsed\n');
  await write(second, join(repo, 'a.txt'), 'alpha, tidied\n');
  await open('Tidy the README');
  await notice.waitFor();
  const link = notice.getByRole('link', { name: 'Fix the parser' });
  await link.waitFor();
  check((await notice.locator('code').allTextContents()).join() === 'a.txt', 'the second thread names a.txt');
  check((await notice.textContent()).includes('same checkout'), 'it says the edits land in the same checkout');
  check((await notice.textContent()).includes('In a new worktree'), 'the second thread is told to use a worktree');
  await axeCheck(page, 'the overlap notice', log);
  await link.click();
  await page.getByRole('heading', { name: 'Fix the parser' }).waitFor();
  check(page.url().endsWith(`#/t/${first.id}`), 'the link opens the other thread');
  await notice.getByRole('link', { name: 'Tidy the README' }).waitFor();
  check(!(await notice.textContent()).includes('In a new worktree'), 'the first thread is not told to move');

  log('an approval for an edit of a.txt carries the overlap warning');
  const tc = { toolCallId: 'e2e-edit', kind: 'edit', title: 'Edit a.txt', locations: [{ path: join(repo, 'a.txt') }] };
  const options = [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ];
  const asking = (await hub.api('POST', `/v1/threads/${first.id}/turns`, { body: { input: `ask ${JSON.stringify({ toolCall: tc, options })}` } })).turn;
  const warning = page.getByText('Another agent changed this file too: their work may collide');
  await warning.waitFor();
  check(true, 'the card warns that another agent changed the file');
  for (const width of [700, 1440]) {
    await page.setViewportSize({ width, height: 860 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(screenshotDir(), `overlap-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  const pending = (await hub.api('GET', '/v1/permissions?status=pending')).permissions.find((p) => p.turnId === asking.id);
  await hub.api('POST', `/v1/permissions/${pending.id}`, { body: { outcome: 'declined' } });
  await turnDone(hub, first.id, asking.id);

  log('two worktree threads change the same line: would conflict');
  const left = await newThread({ cwd: wtRepo, title: 'Left worktree', worktree: true });
  const right = await newThread({ cwd: wtRepo, title: 'Right worktree', worktree: true });
  await write(left, join(left.worktree.path, 'shared.txt'), 'LEFT\n2\n3\n4\n5\n6\n');
  await write(right, join(right.worktree.path, 'shared.txt'), 'RIGHT\n2\n3\n4\n5\n6\n');
  await open('Right worktree');
  await notice.getByText('would conflict if merged').waitFor();
  await notice.getByRole('link', { name: 'Left worktree' }).waitFor();
  check((await notice.locator('code.bad').allTextContents()).join() === 'shared.txt', 'shared.txt is marked as conflicting');
  check(!(await notice.textContent()).includes('In a new worktree'), 'worktree threads are not told to use one');
  await page.setViewportSize({ width: 1440, height: 860 });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(screenshotDir(), `overlap-conflict-${scheme}-1440.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  log('archiving one thread clears the other');
  await open('Fix the parser');
  await notice.waitFor();
  await hub.api('PATCH', `/v1/threads/${second.id}`, { body: { archived: true } });
  await notice.waitFor({ state: 'detached' });
  check(true, "archiving the other thread cleared the notice, live");

  noProblems(problems);
  log('ok');
}

await runScript('overlap', main, {
  live: () => ({ hub, browser }),
  failureDir: join(screenshotDir(), 'overlap-failure'),
  hubLines: 30,
  cleanup: () => {
    tmp.remove(log);
    workDir.remove(log);
  },
});
