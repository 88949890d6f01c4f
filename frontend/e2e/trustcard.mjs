// The approval card shows what an approval allows, not the agent's title:
// a real headless hub, the project's fake ACP agent asking for a command
// whose title ("npm test") is not what runs, headless Chromium.
//
//   node e2e/trustcard.mjs        (after `vite build`)
//
// The hub describes each permission (Permission.kind and .request: argv,
// cwd, env, paths, flags); the page must show that description first.
//   1. the thread's card leads with the argv ("touch 'X Y'"), the folder,
//      PATH=… highlighted and the warnings; "npm test" appears only as
//      "The agent says: …" (screenshots build/screenshots/trust-card.png,
//      trust-card-dark.png);
//   2. the Approvals inbox row names the command, not the title, and its
//      card offers no "Always…" for a change to git's own settings
//      (screenshot trust-inbox.png);
//   3. once decided, the decision history row shows the command, the
//      environment and the agent's words (screenshot trust-history.png).
// The page reports no error, no HTTP error and no failed request.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('trustcard');
const shots = screenshotDir();
const tmp = tempDir('switchboard-trustcard-');
// The project lies apart from the hub's config folder, which the hub
// protects from agents.
const proj = tempDir('switchboard-trustcard-project-');
let hub;
let browser;
const check = checker(log);

const options = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
const ask = (toolCall) => `ask ${JSON.stringify({ toolCall, options })}`;

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = proj.dir;
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title: 'Trust' } })).thread;
  await api('POST', `/v1/threads/${th.id}/turns`, {
    body: {
      // A hostile agent: its title says "npm test", its command is another,
      // and it sets PATH to a folder of its own.
      input: ask({
        toolCallId: 't1',
        title: 'npm test',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: "touch 'X Y'", env: { PATH: '/tmp/evil/bin:/usr/bin', API_TOKEN: 'secret' } },
      }),
    },
  });
  for (let i = 0; i < 200 && !(await api('GET', '/v1/permissions?status=pending')).permissions.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;

  // 1. The card in its thread.
  log('1. the card in the thread');
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /^Trust/ }).click();
  await page.getByRole('heading', { name: 'Trust', exact: true }).waitFor();
  const card = page.getByRole('region', { name: "Permission request: touch 'X Y'" });
  await card.waitFor();
  await card.scrollIntoViewIfNeeded();
  check((await card.locator('strong.title').textContent()) === 'Agent request: run a command', 'the card says what kind of request it is');
  const cmd = card.getByRole('group', { name: 'Command' });
  check((await cmd.textContent()) === "touch 'X Y'", `the card shows the argv: ${await cmd.textContent()}`);
  check((await cmd.locator('.arg').allTextContents()).join('|') === "touch|'X Y'", 'each argument is its own word');
  const env = card.getByRole('list', { name: 'Environment set by the agent' });
  const path = env.locator('li.program', { hasText: 'PATH=/tmp/evil/bin:/usr/bin' });
  check((await path.count()) === 1, 'the PATH value is shown, highlighted');
  check((await env.getByText('API_TOKEN').count()) === 1 && !(await env.textContent()).includes('API_TOKEN='), 'a hidden variable is named, not valued');
  check((await card.getByText(work, { exact: true }).count()) === 1, 'the folder it runs in is shown');
  const warnings = (await card.getByRole('list', { name: 'Warnings' }).textContent()) ?? '';
  check(/change which program runs/.test(warnings) && /title is not the command/.test(warnings), 'the warnings are shown');
  const says = card.locator('p.says');
  check((await says.textContent())?.trim() === 'The agent says: npm test', 'the title is shown as the agent’s words');
  check((await card.getByText('npm test').count()) === 1, 'the title appears nowhere else on the card');
  await card.screenshot({ path: join(shots, 'trust-card.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await card.screenshot({ path: join(shots, 'trust-card-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });

  // 2. The inbox: a second request, a change to git's own settings.
  log('2. the inbox and a git settings request');
  const t2 = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title: 'Git' } })).thread;
  await api('POST', `/v1/threads/${t2.id}/turns`, { body: { input: `fs-write ${join(work, '.gitattributes')} * filter=x` } });
  await page.getByRole('button', { name: 'Approvals: 2 pending' }).click();
  const inbox = page.getByRole('region', { name: 'Pending approvals' });
  const list = inbox.getByRole('listbox', { name: 'Pending requests' });
  const row = list.getByRole('option').filter({ hasText: "touch 'X Y'" });
  await row.waitFor();
  check(!(await row.textContent()).includes('npm test'), 'the inbox row names the command, not the title');
  const gitRow = list.getByRole('option').filter({ hasText: '.gitattributes' });
  await gitRow.click();
  const gitCard = inbox.getByRole('region', { name: /Permission request in Git: .*\.gitattributes/ });
  await gitCard.waitFor();
  check((await gitCard.locator('strong.title').textContent()) === "Change git's own settings", 'the git card names it');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[aria-label^="Permission request in Git"] .options button')].some((b) => !b.disabled),
  );
  check((await gitCard.getByRole('button', { name: /Always/ }).count()) === 0, 'no "always" choice for git’s own settings');
  await page.screenshot({ path: join(shots, 'trust-inbox.png') });

  // 3. The decision history keeps what ran, the title as the agent's words.
  log('3. the decision history');
  const pending = (await api('GET', '/v1/permissions?status=pending')).permissions;
  const t1 = pending.find((x) => x.toolCall?.toolCallId === 't1');
  check(t1?.kind === 'agent' && t1.request?.argv?.join('|') === 'touch|X Y', `the hub described the request: ${JSON.stringify(t1?.request)}`);
  await api('POST', `/v1/permissions/${t1.id}`, { body: { outcome: 'declined' } });
  await inbox.getByRole('button', { name: 'History…' }).click();
  const history = page.getByRole('dialog', { name: 'Decision history' });
  const hrow = history.getByRole('row').filter({ hasText: "touch 'X Y'" });
  await hrow.waitFor();
  const cell = (await hrow.getByRole('cell').nth(3).textContent()) ?? '';
  check(
    cell.includes('Agent request: run a command') && cell.includes('PATH=/tmp/evil/bin:/usr/bin') && /The agent says: .?npm test/.test(cell),
    `the history row shows what ran, its environment and the agent's words: ${cell.replace(/\s+/g, ' ')}`,
  );
  await history.screenshot({ path: join(shots, 'trust-history.png') });

  noProblems(problems);
}

await runScript('trustcard', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) {
      tmp.remove(log);
      proj.remove(log);
    }
  },
});
