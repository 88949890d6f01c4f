// The search scenario of the browser end-to-end run (e2e/run.mjs calls it).
//
//   export async function searchScenario(page, { log, shots, hub, problems })
//
// Needs the page signed in and the acp-go-sdk example agent ("sdk"). It
// makes a thread "Search target" over the API and runs one turn on it
// (prompt "please check the wombatish settings", the permission the agent
// asks approved over the API), then, in the page: Ctrl+K opens the search
// dialog; "wombatish" finds the prompt, Enter opens the thread with that
// turn's prompt highlighted; the phrase "understand the project" finds the
// agent's second message, and clicking the hit highlights that message; a
// malformed query shows the hub's 400 message in the dialog (those 400s are
// taken off the page's problems); Escape closes it. Takes search-light.png.
// Leaves the thread idle, the dialog closed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export async function searchScenario(page, { log, shots, hub, problems }) {
  const { api } = hub;
  log('search: a thread with a turn to find');
  const { thread } = await api('POST', '/v1/threads', { body: { agent: 'sdk', cwd: process.cwd(), title: 'Search target' } });
  const { turn } = await api('POST', `/v1/threads/${thread.id}/turns`, { body: { input: 'please check the wombatish settings' } });
  for (let i = 0; ; i++) {
    const { permissions } = await api('GET', '/v1/permissions?status=pending');
    const p = permissions.find((x) => x.turnId === turn.id);
    if (p) {
      await api('POST', `/v1/permissions/${p.id}`, { body: { outcome: 'approved' } });
      break;
    }
    if (i > 300) throw new Error('the agent never asked its permission');
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 0; ; i++) {
    const t = (await api('GET', `/v1/threads/${thread.id}/history`)).turns.find((x) => x.id === turn.id);
    if (t?.status === 'completed') break;
    if (i > 300) throw new Error(`the turn did not complete: ${JSON.stringify(t)}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  log('search: Ctrl+K, a word of the prompt');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+K');
  const dialog = page.getByRole('dialog', { name: 'Search all threads' });
  await dialog.waitFor();
  const box = dialog.getByRole('searchbox', { name: 'Search all threads' });
  if (!(await box.evaluate((el) => el === document.activeElement))) throw new Error('the search box is not focused');
  await box.fill('wombatish');
  const hits = dialog.getByRole('list', { name: 'Search results' }).getByRole('button');
  await hits.first().filter({ hasText: 'Search target' }).waitFor();
  const mark = await hits.first().locator('mark').first().textContent();
  if (mark?.toLowerCase() !== 'wombatish') throw new Error(`the match is marked ${JSON.stringify(mark)}`);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, 'search-light.png') });
  await box.press('Enter');
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: 'Search target' }).waitFor();
  const hit = page.locator(`li.turn[data-turn-id="${turn.id}"] .search-hit`);
  await hit.waitFor();
  if (!(await hit.textContent())?.includes('wombatish')) throw new Error(`the highlighted part is ${JSON.stringify(await hit.textContent())}`);

  log('search: a phrase of the agent message, opened by a click');
  await page.keyboard.press('Control+K');
  await dialog.waitFor();
  await box.fill('"understand the project"');
  const target = hits.filter({ hasText: 'Search target' }).first();
  await target.waitFor();
  await target.click();
  await dialog.waitFor({ state: 'detached' });
  await page.waitForFunction(
    (id) => document.querySelector(`li.turn[data-turn-id="${id}"] .search-hit`)?.textContent?.includes('understand the project structure'),
    turn.id,
  );
  const inView = await page
    .locator(`li.turn[data-turn-id="${turn.id}"] .search-hit`)
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    });
  if (!inView) throw new Error('the highlighted message is not scrolled into view');

  log('search: a malformed query is the hub’s 400, shown in the dialog');
  const before = problems.length;
  await page.keyboard.press('Control+K');
  await dialog.waitFor();
  await box.fill('"unterminated');
  await dialog.getByRole('alert').filter({ hasText: 'invalid query' }).waitFor();
  // The 400 is what the scenario asked for: not a problem of the page.
  const added = problems.splice(before);
  const other = added.filter((p) => !/HTTP 400 GET \/v1\/search|status of 400/.test(p));
  problems.push(...other);
  await box.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  log('search: ok');
}
