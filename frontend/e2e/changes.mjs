// The Changes view and worktree actions (issue 19) through the real UI: a
// real headless hub, the fake agent (acp/acptest) writing a file with
// fs/write_text_file, a real git repository in a temp dir, headless
// Chromium.
//
//   node e2e/changes.mjs        (after `vite build`; npm run e2e runs it)
//
//   - a turn of the fake agent changes a tracked file: the Changes view
//     shows its unified diff, the same lines `git diff` prints against the
//     turn's checkpoint; "Revert file" (after a confirmation) puts the
//     file back on disk byte for byte;
//   - a thread in a folder outside git shows the agent's diff "as reported
//     by the agent";
//   - a worktree thread shows its branch; Discard asks first, naming the
//     branch, then removes the worktree and the branch;
//   - the view has a file list, line numbers, no raw "diff --git"/"index"
//     lines, side by side and unified; a line holding <img …> is text;
//     screenshots changes-{light,dark}-{700,1440}.png;
//   - axe-core finds no violation in the Changes view (unified and side by
//     side) nor in the worktree bar with its confirmation.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeCheck } from './a11y.mjs';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('changes');
const tmp = tempDir('switchboard-changes-');
// The folders the agents work in: not under the hub's config folder, which is protected.
const workDir = tempDir('switchboard-changes-work-');
let hub;
let browser;

const check = checker(log);

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmp.dir, GIT_AUTHOR_NAME: 'E2E', GIT_AUTHOR_EMAIL: 'e2e@example.com', GIT_COMMITTER_NAME: 'E2E', GIT_COMMITTER_EMAIL: 'e2e@example.com' };
const git = (dir, ...args) => execFileSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8' }).trim();

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const repo = join(workDir.dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'app.txt'), 'line one\nline two\n');
  writeFileSync(join(repo, 'main.go'), 'package main\n\nimport "fmt"\n\n// old says hello.\nfunc old() {\n\tfmt.Println("hello")\n}\n\nvar x = 1\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'init');
  const plain = join(workDir.dir, 'plain');
  mkdirSync(plain);
  writeFileSync(join(plain, 'notes.txt'), 'old\n');

  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const nav = page.getByRole('navigation', { name: 'Threads' });

  const open = async (title) => {
    await nav.getByRole('button', { name: new RegExp(title) }).first().click();
    await page.getByRole('heading', { name: title }).waitFor();
  };

  log('a git folder: the turn changes app.txt');
  const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: repo, title: 'Git thread' } })).thread;
  const target = join(repo, 'app.txt');
  const turn = (await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: `fs-write ${target} line one\nline 2\n` } })).turn;
  const done = await turnDone(hub, th.id, turn.id);
  check(done.output === 'fs-write ok', `the agent wrote the file (${done.output})`);
  await open('Git thread');
  await page.getByRole('button', { name: 'Changes' }).click();
  const diff = page.getByLabel('Changes to app.txt');
  await diff.waitFor();
  await page.getByRole('button', { name: 'Unified' }).click();
  // Each changed line as its marker and code (the line numbers are cells of their own).
  const shown = await diff.locator('tr.add .c, tr.del .c').allTextContents();
  const cp = (await hub.api('GET', `/v1/threads/${th.id}/checkpoints`)).checkpoints[0].commit;
  const want = git(repo, 'diff', '--no-color', cp, '--', 'app.txt')
    .split('\n')
    .filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l));
  check(JSON.stringify(shown) === JSON.stringify(want), `the view shows git diff's lines ${JSON.stringify(shown)}`);
  const header = await diff.textContent();
  check(!/diff --git|index [0-9a-f]|--- a\/|\+\+\+ b\//.test(header), 'no raw git header lines are shown');
  const numbers = await diff.locator('tr.add td.n, tr.del td.n').allTextContents();
  check(numbers.filter((n) => n !== '').length === shown.length, `each changed line has its number (${JSON.stringify(numbers)})`);
  check(
    (await page.getByRole('navigation', { name: 'Changed files' }).getByRole('button').allTextContents()).some((t) => t.includes('app.txt')),
    'the file list names app.txt',
  );
  await page.getByRole('button', { name: 'Unified' }).click();
  await axeCheck(page, 'the Changes view (unified)', log);
  await page.getByRole('button', { name: 'Side by side' }).click();
  await page.getByRole('table', { name: 'Changes to app.txt' }).waitFor();
  check((await diff.locator('td.c').count()) > 0 && (await diff.locator('colgroup col').count()) === 4, 'side by side has two code columns');
  await axeCheck(page, 'the Changes view (side by side)', log);
  await page.getByRole('button', { name: 'Unified' }).click();

  await page.getByRole('button', { name: 'Revert file' }).click();
  await page.getByRole('button', { name: 'Revert', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Reverted app.txt' }).waitFor();
  check(readFileSync(target, 'utf8') === 'line one\nline two\n', 'Revert file put app.txt back byte for byte');
  await page.getByText('No changes.').waitFor();

  log('a folder outside git: the agent-reported diff, labelled');
  const pt = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: plain, title: 'Plain thread' } })).thread;
  const tool = JSON.stringify({ sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit notes', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: join(plain, 'notes.txt'), oldText: 'old\n', newText: 'new\n' }] });
  const t2 = (await hub.api('POST', `/v1/threads/${pt.id}/turns`, { body: { input: `raw-update ${tool}` } })).turn;
  await turnDone(hub, pt.id, t2.id);
  await open('Plain thread');
  await page.getByRole('button', { name: 'Changes' }).click();
  await page.getByText(/As reported by the agent/).waitFor();
  await page.getByRole('button', { name: 'Unified' }).click();
  const adds = await page.getByLabel(`Changes to ${join(plain, 'notes.txt')}`).locator('tr.add .c').allTextContents();
  check(JSON.stringify(adds) === JSON.stringify(['+new']), `the reported diff shows ${JSON.stringify(adds)}`);

  log('a worktree thread: branch shown, Discard asks first');
  const wt = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: repo, title: 'Worktree thread', worktree: true } })).thread;
  await open('Worktree thread');
  const bar = page.getByRole('region', { name: 'Worktree and changes' });
  await bar.getByText(wt.worktree.branch).first().waitFor();
  await bar.getByRole('button', { name: 'Discard' }).click();
  const confirm = page.getByRole('alertdialog');
  check((await confirm.textContent()).includes(wt.worktree.branch), 'the confirmation names the branch');
  check(existsSync(wt.worktree.path), 'nothing removed before the confirmation');
  await axeCheck(page, 'the worktree bar and its Discard confirmation', log);
  await confirm.getByRole('button', { name: 'Discard' }).click();
  await page.getByRole('status').filter({ hasText: 'Worktree and branch removed' }).waitFor();
  check(!existsSync(wt.worktree.path), 'the worktree is gone');
  check(git(repo, 'branch', '--list', wt.worktree.branch) === '', 'the branch is gone');

  log('screenshots: a Go file modified, coloured, with a hostile line; 700 and 1440, light and dark');
  const gt = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: repo, title: 'Go thread' } })).thread;
  const goFile = join(repo, 'main.go');
  const goText = 'package main\n\nimport "fmt"\n\n// main starts it.\nfunc main() {\n\tfmt.Println("hello", 42)\n\tfmt.Println("<img src=x onerror=window.__pwned=1>")\n}\n\nvar x = 2\n<img src=x onerror="window.__pwned=1">\n';
  const gturn = (await hub.api('POST', `/v1/threads/${gt.id}/turns`, { body: { input: `fs-write ${goFile} ${goText}` } })).turn;
  await turnDone(hub, gt.id, gturn.id);
  await open('Go thread');
  await page.getByRole('button', { name: 'Changes' }).click();
  await page.getByLabel('Changes to main.go').waitFor();
  check((await page.locator('.changes img').count()) === 0, 'a line holding <img …> is text, not an image');
  check((await page.evaluate(() => window.__pwned)) === undefined, 'no script from a diff line ran');
  for (const width of [700, 1440]) {
    await page.setViewportSize({ width, height: 860 });
    await page.getByRole('button', { name: width < 1000 ? 'Unified' : 'Side by side' }).click();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(screenshotDir(), `changes-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });

  noProblems(problems);
  log('ok');
}

await runScript('changes', main, {
  live: () => ({ hub, browser }),
  hubLines: 20,
  cleanup: () => {
    tmp.remove(log);
    workDir.remove(log);
  },
});
