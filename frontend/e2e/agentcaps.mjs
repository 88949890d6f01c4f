// What an agent can do, and signing it out (issue 32, ADR 0047): a real
// headless hub, the project's fake ACP agent, headless Chromium.
//
//   node e2e/agentcaps.mjs        (after `vite build`)
//
//   1. Settings → Agents: the fake agent (probed at start) has "What it can
//      do"; opened, its card says images yes, audio yes, MCP over SSE no,
//      with a tooltip in words (screenshots agentcaps-settings{,-dark}.png
//      at 1440 px, agentcaps-settings-narrow{,-dark}.png at 700 px);
//   2. Add agent: a custom agent (the fake agent through /usr/bin/env) shows
//      its card as soon as it is added, with no thread; a program that is
//      no agent shows why its probe failed and what it printed
//      (agentcaps-probe-failed.png);
//   3. Sign out of the signed-in agent: asked once, then its credentials
//      file is gone and its next turn fails for want of a sign-in;
//   4. New thread: the chosen agent's compact card beside it, each icon
//      with its words (agentcaps-newthread{,-dark}.png, 700 and 1440 px);
//   5. New thread → Also give access to…: a folder added, the thread made
//      with it as additionalDirectories (agentcaps-extra-folders{,-dark}.png).
// The page reports no error, no HTTP error and no failed request.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('agentcaps');
const shots = screenshotDir();
const tmp = tempDir('switchboard-agentcaps-');
const proj = tempDir('switchboard-agentcaps-project-');
let hub;
let browser;
const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const creds = join(tmp.dir, 'creds');
  writeFileSync(creds, 'token'); // signed in, as its terminal sign-in leaves it
  const fakeEnv = { SWITCHBOARD_FAKE_AGENT: '1' };
  hub = await startHub(tmp.dir, {
    fake: {
      name: 'Fake',
      command: agentBin,
      args: ['-test.run=^$'],
      env: { ...fakeEnv, FAKEAGENT_AUTH_REQUIRED: '1', FAKEAGENT_CRED_FILE: creds, FAKEAGENT_MCP_CAPS: 'http', FAKEAGENT_SESSION_CAPS: '1', FAKEAGENT_LOAD_SESSION: '1' },
    },
  });
  const { api } = hub;
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  await page.setViewportSize({ width: 1440, height: 900 });

  // 1. The card in Settings.
  log('1. Settings → Agents: the card');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const agents = settings.getByRole('region', { name: 'Agents' });
  const toggle = agents.getByRole('button', { name: 'What it can do of Fake' });
  await toggle.waitFor({ timeout: 30000 });
  await toggle.click();
  const card = agents.getByRole('list', { name: 'What Fake can do' });
  await card.waitFor();
  const chip = (id) => card.locator(`[data-cap="${id}"]`);
  check((await chip('image').getAttribute('title')) === 'Fake takes images in a message.', 'images: yes, said in words');
  check((await chip('mcpSse').getAttribute('class')).includes('off'), 'MCP over SSE: shown as not supported');
  check(!(await chip('mcpHttp').getAttribute('class')).includes('off'), 'MCP over HTTP: supported');
  check(!(await chip('logout').getAttribute('class')).includes('off') && !(await chip('list').getAttribute('class')).includes('off'), 'sign-out and session list: supported');
  const row = agents.locator('li.agent').filter({ has: page.locator('span.name', { hasText: /^Fake$/ }) });
  for (const [w, name] of [
    [1440, 'agentcaps-settings'],
    [700, 'agentcaps-settings-narrow'],
  ]) {
    await page.setViewportSize({ width: w, height: 900 });
    await row.scrollIntoViewIfNeeded();
    await row.screenshot({ path: join(shots, `${name}.png`) });
    await page.emulateMedia({ colorScheme: 'dark' });
    await row.screenshot({ path: join(shots, `${name}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // 2. A custom agent is probed when it is added.
  log('2. Add agent: probed at once');
  const add = async (id, command, args) => {
    const form = agents.getByRole('form', { name: 'Add agent' });
    await form.getByLabel('Id').fill(id);
    await form.getByLabel('Command').fill(command);
    await form.getByLabel('Arguments').fill(args);
    await form.getByRole('button', { name: 'Add agent' }).click();
    await form.getByText(`Added ${id}.`).waitFor({ timeout: 15000 });
  };
  await add('mine', '/usr/bin/env', `SWITCHBOARD_FAKE_AGENT=1 ${agentBin} -test.run=^$`);
  const mine = agents.getByRole('button', { name: 'What it can do of mine' });
  await mine.waitFor({ timeout: 30000 });
  check((await api('GET', '/v1/threads')).threads.length === 0, 'the card came with no thread started');
  await add('broken', '/bin/sh', `-c "echo 'broken: BROKEN_KEY is not set' >&2; exit 3"`);
  const failed = agents.getByRole('note').filter({ hasText: 'could not ask broken what it can do' });
  await failed.waitFor({ timeout: 30000 });
  check((await failed.textContent()).includes('could not ask broken what it can do: it exited with code 3 before answering.'), 'the failed probe says how the program ended');
  check((await failed.getByLabel('What broken printed').textContent()) === 'broken: BROKEN_KEY is not set', 'and what it printed');
  await failed.scrollIntoViewIfNeeded();
  await agents.locator('li.agent').filter({ hasText: 'could not ask broken what it can do' }).screenshot({ path: join(shots, 'agentcaps-probe-failed.png') });

  // 3. Sign out.
  log('3. Sign out of Fake');
  await row.getByRole('button', { name: 'Sign out of Fake…' }).click();
  await row.getByText('Sign out of Fake? Its threads will ask you to sign in again.').waitFor();
  await row.getByRole('button', { name: 'Sign out', exact: true }).click();
  await row.getByText('Signed out of Fake. Its threads ask you to sign in at their next message.').waitFor({ timeout: 30000 });
  check(!existsSync(creds), "the agent's credentials are gone");
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'After' } })).thread;
  const tu = (await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: 'echo hi' } })).turn;
  let got;
  for (let i = 0; i < 300; i++) {
    got = (await api('GET', `/v1/threads/${th.id}/history`)).turns.find((x) => x.id === tu.id);
    if (got && got.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  check(got.status === 'failed' && /sign/i.test(got.error ?? ''), `the next turn asks for a sign-in: ${got.status} ${got.error}`);
  await page.keyboard.press('Escape');

  // 4. New thread.
  log('4. New thread: the compact card');
  await page.getByRole('button', { name: 'New thread' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New thread' });
  await dialog.getByRole('radio', { name: /^Fake/ }).check();
  const compact = dialog.getByRole('list', { name: 'What Fake can do' });
  await compact.waitFor();
  const items = compact.getByRole('listitem');
  check((await items.count()) === 6, `six icons: ${await items.count()}`);
  for (let i = 0; i < 6; i++) check(((await items.nth(i).getAttribute('title')) ?? '').startsWith('Fake '), `icon ${i} has its words`);
  for (const w of [1440, 700]) {
    await page.setViewportSize({ width: w, height: 900 });
    const suffix = w === 700 ? '-narrow' : '';
    await dialog.screenshot({ path: join(shots, `agentcaps-newthread${suffix}.png`) });
    await page.emulateMedia({ colorScheme: 'dark' });
    await dialog.screenshot({ path: join(shots, `agentcaps-newthread${suffix}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  }

  // 5. Also give access to…: the thread is created with the extra folder.
  log('5. New thread: Also give access to…');
  await page.setViewportSize({ width: 1440, height: 900 });
  const shared = tempDir('switchboard-agentcaps-shared-');
  try {
    await dialog.getByRole('textbox', { name: /^Folder/ }).fill(proj.dir);
    await dialog.getByRole('button', { name: 'Also give access to…' }).click();
    await dialog.getByRole('textbox', { name: 'Another folder the agent may use' }).fill(shared.dir);
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByRole('list', { name: 'Extra folders' }).getByText(shared.dir).waitFor();
    await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill('With extra');
    await dialog.screenshot({ path: join(shots, 'agentcaps-extra-folders.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await dialog.screenshot({ path: join(shots, 'agentcaps-extra-folders-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await dialog.getByRole('button', { name: 'Create thread' }).click();
    await page.getByRole('heading', { name: 'With extra' }).waitFor();
    const made = (await api('GET', '/v1/threads')).threads.find((t) => t.title === 'With extra');
    check(JSON.stringify(made?.additionalDirectories) === JSON.stringify([shared.dir]), `the thread has the extra folder: ${JSON.stringify(made?.additionalDirectories)}`);
  } finally {
    shared.remove(log);
  }

  noProblems(problems);
}

await runScript('agentcaps', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
