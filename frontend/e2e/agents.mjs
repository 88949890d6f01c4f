// Agents from the app alone (issue 15) in a real browser against a real
// headless hub, the project's fake agent behind each:
//
//   node e2e/agents.mjs        (after `vite build`; npm run e2e runs it)
//
//   - install: Settings → Agents → Install on an agent distributed through
//     npm, from a package packed from a fixture (`npm pack`) and served by
//     a local npm registry; the progress bar shows, then "Installed
//     1.0.0"; a new thread with it runs a turn;
//   - sign in through a terminal method: a turn refused because the agent
//     needs signing in shows "Sign in to <agent>" in the thread; its
//     terminal method runs in the hub's terminal, shown in the page, the
//     code typed into it; once it exits 0 the failed turn is sent again by
//     itself and answers in the thread;
//   - sign in through an agent method, the same way;
//   - logos: the ACP registry (a local one here) names a logo for the
//     fixture's npm package; the hub fetches it once and Settings shows it
//     in place of the monogram (the window loads nothing from the network).
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';
import { fixtureRegistry } from './npmfixture.mjs';

const log = logger('agents');
const tmp = tempDir('switchboard-agents-');
let hub;
let browser;
let registry;
let acpRegistry;

const check = checker(log);

async function main() {
  log('building the hub and the fake agent; packing the fixture package');
  const agentBin = buildFakeAgent(tmp.dir);
  const fake = (env = {}) => ({ command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1', ...env } });
  const pkg = 'switchboard-e2e-fixture-agent';
  registry = await fixtureRegistry(tmp.dir, { name: pkg, version: '1.0.0', bin: 'fixture-agent' });
  // The ACP registry: one agent of the fixture's package, with a logo.
  const logo = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="4" fill="#6b4fbb"/></svg>';
  acpRegistry = createServer((req, res) => {
    if (req.url === '/logo.svg') return res.end(logo);
    const base = `http://127.0.0.1:${acpRegistry.address().port}`;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ version: '1.0.0', agents: [{ id: 'fixture-registry', name: 'Fixture (registry)', version: '1.0.0', icon: `${base}/logo.svg`, distribution: { npx: { package: `${pkg}@1.0.0` } } }] }));
  });
  await new Promise((r) => acpRegistry.listen(0, '127.0.0.1', r));
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  hub = await startHub(
    tmp.dir,
    {
      fixture: {
        name: 'Fixture',
        args: ['-test.run=^$'],
        env: { SWITCHBOARD_FAKE_AGENT: '1', FIXTURE_AGENT_BIN: agentBin },
        npm: { package: pkg, version: '1.0.0', bin: 'fixture-agent' },
      },
      authterm: {
        name: 'Auth terminal',
        ...fake({ FAKEAGENT_AUTH_REQUIRED: '1', FAKEAGENT_CRED_FILE: join(tmp.dir, 'creds') }),
      },
      authagent: { name: 'Auth agent', ...fake({ FAKEAGENT_AUTH_REQUIRED: '1' }) },
    },
    { install: { registry: registry.url }, registry: { url: `http://127.0.0.1:${acpRegistry.address().port}/registry.json` } },
  );
  const { api } = hub;
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(30000);
  const conv = page.getByRole('list', { name: 'Conversation' });

  const newThread = async (agent, title) => {
    await page.getByRole('button', { name: 'New thread' }).click();
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
    await conv.getByText(text).first().waitFor();
  };

  // 1. Install from Settings → Agents, progress shown, then a turn.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const agents = settings.getByRole('region', { name: 'Agents' });
  const install = agents.getByRole('button', { name: 'Install Fixture', exact: true });
  await install.waitFor();
  // The registry's logo, fetched by the hub when the agents were listed, in place of the monogram.
  const fixtureRow = agents.locator('li.agent').filter({ has: page.getByText('Fixture', { exact: true }) });
  const logoImg = fixtureRow.locator('img.agent-icon');
  await logoImg.waitFor({ timeout: 30000 });
  const src = await logoImg.getAttribute('src');
  check(src?.startsWith('data:image/svg+xml;base64,') && (await logoImg.evaluate((i) => i.complete && i.naturalWidth > 0)), 'Settings shows the registry\'s logo for the agent, as a data: URL, drawn');
  check((await fixtureRow.locator('.monogram').count()) === 0, 'and no monogram beside it');
  await agents.screenshot({ path: join(screenshotDir(), 'agents-logo.png') });
  // Every value the progress bar shows, however briefly.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const p = document.querySelector('progress[aria-label="Installing Fixture"]');
      if (p) window.__progress.push(Number(p.value));
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const began = Date.now();
  await install.click();
  await agents.getByText('Installed 1.0.0').waitFor({ timeout: 120000 });
  const took = /msg="agents: installed" agent=fixture .* took=(\S+)/.exec(hub.log())?.[1];
  log(`install: ${((Date.now() - began) / 1000).toFixed(2)} s from the click to "Installed 1.0.0" (the hub's install: ${took})`);
  const seen = await page.evaluate(() => window.__progress);
  check(seen.length > 0, `the install showed its progress (${seen.map((v) => v.toFixed(2)).join(' ')})`);
  const listed = (await api('GET', '/v1/agents')).agents.find((a) => a.id === 'fixture');
  // npm asks the registry for the package's metadata (its tarball may come
  // from npm's own cache, where `npm pack` left it, integrity checked).
  check(
    listed.status === 'available' &&
      listed.installed?.version === '1.0.0' &&
      listed.installed.path.startsWith(join(tmp.dir, 'data', 'agents', 'fixture')) &&
      registry.fetches() >= 1,
    `the hub installed it from the local registry into its data dir, and lists it available`,
  );
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });
  const fx = await newThread('Fixture', 'Installed agent');
  await send('echo installed from the app');
  await conv.locator('.md').filter({ hasText: 'installed from the app' }).waitFor();
  const fxTurns = (await api('GET', `/v1/threads/${fx.id}/history`)).turns;
  check(fxTurns.length === 1 && fxTurns[0].status === 'completed', 'a turn with the installed agent ran');

  // 2. Sign in through a terminal method, from the thread.
  const signInThread = async (agent, title, text) => {
    const th = await newThread(agent, title);
    await send(text);
    await conv.getByRole('alert').filter({ hasText: 'needs you to sign in' }).waitFor();
    const box = conv.locator('[data-signin-needed]');
    await box.getByText(`Sign in to ${agent}`).waitFor();
    const methods = box.getByRole('list', { name: `Ways to sign in to ${agent}` });
    await methods.waitFor(); // shown at once, in the thread
    return { th, box, methods };
  };
  const retried = async (th, answer) => {
    await conv.getByText('Sent again after signing in').waitFor();
    await conv.locator('.md').filter({ hasText: answer }).waitFor();
    await conv.locator('[data-signin-needed]').waitFor({ state: 'detached' });
    const turns = (await api('GET', `/v1/threads/${th.id}/history`)).turns;
    return turns.length === 2 && turns[0].status === 'failed' && turns[1].status === 'completed' && turns[1].output === answer;
  };

  const term = await signInThread('Auth terminal', 'Terminal sign-in', 'echo after the terminal sign-in');
  await term.methods.getByRole('button', { name: 'Fake terminal login' }).click();
  const screen = term.box.getByRole('group', { name: 'Auth terminal sign-in terminal' });
  await screen.locator('.xterm-rows').getByText(/Enter the code/).waitFor();
  check(true, "the terminal method's program runs in the hub and shows in a terminal in the page");
  // The terminal has the keyboard: keys go to the program as typed, raw.
  await page.keyboard.type('1234');
  await screen.locator('.xterm-rows').getByText(/1234/).waitFor();
  check(true, 'keys typed into the terminal reach the program (its echo shows)');
  await term.box.screenshot({ path: join(screenshotDir(), 'signin-terminal.png') });
  await page.keyboard.press('Enter');
  check(await retried(term.th, 'after the terminal sign-in'), 'after the terminal sign-in the failed turn was sent again by itself, and answered in the thread');

  // 3. Sign in through an agent method.
  const agentM = await signInThread('Auth agent', 'Agent sign-in', 'echo after the agent sign-in');
  await agentM.methods.getByRole('button', { name: 'Fake login' }).click();
  check(await retried(agentM.th, 'after the agent sign-in'), 'after the agent method the failed turn was sent again by itself, and answered in the thread');

  noProblems(problems);
}

await runScript('agents', main, {
  live: () => ({ hub, browser }),
  cleanup: async () => {
    await registry?.close();
    acpRegistry?.close();
    tmp.remove(log);
  },
});
