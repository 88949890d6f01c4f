// Landing a worktree thread's work (issue 31) through the real UI: a real
// headless hub, the fake agent (acp/acptest) editing a file and adding one
// with fs/write_text_file and committing nothing (as agents do), a real git
// repository in a temp dir, headless Chromium.
//
//   node e2e/land.mjs        (after `vite build`; npm run e2e runs it)
//
//   - the worktree bar shows "2 uncommitted" once the turn ends (the
//     thread_updated carrying the worktree's standing), with no reload;
//   - Commit opens a confirmation that says the user's hooks run, lists the
//     files and prefills the message from the thread's title and prompt;
//     the edited message is the commit's (git log), the ignored file is not
//     in it;
//   - a second edit, then Merge: it commits first and merges; the bar says
//     "merged", and `git show main:a.txt` has the agent's text;
//   - the folder's worktreeSetup ran in the new worktree before the agent
//     (its file is there, the bar says "Worktree set up."); in another
//     folder a failing setup shows its output and says the thread is usable;
//   - screenshots land-commit-{light,dark}-{700,1440}.png (the Commit
//     confirmation), land-merged-… and land-setup-failed-….
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('land');
const tmp = tempDir('switchboard-land-');
// The folders the agents work in: not under the hub's config folder, which is protected.
const workDir = tempDir('switchboard-land-work-');
let hub;
let browser;
const check = checker(log);

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmp.dir };
const git = (dir, ...args) => execFileSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8' }).trim();

async function shots(page, name) {
  for (const width of [700, 1440]) {
    await page.setViewportSize({ width, height: 860 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(screenshotDir(), `land-${name}-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const repo = join(workDir.dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'E2E User');
  git(repo, 'config', 'user.email', 'e2e@example.com');
  writeFileSync(join(repo, 'a.txt'), 'hello\n');
  writeFileSync(join(repo, '.gitignore'), '*.log\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'init');
  const broken = join(workDir.dir, 'broken');
  mkdirSync(broken);
  git(broken, 'init', '-q', '-b', 'main');
  git(broken, '-c', 'user.name=E2E', '-c', 'user.email=e2e@example.com', 'commit', '-q', '--allow-empty', '-m', 'init');

  hub = await startHub(
    tmp.dir,
    { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } },
    {
      folders: {
        [`${repo}/**`]: { worktreeSetup: ['echo "installing dependencies"; echo ready > setup.log'] },
        [`${broken}/**`]: { worktreeSetup: ['echo "resolving packages"', 'echo "npm ERR! missing script: ci" >&2; exit 1'] },
      },
    },
  );
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const nav = page.getByRole('navigation', { name: 'Threads' });

  const write = async (th, rel, text) => {
    const turn = (await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: `fs-write ${join(th.worktree.path, rel)} ${text}` } })).turn;
    const done = await turnDone(hub, th.id, turn.id);
    check(done.output === 'fs-write ok', `the agent wrote ${rel} (${done.output})`);
  };

  const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: repo, title: 'Say hello properly', worktree: true } })).thread;
  await nav.getByRole('button', { name: /Say hello properly/ }).first().click();
  await page.getByRole('heading', { name: 'Say hello properly' }).waitFor();
  const bar = page.getByRole('region', { name: 'Worktree and changes' });
  await bar.getByText('Worktree set up.').waitFor();
  check(existsSync(join(th.worktree.path, 'setup.log')), 'the folder’s worktreeSetup ran in the new worktree');

  log('the agent edits a.txt and adds b.txt (and a log git ignores), committing nothing');
  await write(th, 'a.txt', 'hello, world\n');
  await write(th, 'b.txt', 'new file\n');
  await write(th, 'debug.log', 'ignored\n');
  await bar.getByText('2 uncommitted').waitFor();
  check(true, 'the bar shows 2 uncommitted files once the turns ended, without a reload');

  log('Commit: the suggested message, the hooks note, the files');
  await bar.getByRole('button', { name: 'Commit', exact: true }).click();
  const confirm = bar.getByRole('alertdialog');
  const box = confirm.getByRole('textbox', { name: 'Commit message' });
  await page.waitForFunction(() => document.querySelector('.confirm textarea')?.value.length > 0);
  const suggested = await box.inputValue();
  check(suggested.startsWith('Say hello properly\n\n- fs-write '), `the message is prefilled from the title and prompts (${JSON.stringify(suggested.slice(0, 40))})`);
  check((await confirm.textContent()).includes('hooks and signing run'), 'the confirmation says the git hooks run');
  const listed = await confirm.getByRole('list', { name: 'Files to commit' }).textContent();
  check(listed.includes('a.txt') && listed.includes('b.txt') && !listed.includes('debug.log'), `the files listed: ${listed}`);
  await shots(page, 'commit');
  await box.fill('Greet the whole world\n\nThe agent changed the greeting and added b.txt.');
  await confirm.getByRole('button', { name: 'Commit', exact: true }).click();
  await bar.getByRole('status').filter({ hasText: 'Committed 2 file(s)' }).waitFor();
  check(git(repo, 'log', '-1', '--format=%s|%an', th.worktree.branch) === 'Greet the whole world|E2E User', 'the commit has the edited message and the user identity');
  check(git(repo, 'show', '--name-only', '--format=', th.worktree.branch) === 'a.txt\nb.txt', 'the commit holds a.txt and b.txt, not the ignored log');

  log('another edit, then Merge: committed first, then merged');
  await write(th, 'a.txt', 'hello, world!\n');
  await bar.getByText('1 uncommitted').waitFor();
  await bar.getByRole('button', { name: 'Merge', exact: true }).click();
  check((await bar.getByRole('alertdialog').textContent()).includes('committed first'), 'the Merge confirmation says it commits first');
  await page.waitForFunction(() => document.querySelector('.confirm textarea')?.value.length > 0);
  await bar.getByRole('alertdialog').getByRole('button', { name: 'Merge', exact: true }).click();
  await bar.getByRole('status').filter({ hasText: 'Merged into main' }).waitFor();
  await bar.getByText('· merged').waitFor();
  check(git(repo, 'show', 'main:a.txt') === 'hello, world!', 'main has the agent’s last edit (git show main:a.txt)');
  check(git(repo, 'show', 'main:b.txt') === 'new file', 'main has the new file');
  await shots(page, 'merged');

  log('a failing worktree setup: its output, and the thread usable');
  const bt = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: broken, title: 'Broken setup', worktree: true } })).thread;
  await nav.getByRole('button', { name: /Broken setup/ }).first().click();
  await page.getByRole('heading', { name: 'Broken setup' }).waitFor();
  await bar.getByText(/Worktree setup failed \(exit 1\)\. The thread is usable/).waitFor();
  check((await bar.getByLabel('Setup output').textContent()).includes('npm ERR! missing script: ci'), 'the failed setup shows its output');
  await shots(page, 'setup-failed');
  await write(bt, 'after.txt', 'the agent runs all the same\n');

  noProblems(problems);
  log('ok');
}

await runScript('land', main, {
  live: () => ({ hub, browser }),
  hubLines: 30,
  failureDir: join(screenshotDir(), 'land-failure'),
  cleanup: () => {
    tmp.remove(log);
    workDir.remove(log);
  },
});
