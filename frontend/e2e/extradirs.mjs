// A thread's extra folders (issue 32, ADR 0051) through the real UI: a
// real headless hub whose config gives the project's folder an extra
// repository (folders.<glob>.additionalDirectories), the fake agent
// (acp/acptest) writing with fs/write_text_file, headless Chromium.
//
//   node e2e/extradirs.mjs      (after `vite build`; npm run e2e runs it)
//
//   - New thread pre-fills the folder's configured extra folder, marked
//     "from settings"; a folder outside git is added by hand; the thread
//     is made with both;
//   - two turns write in the main folder and in the extra repository: the
//     Changes view lists the main folder first, then each extra folder
//     named, its paths relative to it, and says once that the folder
//     outside git has no checkpoints;
//   - "Revert file" on the extra repository's file puts it back on disk
//     byte for byte, the main folder's change staying;
//   - Settings → Folders lists the pattern and its extra folder, and adds
//     another, written to the config file;
//   - axe-core finds no violation in the per-folder Changes view nor in
//     Settings → Folders;
//   - screenshots extradirs-changes-{light,dark}-{700,1440}.png,
//     extradirs-newthread-{light,dark}.png, extradirs-settings-{light,dark}.png.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeCheck } from './a11y.mjs';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('extradirs');
const tmp = tempDir('switchboard-extradirs-');
// The folders the agents work in: not under the hub's config folder, which is protected.
const workDir = tempDir('switchboard-extradirs-work-');
let hub;
let browser;

const check = checker(log);

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmp.dir, GIT_AUTHOR_NAME: 'E2E', GIT_AUTHOR_EMAIL: 'e2e@example.com', GIT_COMMITTER_NAME: 'E2E', GIT_COMMITTER_EMAIL: 'e2e@example.com' };
const git = (dir, ...args) => execFileSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8' }).trim();

/** A repository in workDir named name holding files (path → text), one commit. */
function repoWith(name, files) {
  const dir = join(workDir.dir, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const app = repoWith('projects/app', { 'app.txt': 'line one\nline two\n' });
  const utilText = 'package util\n\n// Sum adds.\nfunc Sum(a, b int) int { return a + b }\n';
  const lib = repoWith('shared-lib', { 'src/util.go': utilText, 'README.md': 'lib\n' });
  const notes = join(workDir.dir, 'notes');
  mkdirSync(notes);

  hub = await startHub(
    tmp.dir,
    { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } },
    { folders: { [join(workDir.dir, 'projects') + '/**']: { additionalDirectories: [lib] } } },
  );
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const shots = screenshotDir();

  log('New thread pre-fills the folder’s extra folder');
  await page.getByRole('button', { name: 'New thread' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New thread' });
  await dialog.getByRole('textbox', { name: /^Folder/ }).fill(app);
  const extraList = dialog.getByRole('list', { name: 'Extra folders' });
  await extraList.getByText(lib).waitFor();
  check((await extraList.getByText('from settings').count()) === 1, 'the configured folder is marked "from settings"');
  await dialog.getByRole('textbox', { name: 'Another folder the agent may use' }).fill(notes);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await extraList.getByText(notes).waitFor();
  await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('Across folders');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await dialog.screenshot({ path: join(shots, `extradirs-newthread-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await dialog.getByRole('button', { name: 'Create thread' }).click();
  await page.getByRole('heading', { name: 'Across folders' }).waitFor();
  const th = (await hub.api('GET', '/v1/threads')).threads.find((t) => t.title === 'Across folders');
  check(JSON.stringify(th?.additionalDirectories) === JSON.stringify([lib, notes]), `the thread has both extra folders: ${JSON.stringify(th?.additionalDirectories)}`);

  log('two turns: one in the main folder, one in the extra repository');
  for (const input of [`fs-write ${join(app, 'app.txt')} line one\nline 2\n`, `fs-write ${join(lib, 'src/util.go')} package util\n\n// Sum adds two ints.\nfunc Sum(a, b int) int { return b + a }\n`]) {
    const turn = (await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input } })).turn;
    const done = await turnDone(hub, th.id, turn.id);
    check(done.output === 'fs-write ok', `the agent wrote (${done.output})`);
  }

  log('Changes: per folder, the main one first');
  await page.getByRole('button', { name: 'Changes' }).click();
  const files = page.getByRole('navigation', { name: 'Changed files' });
  await files.getByText('src/util.go').waitFor();
  const rows = (await files.locator('li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  const want = [`Main folder ${app}`, 'M app.txt +1 −1', `Extra folder ${lib}`, 'M src/util.go +2 −2', `Extra folder ${notes}`, 'Not a git repository: the hub keeps no checkpoints here.'];
  check(JSON.stringify(rows) === JSON.stringify(want), `the list is per folder: ${JSON.stringify(rows)}`);
  check((await page.getByRole('heading', { level: 2, name: new RegExp(`Extra folder ${lib}`) }).count()) === 1, 'the diffs name the extra folder');
  await axeCheck(page, 'the Changes view per folder', log);

  for (const width of [700, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByRole('button', { name: width < 1000 ? 'Unified' : 'Side by side' }).click();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(shots, `extradirs-changes-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });

  log('Revert file in the extra repository');
  const section = page.getByRole('region', { name: 'src/util.go', exact: true });
  await section.getByRole('button', { name: 'Revert file' }).click();
  await section.getByRole('button', { name: 'Revert', exact: true }).click();
  await page.getByRole('status').filter({ hasText: `Reverted ${lib}/src/util.go` }).waitFor();
  check(readFileSync(join(lib, 'src/util.go'), 'utf8') === utilText, 'src/util.go is back byte for byte');
  check(readFileSync(join(app, 'app.txt'), 'utf8') === 'line one\nline 2\n', 'the main folder’s change stays');

  log('Settings → Folders');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Folders' }).click();
  const glob = join(workDir.dir, 'projects') + '/**';
  const card = settings.getByRole('group', { name: `Extra folders for ${glob}` });
  await card.getByText(lib).waitFor();
  await card.getByRole('textbox', { name: `Another extra folder for ${glob}` }).fill(notes);
  await card.getByRole('button', { name: 'Add', exact: true }).click();
  await card.getByText('Saved').waitFor();
  await card.getByText(notes).waitFor();
  check(readFileSync(hub.config, 'utf8').includes(notes), 'the config file lists the added folder');
  await axeCheck(page, 'Settings → Folders', log);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await settings.screenshot({ path: join(shots, `extradirs-settings-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  noProblems(problems);
  log('ok');
}

await runScript('extradirs', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  hubLines: 20,
  cleanup: (failed) => {
    if (!failed) tmp.remove(log);
    workDir.remove(log);
  },
});
