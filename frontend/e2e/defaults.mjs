// Session defaults and the pickers of a new thread (issue 29): a real
// headless hub, the project's fake ACP agent starting its sessions in an
// auto-approve mode ("yolo", as Qwen Code's "auto"), headless Chromium.
//
//   node e2e/defaults.mjs        (after `vite build`)
//
//   1. a thread created in the page shows the Mode and Model pickers
//      before any prompt (the window opens its session at creation), in
//      the agent's own mode (screenshot defaults-pickers.png);
//   2. Settings → Agents → Session defaults: Qwen Code's built-in asking
//      mode is shown; for the fake agent it offers the modes the agent
//      announced; "Default" is saved into agents.yolo.defaults
//      (screenshots defaults-settings{,-dark}{,-700}.png);
//   3. a new thread starts in that mode, pickers before any prompt, and
//      its first prompt runs in it (the fake agent says the mode it found);
//   4. an agent whose default mode it does not offer: the prompt is
//      refused, and the thread says which default and what the agent
//      offers (screenshot defaults-refused.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('defaults');
const shots = screenshotDir();
const tmp = tempDir('switchboard-defaults-');
const proj = tempDir('switchboard-defaults-project-');
let hub;
let browser;
const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const fake = (name, extra = {}) => ({
    name,
    command: agentBin,
    args: ['-test.run=^$'],
    env: { SWITCHBOARD_FAKE_AGENT: '1', FAKEAGENT_MODES: 'yolo,default,plan' },
    ...extra,
  });
  hub = await startHub(tmp.dir, { yolo: fake('Yolo'), strict: fake('Strict', { defaults: { mode: 'careful' } }) });
  const { api } = hub;
  const work = proj.dir;

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  const conv = page.getByRole('list', { name: 'Conversation' });
  const mode = page.getByRole('combobox', { name: 'Mode', exact: true });
  const model = page.getByRole('combobox', { name: 'Model', exact: true });

  const newThread = async (agent, title) => {
    await page.getByRole('button', { name: 'New thread' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New thread' });
    await dialog.getByRole('radio', { name: new RegExp(agent) }).check();
    await dialog.getByRole('textbox', { name: 'Folder' }).fill(work);
    await dialog.getByRole('textbox', { name: 'Title (optional)' }).fill(title);
    await dialog.getByRole('button', { name: 'Create thread' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: title }).waitFor();
    return (await api('GET', '/v1/threads')).threads.find((t) => t.title === title);
  };
  const send = async (text) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };
  const turns = async (id) => (await api('GET', `/v1/threads/${id}/history`)).turns;

  // 1. The pickers of a new thread, before any prompt.
  log('1. a new thread shows its pickers before the first prompt');
  const first = await newThread('Yolo', 'First');
  await mode.waitFor({ timeout: 15000 });
  await model.waitFor();
  check((await mode.inputValue()) === 'yolo', `the Mode picker shows the agent's own mode before any prompt (${await mode.inputValue()})`);
  check((await model.inputValue()) === 'fake-small', 'the Model picker is there too');
  check((await turns(first.id)).length === 0, 'no prompt was sent to get them');
  // The pickers' row starts where the text box does (it sat ~40 px to
  // the right: the row's smaller text made its ch-based measure narrower).
  const box = await page.getByRole('textbox', { name: 'Message' }).boundingBox();
  const picker = await page.locator('.composer .session').boundingBox();
  check(Math.abs(picker.x - box.x) <= 1, `the pickers line up with the text box (x ${picker.x} vs ${box.x})`);
  await page.locator('.session').first().screenshot({ path: join(shots, 'defaults-pickers.png') });

  // 2. Settings → Agents → Session defaults.
  log('2. a default mode chosen in Settings');
  await page.getByRole('button', { name: 'Settings', exact: true }).first().click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const qwenRow = settings.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Session defaults of Qwen Code' }) });
  const qwenSays = (await qwenRow.getByText(/\(built in\)/).textContent()) ?? '';
  check(qwenSays === 'mode default (built in)', `Qwen Code shows its built-in asking mode: ${qwenSays}`);
  const defaults = settings.getByRole('button', { name: 'Session defaults of Yolo' });
  await defaults.click();
  const panel = settings.getByRole('group', { name: 'Session defaults of Yolo' });
  const modeSel = panel.getByRole('combobox', { name: 'Mode', exact: true });
  const offered = await modeSel.locator('option').allTextContents();
  check(offered.join('|') === 'The agent’s own|Yolo|Default|Plan', `the modes the agent announced are offered: ${offered.join(', ')}`);
  await modeSel.selectOption('default');
  await panel.getByRole('combobox', { name: 'Model', exact: true }).waitFor();
  // Saved as it is chosen (ADR 0037): no button to press.
  await panel.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  const saved = (await api('GET', '/v1/settings')).settings.agents.find((a) => a.id === 'yolo');
  check(saved?.defaults?.mode === 'default', `agents.yolo.defaults.mode is saved: ${JSON.stringify(saved?.defaults)}`);
  check(/"defaults"|defaults:/.test(readFileSync(hub.config, 'utf8')), 'the config file holds it');
  await panel.scrollIntoViewIfNeeded();
  for (const [w, suffix] of [
    [1440, ''],
    [700, '-700'],
  ]) {
    await page.setViewportSize({ width: w, height: 860 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(shots, `defaults-settings${suffix}.png`) });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(shots, `defaults-settings-dark${suffix}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });

  // 3. A new thread starts in the default, and its first prompt runs in it.
  log('3. a new thread starts in the default');
  const second = await newThread('Yolo', 'Second');
  await page.waitForFunction(() => document.querySelector('select[aria-label="Mode"]')?.value === 'default', null, { timeout: 15000 });
  check((await turns(second.id)).length === 0, 'the default mode shows before any prompt');
  await send('state');
  await conv.getByText('state mode=default model=fake-small').waitFor();
  const ran = (await turns(second.id))[0];
  check(ran?.output === 'state mode=default model=fake-small', `the first prompt ran in the default mode: ${ran?.output}`);

  // 4. A default the agent does not offer: the prompt is refused, said.
  log('4. a default the agent does not offer');
  const strict = await newThread('Strict', 'Strict');
  await send('state');
  // The hub's words are the error's detail (behind "Details", ErrorNotice).
  await conv.getByText(/agents\.strict\.defaults\.mode is "careful"/).first().waitFor({ state: 'attached' });
  const refused = (await turns(strict.id))[0];
  check(refused?.status === 'failed' && !refused.output, `the prompt was not sent: ${JSON.stringify(refused)}`);
  const said = (await conv.textContent()) ?? '';
  check(said.includes('"yolo", "default", "plan"'), 'the thread says what the agent offers');
  await page.screenshot({ path: join(shots, 'defaults-refused.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'defaults-refused-dark.png') });

  noProblems(problems);
  log('all checks passed');
}

runScript('defaults', main, {
  live: () => ({ hub, browser }),
  failureDir: join(shots, 'defaults-failure'),
  cleanup: () => {
    tmp.remove(log);
    proj.remove(log);
  },
});
