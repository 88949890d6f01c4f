// The Settings scenario of the browser end-to-end run (e2e/run.mjs calls it).
//
//   export async function settingsScenario(page, { url, log, shots })
//
//   page   a Playwright Page showing the web UI, signed in, light colour
//          scheme; left as found: dialog closed, theme back to "system"
//   url    the hub's base URL (http://127.0.0.1:<port>), for reference
//   log    (...args) => void, the run's logger
//   shots  the folder for screenshots (<repo>/build/screenshots)
//
// It opens Settings from the header, adds a custom agent through the form
// and sees it in the agents list (and in GET /v1/agents and
// /v1/settings); sets a variable of its environment through its
// Environment disclosure and checks that GET /v1/settings lists the name,
// the config file holds the value and the page never shows it; takes
// settings-light.png, removes the variable again (gone from envKeys and
// from the file), switches to Dark and checks
// that the page turned dark at once and that the hub saved it, takes
// settings-dark.png, then sets the theme back to System and closes the
// dialog with Escape. Throws on the first thing that is not as expected.
//
// Settings as one page (issue 29, ADR 0037): the section navigation
// selects a section (aria-current, its heading scrolled to); the timeout
// saves when committed, a bad one is said at the field, and the rows under
// it do not move when "Saved" shows; no Save buttons; no budget field for
// an agent not installed; at most one "not found on PATH". Screenshots
// settings-{page,approvals,budgets}-{light,dark}-{700,1440}.png and
// settings-field-error.png.
//
// Run alone (a hub with the fake agent and one missing agent):
//   node e2e/settings.mjs        (after `vite build`)
import { mkdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFakeAgent, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

export async function settingsScenario(page, { url, log, shots }) {
  log('settings: opening from the header', `(hub ${url})`);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.getByText(/Saved to/).waitFor();
  await pageScenario(page, dialog, { log, shots });

  log('settings: adding a custom agent');
  const agents = dialog.getByRole('region', { name: 'Agents' });
  await agents.getByRole('textbox', { name: 'Id' }).fill('e2e-custom');
  await agents.getByRole('textbox', { name: 'Name' }).fill('E2E custom agent');
  await agents.getByRole('textbox', { name: 'Command' }).fill('/bin/cat');
  await agents.getByRole('textbox', { name: 'Arguments' }).fill('--acp');
  await agents.getByRole('button', { name: 'Add agent' }).click();
  await agents.getByText('Added e2e-custom.').waitFor();
  await agents.getByRole('button', { name: 'Remove E2E custom agent' }).waitFor();
  await agents.getByText('E2E custom agent', { exact: true }).waitFor();

  const api = (path) =>
    page.evaluate(async (p) => {
      // The page's own browser login (a bearer secret in sessionStorage).
      const secret = sessionStorage.getItem('switchboard.session');
      const r = await fetch(p, { headers: { 'X-Client-ID': 'e2e-settings', Authorization: `Bearer ${secret}` } });
      if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
      return r.json();
    }, path);
  const listed = await api('/v1/agents?scope=all');
  if (!listed.agents.some((a) => a.id === 'e2e-custom' && a.name === 'E2E custom agent')) {
    throw new Error(`GET /v1/agents lacks the added agent: ${JSON.stringify(listed.agents.map((a) => a.id))}`);
  }

  log('settings: setting a variable of its environment');
  const secret = `e2e-secret-${randomBytes(8).toString('hex')}`;
  const envToggle = agents.getByRole('button', { name: 'Environment of E2E custom agent' });
  await envToggle.click();
  if ((await envToggle.getAttribute('aria-expanded')) !== 'true') throw new Error('the Environment toggle is not expanded');
  const env = agents.getByRole('group', { name: 'Environment of E2E custom agent' });
  await env.getByText('The config file sets no variables for E2E custom agent.').waitFor();
  await env.getByRole('textbox', { name: 'Variable' }).fill('E2E_API_KEY');
  const value = env.getByLabel('Value', { exact: true });
  await value.fill(secret);
  if ((await value.getAttribute('type')) !== 'password') throw new Error('the value field is not a password field');
  await env.getByRole('button', { name: 'Set', exact: true }).click();
  await env.getByRole('status').getByText('Set E2E_API_KEY for E2E custom agent.').waitFor();
  await env.getByRole('button', { name: 'Remove E2E_API_KEY from E2E custom agent' }).waitFor();
  if ((await value.inputValue()) !== '') throw new Error('the value field was not cleared after saving');
  const entry = async () => (await api('/v1/settings?scope=all')).settings.agents.find((a) => a.id === 'e2e-custom');
  const withKey = await entry();
  if (!withKey?.envKeys?.includes('E2E_API_KEY')) throw new Error(`GET /v1/settings lacks the name: ${JSON.stringify(withKey)}`);
  if (withKey.command !== '/bin/cat' || withKey.args?.[0] !== '--acp') throw new Error(`setting a variable changed the entry: ${JSON.stringify(withKey)}`);
  if (JSON.stringify(withKey).includes(secret)) throw new Error('GET /v1/settings returned the value');
  const configFile = (await api('/v1/settings?scope=all')).settings.configFile;
  if (!readFileSync(configFile, 'utf8').includes(secret)) throw new Error(`${configFile} lacks the value`);
  if ((await page.content()).includes(secret)) throw new Error('the page shows the value');

  mkdirSync(shots, { recursive: true });
  await dialog.screenshot({ path: join(shots, 'settings-light.png') });

  log('settings: removing the variable again');
  await env.getByRole('button', { name: 'Remove E2E_API_KEY from E2E custom agent' }).click();
  await env.getByRole('status').getByText('Removed E2E_API_KEY from E2E custom agent.').waitFor();
  await env.getByText('The config file sets no variables for E2E custom agent.').waitFor();
  const without = await entry();
  if (!without || without.envKeys?.length) throw new Error(`the name is still there: ${JSON.stringify(without)}`);
  if (readFileSync(configFile, 'utf8').includes(secret)) throw new Error(`${configFile} still holds the value`);
  if ((await page.content()).includes(secret)) throw new Error('the page shows the value');
  await envToggle.click();
  log('settings: a variable set, listed by name only, and removed');

  log('settings: switching to dark');
  const bgBefore = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await dialog.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).check();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  const bgDark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  if (bgDark === bgBefore) throw new Error(`the page did not turn dark: background ${bgDark}`);
  await dialog.getByRole('region', { name: 'Appearance' }).getByText('Saved').waitFor();
  const saved = await api('/v1/settings?scope=all');
  if (saved.settings.ui.theme !== 'dark') throw new Error(`the hub has theme ${saved.settings.ui.theme}, want dark`);
  if (!saved.settings.agents.some((a) => a.id === 'e2e-custom' && !a.builtin)) {
    throw new Error('GET /v1/settings lacks the added agent');
  }
  await dialog.screenshot({ path: join(shots, 'settings-dark.png') });
  log('settings: dark at once, saved in the config file; background', bgBefore, '→', bgDark);

  await dialog.getByRole('radio', { name: 'System' }).check();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'system');
  await dialog.getByRole('region', { name: 'Appearance' }).getByText('Saved').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}

/** The page's own checks: navigation, one way of saving, rows that stay, budgets and PATH; screenshots. */
async function pageScenario(page, dialog, { log, shots }) {
  log('settings: the section navigation');
  const nav = dialog.getByRole('navigation', { name: 'Settings sections' });
  const names = await nav.getByRole('button').allTextContents();
  const want = ['Agents', 'Folders', 'Approvals', 'Budgets', 'Notifications', 'Appearance', 'Hosts', 'Advanced'];
  if (JSON.stringify(names) !== JSON.stringify(want)) throw new Error(`the nav lists ${JSON.stringify(names)}`);
  await nav.getByRole('button', { name: 'Advanced' }).click();
  await page.waitForFunction(() => {
    const h = document.getElementById('settings-advanced');
    const c = h?.closest('.content');
    return h && c && Math.abs(h.getBoundingClientRect().top - c.getBoundingClientRect().top) < 60;
  });
  if ((await nav.getByRole('button', { name: 'Advanced' }).getAttribute('aria-current')) !== 'true')
    throw new Error('Advanced is not marked current after its click');
  await nav.getByRole('button', { name: 'Approvals' }).click();
  await page.waitForFunction(() => {
    const h = document.getElementById('settings-approvals');
    const c = h?.closest('.content');
    return h && c && Math.abs(h.getBoundingClientRect().top - c.getBoundingClientRect().top) < 60;
  });
  // Scrolling the page marks the section at its top.
  const content = dialog.locator('.content');
  await content.evaluate((c) => c.scrollTo(0, c.scrollHeight));
  await nav.locator('[aria-current="true"]', { hasText: 'Advanced' }).waitFor();
  await content.evaluate((c) => c.scrollTo(0, 0));
  await nav.locator('[aria-current="true"]', { hasText: 'Agents' }).waitFor();
  await nav.getByRole('button', { name: 'Approvals' }).click();
  // Keyboard: the nav's entries are buttons; Down moves to the next.
  await nav.getByRole('button', { name: 'Approvals' }).focus();
  await page.keyboard.press('ArrowDown');
  if ((await page.evaluate(() => document.activeElement?.textContent)) !== 'Budgets') throw new Error('ArrowDown did not move to Budgets');

  log('settings: one way of saving, a bad value said at its field, rows that stay');
  const api = (path, body) =>
    page.evaluate(
      async ([p, b]) => {
        const secret = sessionStorage.getItem('switchboard.session');
        const r = await fetch(p, {
          method: b ? 'PATCH' : 'GET',
          headers: { 'X-Client-ID': 'e2e-settings', Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
          body: b ? JSON.stringify(b) : undefined,
        });
        if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
        return r.json();
      },
      [path, body],
    );
  const timeoutBefore = (await api('/v1/settings?scope=all')).settings.permissions.timeout;
  if ((await dialog.getByRole('button', { name: /^Save/ }).count()) !== 0) throw new Error('the page has Save buttons');
  const timeout = dialog.getByRole('spinbutton', { name: 'Refuse an unanswered permission after' });
  const below = dialog.getByRole('checkbox', { name: 'Escalate a request nobody answered' });
  // Wait for the nav's smooth scroll to end before measuring.
  let y0 = NaN;
  for (let y = (await below.boundingBox()).y; y !== y0; y = (await below.boundingBox()).y) {
    y0 = y;
    await page.waitForTimeout(150);
  }
  await timeout.fill('0');
  await timeout.press('Tab');
  await dialog.locator('#settings-timeout-status').getByRole('alert').getByText('Give a whole number greater than 0.').waitFor();
  mkdirSync(shots, { recursive: true });
  await dialog.screenshot({ path: join(shots, 'settings-field-error.png') });
  const y1 = (await below.boundingBox()).y;
  if (y1 !== y0) throw new Error(`the row below moved when the error showed: ${y0} → ${y1}`);
  await timeout.fill('30');
  await timeout.press('Enter');
  await dialog.locator('#settings-timeout-status').getByText('Saved').waitFor();
  if ((await below.boundingBox()).y !== y0) throw new Error('the row below moved when Saved showed');
  const t = (await api('/v1/settings?scope=all')).settings.permissions.timeout;
  if (t !== '30m' && t !== '30m0s') throw new Error(`the hub has timeout ${t}, want 30m`);

  log('settings: budget fields only for installed agents; PATH said at most once');
  const agents = (await api('/v1/agents?scope=all')).agents;
  const budgets = dialog.getByRole('region', { name: 'Budgets' });
  for (const a of agents) {
    const n = await budgets.getByRole('spinbutton', { name: a.name, exact: true }).count();
    if ((a.status === 'available') !== (n === 1)) throw new Error(`${a.id} (${a.status}) has ${n} budget fields`);
  }
  const pathSaid = ((await dialog.getByRole('region', { name: 'Agents' }).textContent()).match(/not found on PATH/g) ?? []).length;
  if (pathSaid > 1) throw new Error(`"not found on PATH" is said ${pathSaid} times`);

  log('settings: screenshots at 700 and 1440, light and dark');
  mkdirSync(shots, { recursive: true });
  const size = page.viewportSize();
  for (const width of [700, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await nav.getByRole('button', { name: 'Agents' }).click();
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(shots, `settings-page-${scheme}-${width}.png`) });
      await nav.getByRole('button', { name: 'Approvals' }).click();
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(shots, `settings-approvals-${scheme}-${width}.png`) });
      await nav.getByRole('button', { name: 'Budgets' }).click();
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(shots, `settings-budgets-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
  // Left as found: the timeout in force before (the page shows it at once).
  await api('/v1/settings', { permissions: { timeout: timeoutBefore } });
  await nav.getByRole('button', { name: 'Agents' }).click();
}

// Alone: a hub with the fake agent and an agent whose command is not on PATH.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = logger('settings');
  const tmp = tempDir('switchboard-settings-');
  let hub;
  let browser;
  await runScript(
    'settings',
    async () => {
      const agentBin = buildFakeAgent(tmp.dir);
      hub = await startHub(tmp.dir, {
        fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
        missing: { name: 'Missing agent', command: 'switchboard-e2e-no-such-agent' },
      });
      const opened = await openPage(hub);
      browser = opened.browser;
      await settingsScenario(opened.page, { url: hub.url, log, shots: screenshotDir() });
      noProblems(opened.problems);
      log('ok');
    },
    { live: () => ({ hub, browser }), cleanup: () => tmp.remove(log) },
  );
}
