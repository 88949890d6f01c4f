// Screenshot comparisons of the key screens (issue 29) against committed
// baselines, and axe-core on each: a real headless hub, the project's fake
// ACP agent (acp/acptest), the built UI in headless Chromium.
//
//   node e2e/screens.mjs                      (after `vite build`; npm run e2e runs it)
//   UPDATE_BASELINES=1 node e2e/screens.mjs   (make screenshots-update: rewrites the baselines)
//   SCREENS=inbox,settings node e2e/screens.mjs   (only those screens)
//
// The screens, in the order they are reached (each leaves the page as the
// next expects it; SCREENS below says how each is reached):
//   empty      the page signed in, no thread yet
//   streaming  a thread whose turn streamed some Markdown and holds there
//              (the fake agent's chunks-hang): the running turn, frozen
//   approval   a thread with a pending permission (the fake agent's
//              permission): the approval card, its buttons armed
//   inbox      the Approvals panel open over it
//   settings   Settings
//   diff       a thread in a git folder whose turn changed a tracked file,
//              its Changes view open (unified diff)
// Each in the light and the dark colour scheme at 700×900, 1440×900 and
// 1920×1080 CSS pixels (the viewport only), compared with
// e2e/baselines/<screen>-<scheme>-<width>.png by pixelmatch: a pixel
// differs when its YIQ colour distance passes PIXEL_THRESHOLD (0.1, with
// anti-aliased pixels not counted), and a screen fails when more than
// MAX_RATIO (0.5 %) of its pixels differ or its size is not the
// baseline's. On a mismatch the actual and a diff image (differing pixels
// red) go to build/screenshots/diff/<name>-actual.png and -diff.png; every
// actual also goes to build/screenshots/screens/. All mismatches are
// listed, with each screen's ratio, before the script fails. A missing
// baseline fails too ("make screenshots-update").
//
// axe-core (WCAG 2.0/2.1/2.2 A and AA, best practices; e2e/a11y.mjs's
// rules) runs on every screen, scheme and width; any violation fails.
//
// What keeps a screenshot the same run after run (docs/DECISIONS.md, ADR
// 0038):
//   - fixed paths: the hub's folder is /tmp/switchboard-screens and the
//     agents' project /tmp/switchboard-screens-project (removed first; a
//     pid file refuses a second run at the same time), so the paths the UI
//     shows (config file, the thread's folder, the diff's files) are the
//     same; threads are made in the same order with the same titles;
//   - the page's clock is fixed (page.clock.setFixedTime) at 5 minutes
//     before the permission's deadline, so its countdowns read the same;
//   - prefers-reduced-motion: reduce, Playwright's animations: 'disabled'
//     (finite animations finished, infinite ones at their start) and
//     caret: 'hide'; the mouse parked outside the page (no hover);
//   - each screenshot after the web fonts loaded and two animation frames.
// Baselines are of Debian's Chromium on Linux with the machine's fonts:
// regenerate them (make screenshots-update) when the UI or those change.
//
// Env: CHROMIUM, E2E_KEEP=1 (keep the folders), UPDATE_BASELINES=1,
// SCREENS=a,b (a subset).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { axeRun } from './a11y.mjs';
import { buildFakeAgent, logger, noProblems, openPage, runScript, screenshotDir, startHub } from './harness.mjs';

const log = logger('screens');
const here = dirname(fileURLToPath(import.meta.url));
/** Where the committed baselines live. */
export const baselineDir = join(here, 'baselines');
const update = process.env.UPDATE_BASELINES === '1';
const only = process.env.SCREENS ? new Set(process.env.SCREENS.split(',')) : null;

/** A pixel differs past this YIQ distance (pixelmatch's threshold, 0…1). */
const PIXEL_THRESHOLD = 0.1;
/** A screen fails when more than this share of its pixels differ. */
const MAX_RATIO = 0.005;
const SIZES = [
  { width: 700, height: 900 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];
const SCHEMES = ['light', 'dark'];

// Fixed folders: the paths the UI shows are part of the pictures.
const ROOT = '/tmp/switchboard-screens';
const PROJECT = '/tmp/switchboard-screens-project';

const shots = screenshotDir();
const diffDir = join(shots, 'diff');
const actualDir = join(shots, 'screens');
let hub;
let browser;
/** Whether this run took the fixed folders (and so removes them at the end). */
let claimed = false;

/** Takes the fixed folders, refusing when a live run holds them. */
function claimFolders() {
  const pidFile = join(ROOT, 'pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = pid !== process.pid;
    } catch {
      // gone: its folders are leftovers
    }
    if (alive) throw new Error(`another screens run (pid ${pid}) uses ${ROOT}: wait for it`);
  }
  for (const d of [ROOT, PROJECT]) rmSync(d, { recursive: true, force: true });
  mkdirSync(ROOT, { recursive: true });
  writeFileSync(pidFile, String(process.pid));
  claimed = true;
}

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: ROOT,
  GIT_AUTHOR_NAME: 'Screens',
  GIT_AUTHOR_EMAIL: 'screens@example.com',
  GIT_COMMITTER_NAME: 'Screens',
  GIT_COMMITTER_EMAIL: 'screens@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T12:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T12:00:00Z',
};
const git = (...args) => execFileSync('git', args, { cwd: PROJECT, env: gitEnv, encoding: 'utf8' });

/** The agent's answer in the streaming screen: Markdown, cut mid-sentence where it holds. */
const STREAMED = [
  'I looked at the failing test in `store/events_test.go`. ',
  'The cursor is read before the write commits, so a reader can miss the last event.\n\n',
  '**Plan**\n\n1. Take the cursor inside the transaction.\n2. Add a test that writes and reads at once.\n',
  '3. Run the store tests under the race detector.\n\n',
  'Starting with the transaction: ',
];

const until = async (what, f, ms = 10000) => {
  for (const t0 = Date.now(); Date.now() - t0 < ms; ) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** The page, laid out and painted: web fonts loaded, two animation frames, the mouse outside it. */
async function settle(page) {
  await page.mouse.move(-10, -10);
  await page.evaluate(
    () =>
      new Promise((resolve) =>
        document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
      ),
  );
}

/** Sets the colour scheme and waits until the page's media query says so. */
async function setScheme(page, colorScheme) {
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  await page.waitForFunction((dark) => matchMedia('(prefers-color-scheme: dark)').matches === dark, colorScheme === 'dark');
}

const mismatches = [];
const violations = [];
const compared = [];

/** Shoots the screen name in every size and scheme, compares each with its baseline, runs axe on each. */
async function shoot(page, name) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const s of SCHEMES) {
      await setScheme(page, s);
      await settle(page);
      const file = `${name}-${s}-${size.width}.png`;
      const buf = await page.screenshot({ animations: 'disabled', caret: 'hide', scale: 'css' });
      writeFileSync(join(actualDir, file), buf);
      const { violations: vs } = await axeRun(page);
      for (const v of vs) violations.push(`  [${name}/${s}/${size.width}] ${v.id} (${v.impact}, ${v.count}): ${v.help}\n      ${v.targets.join('\n      ')}`);
      const base = join(baselineDir, file);
      if (update) {
        writeFileSync(base, buf);
        compared.push(`${file} written`);
        continue;
      }
      if (!existsSync(base)) {
        mismatches.push(`${file}: no baseline (make screenshots-update writes it)`);
        continue;
      }
      const a = PNG.sync.read(buf);
      const b = PNG.sync.read(readFileSync(base));
      if (a.width !== b.width || a.height !== b.height) {
        writeFileSync(join(diffDir, file.replace(/\.png$/, '-actual.png')), buf);
        mismatches.push(`${file}: ${a.width}×${a.height}, the baseline ${b.width}×${b.height}`);
        continue;
      }
      const diff = new PNG({ width: a.width, height: a.height });
      const n = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: PIXEL_THRESHOLD });
      const ratio = n / (a.width * a.height);
      compared.push(`${file} ${(ratio * 100).toFixed(3)} %`);
      if (ratio > MAX_RATIO) {
        writeFileSync(join(diffDir, file.replace(/\.png$/, '-actual.png')), buf);
        writeFileSync(join(diffDir, file.replace(/\.png$/, '-diff.png')), PNG.sync.write(diff));
        mismatches.push(`${file}: ${(ratio * 100).toFixed(2)} % of the pixels differ (at most ${MAX_RATIO * 100} %)`);
      }
    }
  }
  log(`${name}: ${SIZES.length * SCHEMES.length} shots`);
}

/** Waits until a permission card's answer buttons can be pressed (they arm after a moment). */
const armed = (page) =>
  page.waitForFunction(() => {
    const g = document.querySelector('section.permission.pending [role="group"][aria-label="Answer"]');
    return g && !g.inert && g.getAttribute('aria-busy') === 'false';
  });

/**
 * The key screens, in order: each goes from where the one before left the
 * page to its own state (run even when SCREENS skips its shots, since the
 * next builds on it). When the UI changes its landmarks, fix them here.
 */
const SCREENS = [
  {
    name: 'empty',
    async reach() {},
  },
  {
    name: 'streaming',
    async reach(page, ctx) {
      const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: PROJECT, title: 'Fix the store cursor' } })).thread;
      // Chunks of at most 24 bytes: the prompt (shown as the user's message)
      // is then words short enough to wrap at 700 px.
      const b64 = STREAMED.join('')
        .match(/[^]{1,24}/g)
        .map((s) => Buffer.from(s).toString('base64'))
        .join(' ');
      await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: `chunks-hang ${b64}` } });
      await ctx.open('Fix the store cursor');
      await page.getByRole('list', { name: 'Conversation' }).getByText('Starting with the transaction').waitFor();
    },
  },
  {
    name: 'approval',
    async reach(page, ctx) {
      const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: PROJECT, title: 'Clean the build' } })).thread;
      await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'permission' } });
      const p = await until('the permission', async () => (await hub.api('GET', '/v1/permissions?status=pending')).permissions[0]);
      // Its countdowns read "5 minutes" in every run.
      await page.clock.setFixedTime(Date.parse(p.deadline) - 5 * 60 * 1000);
      await ctx.open('Clean the build');
      await page.getByRole('region', { name: /^Permission request/ }).waitFor();
      await armed(page);
    },
  },
  {
    name: 'inbox',
    async reach(page) {
      await page.getByRole('button', { name: /^Approvals/ }).click();
      await page.getByRole('region', { name: 'Pending approvals' }).getByRole('listbox', { name: 'Pending requests' }).waitFor();
      await page.waitForFunction(() => document.querySelector('#approvals [role="listbox"]')?.getAttribute('aria-busy') === 'false');
      await armed(page);
    },
    async leave(page) {
      await page.getByRole('button', { name: /^Approvals/ }).click();
      await page.getByRole('region', { name: 'Pending approvals' }).waitFor({ state: 'detached' });
    },
  },
  {
    name: 'settings',
    async reach(page) {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: 'Settings' }).getByText(/Saved to/).waitFor();
    },
    async leave(page) {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
    },
  },
  {
    name: 'diff',
    async reach(page, ctx) {
      const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: PROJECT, title: 'Reword the notes' } })).thread;
      const turn = (
        await hub.api('POST', `/v1/threads/${th.id}/turns`, {
          body: { input: `fs-write ${join(PROJECT, 'notes.md')} ${NOTES_AFTER}` },
        })
      ).turn;
      await until('the fs-write turn', async () => {
        const t = (await hub.api('GET', `/v1/threads/${th.id}/history`)).turns.find((x) => x.id === turn.id);
        if (t && t.status !== 'running' && t.output !== 'fs-write ok') throw new Error(`the agent did not write: ${t.output}`);
        return t && t.status !== 'running';
      });
      await ctx.open('Reword the notes');
      await page.getByRole('button', { name: 'Changes' }).click();
      await page.getByLabel('Changes to notes.md').waitFor();
    },
  },
];

const NOTES_BEFORE = '# Notes\n\nThe store keeps events in order.\nReaders follow a cursor.\nWrites happen in one transaction.\n\n## Open\n\n- flaky test in events_test.go\n';
const NOTES_AFTER = '# Notes\n\nThe store keeps events in order.\nReaders follow a cursor taken inside the transaction.\nWrites happen in one transaction.\n\n## Open\n\n- none: the race is fixed\n- add a benchmark for the cursor\n';

async function main() {
  const unknown = [...(only ?? [])].filter((n) => !SCREENS.some((x) => x.name === n));
  if (unknown.length) throw new Error(`SCREENS names no such screen: ${unknown.join(', ')} (the screens: ${SCREENS.map((x) => x.name).join(', ')})`);
  claimFolders();
  mkdirSync(baselineDir, { recursive: true });
  mkdirSync(actualDir, { recursive: true });
  rmSync(diffDir, { recursive: true, force: true });
  mkdirSync(diffDir, { recursive: true });
  mkdirSync(PROJECT);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(PROJECT, 'notes.md'), NOTES_BEFORE);
  git('add', '-A');
  git('commit', '-qm', 'notes');

  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(ROOT);
  hub = await startHub(ROOT, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const ctx = {
    async open(title) {
      await nav.getByRole('button', { name: new RegExp(title) }).first().click();
      await page.getByRole('heading', { name: title }).waitFor();
    },
  };

  for (const screen of SCREENS) {
    await screen.reach(page, ctx);
    if (!only || only.has(screen.name)) await shoot(page, screen.name);
    await screen.leave?.(page);
  }
  if (hub.proc.exitCode !== null) throw new Error(`the hub exited:\n${hub.log()}`);
  noProblems(problems);

  log(`compared: ${compared.join(', ')}`);
  const failures = [];
  if (mismatches.length) failures.push(`screenshots differ from their baselines (actual and diff in ${diffDir}):\n  ${mismatches.join('\n  ')}`);
  if (violations.length) failures.push(`axe violations:\n${violations.join('\n')}`);
  if (failures.length) throw new Error(failures.join('\n'));
  log(update ? `baselines written to ${baselineDir}` : 'every screen matches its baseline; axe finds nothing');
}

await runScript('screens', main, {
  live: () => ({ hub, browser }),
  failureDir: join(shots, 'diff'),
  cleanup: () => {
    if (!claimed) return;
    if (process.env.E2E_KEEP) log('kept', ROOT, PROJECT);
    else for (const d of [ROOT, PROJECT]) rmSync(d, { recursive: true, force: true });
  },
});
