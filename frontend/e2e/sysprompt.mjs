// The client system prompt (issue 32, ADR 0050): a real headless hub, the
// project's fake ACP agent (one that takes a system prompt, one that does
// not), headless Chromium.
//
//   node e2e/sysprompt.mjs        (after `vite build`)
//
//   1. Settings → Agents → Instructions of "Prompted": its note says it
//      takes them added to its own only; text typed and committed is saved
//      to the config file (sysprompt-settings{,-dark}-{1440,700}.png);
//   2. Settings → Folders → Add folder: the project folder's instructions
//      (sysprompt-folders{,-dark}-1440.png);
//   3. A thread of "Prompted" in the folder: after its turn the agent got
//      the agent's then the folder's text in append mode (its record), and
//      the thread's line says "agent + folder (added to the agent's own) ·
//      sent", the text behind its disclosure
//      (sysprompt-thread{,-dark}-{1440,700}.png);
//   4. A thread of "Plain" (no systemPrompt capability), open before its
//      first turn: its line says pending, then, live, that the
//      instructions were not sent (sysprompt-thread-unsent{,-dark}-1440.png).
// The page reports no error, no HTTP error and no failed request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir, turnDone } from './harness.mjs';

const log = logger('sysprompt');
const shots = screenshotDir();
const tmp = tempDir('switchboard-sysprompt-');
const proj = tempDir('switchboard-sysprompt-project-');
let hub;
let browser;
const check = checker(log);

async function shoot(page, target, name, widths = [1440, 700]) {
  for (const w of widths) {
    await page.setViewportSize({ width: w, height: 900 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const path = join(shots, `${name}${scheme === 'dark' ? '-dark' : ''}-${w}.png`);
      if (target) {
        await target.scrollIntoViewIfNeeded();
        await target.screenshot({ path });
      } else await page.screenshot({ path }); // the whole window
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const rec = join(tmp.dir, 'prompted.jsonl');
  const fake = (env) => ({ command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1', ...env } });
  hub = await startHub(tmp.dir, {
    prompted: { name: 'Prompted', ...fake({ FAKEAGENT_SYSTEM_PROMPT: 'append', FAKEAGENT_RECORD: rec }) },
    plain: { name: 'Plain', ...fake({}) },
  });
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  await page.setViewportSize({ width: 1440, height: 900 });

  log('1. Settings → Agents → Instructions');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const agents = settings.getByRole('region', { name: 'Agents' });
  const row = agents.locator('li.agent').filter({ has: page.locator('span.name', { hasText: /^Prompted$/ }) });
  const toggle = row.getByRole('button', { name: 'Instructions of Prompted' });
  // The note needs the agent's capabilities: probed at start.
  await row.getByRole('button', { name: 'What it can do of Prompted' }).waitFor({ timeout: 30000 });
  await toggle.click();
  const panel = row.getByRole('group', { name: 'Instructions of Prompted' });
  await panel.getByText('Prompted takes instructions added to its own only').waitFor();
  await panel.getByLabel('Text').fill('Answer in French.\nKeep answers short.');
  await panel.getByLabel('How').focus(); // leaving the text commits it
  await panel.getByText('Saved').waitFor();
  const st = (await hub.api('GET', '/v1/settings')).settings;
  const entry = st.agents.find((a) => a.id === 'prompted');
  check(entry?.instructions?.text === 'Answer in French.\nKeep answers short.' && entry.instructions.mode === 'append', 'the agent\'s instructions are saved');
  await shoot(page, row, 'sysprompt-settings');

  log('2. Settings → Folders → Add folder');
  await settings.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Folders' }).click();
  const folders = settings.getByRole('region', { name: 'Folders' });
  const part = folders.getByRole('group', { name: 'Instructions', exact: true }); // beside Extra folders
  await part.getByLabel('Add folder').fill(proj.dir);
  await part.getByRole('button', { name: 'Add' }).click();
  const fpanel = folders.getByRole('group', { name: `Instructions of ${proj.dir}` });
  await fpanel.getByLabel('Text').fill('This project indents with tabs.');
  await fpanel.getByLabel('How').focus();
  await fpanel.getByText('Saved').waitFor();
  const fst = (await hub.api('GET', '/v1/settings')).settings;
  check(fst.folders?.some((f) => f.glob === proj.dir && f.instructions?.text === 'This project indents with tabs.'), 'the folder\'s instructions are saved');
  await shoot(page, folders, 'sysprompt-folders', [1440]);
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });

  log('3. A thread with the agent\'s and the folder\'s instructions');
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const open = async (title) => {
    await nav.getByRole('button', { name: new RegExp(title) }).first().click();
    await page.getByRole('heading', { name: title }).waitFor();
  };
  const th = (await hub.api('POST', '/v1/threads', { body: { agent: 'prompted', cwd: proj.dir, title: 'Tidy the notes' } })).thread;
  const turn = (await hub.api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'hello' } })).turn;
  await turnDone(hub, th.id, turn.id);
  const sent = readFileSync(rec, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((r) => r.method === 'session/new')?.params?.systemPrompt;
  check(
    sent?.mode === 'append' && sent.content?.[0]?.text === 'Answer in French.\nKeep answers short.\n\nThis project indents with tabs.',
    'the agent got the agent\'s then the folder\'s text, in append mode',
  );
  await open('Tidy the notes');
  const line = page.locator('[data-instructions]');
  await line.getByText('agent + folder (added to the agent’s own) · sent').waitFor();
  await line.getByRole('button', { name: /^Instructions/ }).click();
  await line.getByText('This project indents with tabs.').waitFor();
  check(true, 'the thread says where its instructions came from and that they were sent');
  await shoot(page, null, 'sysprompt-thread');

  log('4. An agent that does not take them');
  // Open before its first turn: the line is pending, then changes live
  // when the session opens (thread_updated), with no reload.
  const plain = (await hub.api('POST', '/v1/threads', { body: { agent: 'plain', cwd: proj.dir, title: 'Plain notes' } })).thread;
  await open('Plain notes');
  await page.locator('[data-instructions="pending"]').getByText('sent with the first message').waitFor();
  const pturn = (await hub.api('POST', `/v1/threads/${plain.id}/turns`, { body: { input: 'hello' } })).turn;
  await turnDone(hub, plain.id, pturn.id);
  await page.locator('[data-instructions="not_sent"]').getByText('not sent: Plain does not take instructions').waitFor();
  check(true, 'the open thread says, once its session opened, that the instructions were not sent');
  await shoot(page, null, 'sysprompt-thread-unsent', [1440]);

  noProblems(problems);
  log('ok');
}

await runScript('sysprompt', main, {
  live: () => ({ hub, browser }),
  failureDir: join(screenshotDir(), 'sysprompt-failure'),
  hubLines: 30,
  cleanup: () => {
    tmp.remove(log);
    proj.remove(log);
  },
});
