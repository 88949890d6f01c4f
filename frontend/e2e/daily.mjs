// The daily driver (issue 21) in a real browser against a real headless
// hub with the fake agent (acp/acptest), with real key events:
//
//   node e2e/daily.mjs        (after `vite build`; npm run e2e runs it)
//
//   - every thread has a URL, /#/t/<id>: selecting pushes it, back and
//     forward step through the threads, a reload keeps the open thread,
//     its scroll position and the composer's draft;
//   - the keymap: Alt+1…9 and Alt+↑/↓ switch threads, Ctrl+Shift+A opens
//     Approvals, ? lists the keys, Escape closes only the topmost, Ctrl+K
//     opens Search, Ctrl+. stops the running turn (Escape never does),
//     A and D answer the focused permission, not within its 500 ms guard;
//     Ctrl+digit and Ctrl+N stay the browser's;
//   - archive from the thread's header: it leaves the list (and GET
//     /v1/threads), stays after a reload, search finds it marked
//     "archived", it shows again on "Show archived";
//   - export as Markdown and JSON lines (downloads), and import of the
//     JSON lines file as a new thread.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, startHub, tempDir, threadAction } from './harness.mjs';
import { axeRun } from './a11y.mjs';

const log = logger('daily');
const tmp = tempDir('switchboard-daily-');
let hub;
let browser;

const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const mk = async (title) => (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title } })).thread;
  const waitIdle = async (id) => {
    for (let i = 0; i < 200; i++) {
      if ((await api('GET', `/v1/threads/${id}`)).thread.status === 'idle') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`thread ${id} did not end its turn`);
  };
  // Created oldest first: the list shows Gamma, Beta, Alpha (newest first).
  const alpha = await mk('Alpha');
  const long = Array.from({ length: 300 }, (_, i) => `line ${i + 1} of a long answer`).join('\n\n');
  await api('POST', `/v1/threads/${alpha.id}/turns`, { body: { input: `echo ${long}` } });
  await waitIdle(alpha.id);
  const beta = await mk('Beta');
  const gamma = await mk('Gamma');

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const heading = (t) => page.getByRole('heading', { name: t, exact: true });
  const hashOf = () => new URL(page.url()).hash;

  // 1. URLs, back and forward.
  await nav.getByRole('button', { name: /Alpha/ }).click();
  await heading('Alpha').waitFor();
  check(hashOf() === `#/t/${alpha.id}`, 'selecting a thread puts its URL in the address bar');
  await nav.getByRole('button', { name: /Beta/ }).click();
  await heading('Beta').waitFor();
  check(hashOf() === `#/t/${beta.id}`, 'each selection is its own URL');
  check(/^(\(\d+\) )?Beta — Switchboard$/.test(await page.title()), `the title names the open thread (${await page.title()})`);
  await page.goBack();
  await heading('Alpha').waitFor();
  check(hashOf() === `#/t/${alpha.id}`, 'back shows the previous thread');
  await page.goForward();
  await heading('Beta').waitFor();
  check(hashOf() === `#/t/${beta.id}`, 'forward shows the next one again');

  // 2. A reload keeps the thread, its scroll position and the draft.
  await nav.getByRole('button', { name: /Alpha/ }).click();
  await heading('Alpha').waitFor();
  const scroller = page.locator('div.thread');
  await page.locator('li.turn .md').filter({ hasText: 'line 300 of a long answer' }).first().waitFor();
  const top = await scroller.evaluate((el) => {
    el.scrollTop = Math.round((el.scrollHeight - el.clientHeight) / 2);
    el.dispatchEvent(new Event('scroll'));
    return el.scrollTop;
  });
  check(top > 200, `the long thread scrolls (to ${top})`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('a draft, not sent yet');
  await page.waitForTimeout(300); // the scroll position is stored on the next frame
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await heading('Alpha').waitFor();
  check(hashOf() === `#/t/${alpha.id}`, 'the reload kept the URL');
  await page.waitForFunction((want) => Math.abs(document.querySelector('div.thread').scrollTop - want) < 40, top);
  check(true, 'the reload restored the scroll position');
  check((await box.inputValue()) === 'a draft, not sent yet', 'the reload kept the draft');
  // A link to a thread opens it.
  await page.goto(`${hub.url}/#/t/${gamma.id}`);
  await heading('Gamma').waitFor();
  check(true, 'a /#/t/<id> link opens its thread');

  // 3. The keymap, with real key events (focus outside the composer).
  const selected = async () => nav.locator('[aria-current="true"]').getAttribute('data-thread-id');
  await page.locator('h1').click();
  await page.keyboard.press('Alt+1');
  await page.waitForFunction((id) => document.querySelector('nav [aria-current="true"]')?.getAttribute('data-thread-id') === id, gamma.id);
  check(true, 'Alt+1 shows the first thread of the list');
  await page.keyboard.press('Alt+3');
  await heading('Alpha').waitFor();
  check((await selected()) === alpha.id, 'Alt+3 shows the third');
  await page.keyboard.press('Alt+ArrowUp');
  await heading('Beta').waitFor();
  await page.keyboard.press('Alt+ArrowDown');
  await heading('Alpha').waitFor();
  check(true, 'Alt+↑ and Alt+↓ step through the list');
  await page.keyboard.press('Control+2');
  await page.waitForTimeout(200);
  check((await selected()) === alpha.id, 'Ctrl+2 is left to the browser (its tabs)');

  await page.keyboard.press('Control+k');
  const search = page.getByRole('dialog', { name: 'Search all threads' });
  await search.waitFor();
  check(true, 'Ctrl+K opens Search');
  await page.keyboard.press('Escape');
  await search.waitFor({ state: 'detached' });
  check(true, 'Escape closes Search');

  await page.keyboard.press('Control+Shift+A');
  const panel = page.getByRole('region', { name: 'Pending approvals' });
  await panel.waitFor();
  check(true, 'Ctrl+Shift+A opens Approvals');
  await page.locator('h1').click();
  await page.keyboard.press('Shift+?');
  const help = page.getByRole('dialog', { name: 'Keyboard' });
  await help.waitFor();
  check((await help.getByText('Ctrl+Shift+A (⌘⇧A)').count()) === 1 && (await help.getByText(/in the desktop window only/).count()) > 0, '? lists the keys, the window-only ones marked');
  check(
    (await help.getByRole('table', { name: 'In the Approvals list' }).getByText('Delete', { exact: true }).count()) === 1,
    "? lists the Approvals inbox's keys",
  );
  const { violations } = await axeRun(page);
  check(violations.length === 0, `axe finds nothing wrong with the key list over Approvals (${violations.map((v) => `${v.id}: ${v.targets.join(', ')}`).join('; ') || 'clean'})`);
  check(await help.getByRole('button', { name: 'Close' }).evaluate((b) => b === document.activeElement), 'the key list takes the focus');
  check(/^(\(\d+\) )?Keyboard shortcuts — Switchboard$/.test(await page.title()), `the title names the topmost panel (${await page.title()})`);
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'detached' });
  check(await panel.isVisible(), 'Escape closed the key list only, Approvals stays');
  check(/^(\(\d+\) )?Approvals — Switchboard$/.test(await page.title()), `the title names Approvals again (${await page.title()})`);
  await page.keyboard.press('Control+k');
  await search.waitFor();
  await page.keyboard.press('Escape');
  await search.waitFor({ state: 'detached' });
  check(await panel.isVisible(), 'Escape closed Search only, Approvals stays');
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached' });
  check(true, 'the next Escape closes Approvals');

  // Ctrl+. stops the running turn; Escape does not.
  await nav.getByRole('button', { name: /Beta/ }).click();
  await heading('Beta').waitFor();
  await box.fill('hang');
  await box.press('Enter');
  const stop = page.getByRole('button', { name: 'Stop' });
  await stop.waitFor();
  await box.press('Escape');
  await page.waitForTimeout(500);
  check((await api('GET', `/v1/threads/${beta.id}`)).thread.status === 'running', 'Escape does not stop a turn');
  await box.press('Control+.');
  await stop.waitFor({ state: 'hidden' });
  const hist = await api('GET', `/v1/threads/${beta.id}/history`);
  check(hist.turns.at(-1).status === 'cancelled', 'Ctrl+. stopped the running turn');

  // A and D answer the focused permission, after the 500 ms guard.
  const answer = async (key, want) => {
    await waitIdle(beta.id);
    await box.fill('permission');
    await box.press('Enter');
    const card = page.locator('li.turn').last().locator('[data-permission-id]:has(section.permission.pending)');
    await card.waitFor();
    const id = await card.getAttribute('data-permission-id');
    await card.focus();
    await page.keyboard.press(key); // within the guard: nothing
    await page.waitForTimeout(150); // an answer, had there been one, would be stored by now
    const early = (await api('GET', '/v1/permissions')).permissions.find((p) => p.id === id);
    check(early.status === 'pending', `${key} within 500 ms of the card is ignored`);
    await page.waitForTimeout(600);
    await card.focus();
    await page.keyboard.press(key);
    for (let i = 0; i < 100; i++) {
      const p = (await api('GET', '/v1/permissions')).permissions.find((x) => x.id === id);
      if (p.status !== 'pending') {
        check(p.status === want && p.decidedBy === 'browser', `${key} on the focused card: ${p.status} by ${p.decidedBy}`);
        return;
      }
      await page.waitForTimeout(50);
    }
    throw new Error(`${key} did not answer the permission`);
  };
  await answer('a', 'approved');
  await answer('d', 'declined');
  await waitIdle(beta.id);

  // 4. Archive from the UI.
  await threadAction(page, 'Archive');
  await nav.getByRole('button', { name: /Beta/ }).waitFor({ state: 'detached' });
  check(await heading('Beta').isVisible(), 'the archived thread stays shown, gone from the list');
  const listed = (await api('GET', '/v1/threads')).threads.map((t) => t.id);
  const archived = (await api('GET', '/v1/threads?archived=true')).threads.map((t) => t.id);
  check(!listed.includes(beta.id) && archived.includes(beta.id), 'the hub lists it only with ?archived=true');
  await page.goto(`${hub.url}/`);
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await nav.getByRole('button', { name: /Alpha/ }).waitFor();
  check((await nav.getByRole('button', { name: /Beta/ }).count()) === 0, 'still out of the list after a reload');
  // Search includes archived threads, marked.
  await page.keyboard.press('Control+k');
  const finder = page.getByRole('dialog', { name: 'Search all threads' });
  await finder.getByRole('searchbox').fill('hang');
  const betaHit = finder.getByRole('list', { name: 'Search results' }).getByRole('button', { name: /Beta/ }).first();
  await betaHit.waitFor({ timeout: 15000 });
  check((await betaHit.getByText('archived', { exact: true }).count()) === 1, 'search finds the archived thread, marked archived');
  await page.keyboard.press('Escape');
  await finder.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Show archived' }).click();
  await nav.getByRole('button', { name: /Beta/ }).click();
  await threadAction(page, 'Unarchive');
  await page.getByRole('button', { name: /Hide archived/ }).click();
  await nav.getByRole('button', { name: /Beta/ }).waitFor();
  check(true, '"Show archived" lists it; unarchived, it is back');

  // 5. Export (downloads) and import.
  await nav.getByRole('button', { name: /Alpha/ }).click();
  await heading('Alpha').waitFor();
  const save = async (name) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), threadAction(page, name)]);
    const file = join(tmp.dir, dl.suggestedFilename());
    await dl.saveAs(file);
    return { name: dl.suggestedFilename(), file, text: readFileSync(file, 'utf8') };
  };
  const md = await save('Export Markdown');
  check(md.name === 'switchboard-Alpha.md' && md.text.startsWith('# Alpha\n') && md.text.includes('line 300 of a long answer'), `the Markdown download (${md.name})`);
  const jl = await save('Export JSON lines');
  check(jl.name === 'switchboard-Alpha.jsonl' && jl.text.startsWith('{"schema":1,"thread":{"id":"' + alpha.id), `the JSON lines download (${jl.name})`);
  const before = (await api('GET', '/v1/threads?archived=all')).threads.length;
  await page.getByLabel('Import a JSON lines export').setInputFiles(jl.file);
  await page.waitForFunction((old) => !location.hash.endsWith(old) && location.hash.startsWith('#/t/'), alpha.id);
  await heading('Alpha').waitFor();
  await page.locator('li.turn .md').filter({ hasText: 'line 300 of a long answer' }).first().waitFor();
  const after = (await api('GET', '/v1/threads?archived=all')).threads;
  check(after.length === before + 1 && after.filter((t) => t.title === 'Alpha').length === 2, 'the import is a new thread, shown');

  // Bulk: nothing here is a day old, so nothing is archived.
  await page.getByRole('button', { name: 'Archive idle…' }).click();
  await page.getByRole('spinbutton', { name: /Not used for/ }).fill('1');
  await page.locator('#archive-idle').getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('status').filter({ hasText: 'Archived 0 threads.' }).waitFor();
  check((await api('GET', '/v1/threads')).threads.length === after.filter((t) => !t.archived).length, '"Archive idle" asks the hub (nothing a day old here)');

  noProblems(problems);
}

await runScript('daily', main, { live: () => ({ hub, browser }), hubLines: 20, cleanup: () => tmp.remove(log) });
