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
// /v1/settings), takes settings-light.png, switches to Dark and checks
// that the page turned dark at once and that the hub saved it, takes
// settings-dark.png, then sets the theme back to System and closes the
// dialog with Escape. Throws on the first thing that is not as expected.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export async function settingsScenario(page, { url, log, shots }) {
  log('settings: opening from the header', `(hub ${url})`);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.getByText(/Saved to/).waitFor();

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
      const r = await fetch(p, { headers: { 'X-Client-ID': 'e2e-settings' } });
      if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
      return r.json();
    }, path);
  const listed = await api('/v1/agents?scope=all');
  if (!listed.agents.some((a) => a.id === 'e2e-custom' && a.name === 'E2E custom agent')) {
    throw new Error(`GET /v1/agents lacks the added agent: ${JSON.stringify(listed.agents.map((a) => a.id))}`);
  }

  mkdirSync(shots, { recursive: true });
  await dialog.screenshot({ path: join(shots, 'settings-light.png') });

  log('settings: switching to dark');
  const bgBefore = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await dialog.getByRole('radiogroup', { name: 'Appearance' }).getByRole('radio', { name: 'Dark' }).check();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  const bgDark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  if (bgDark === bgBefore) throw new Error(`the page did not turn dark: background ${bgDark}`);
  await dialog.getByRole('region', { name: 'Appearance' }).getByText('Saved.').waitFor();
  const saved = await api('/v1/settings?scope=all');
  if (saved.settings.ui.theme !== 'dark') throw new Error(`the hub has theme ${saved.settings.ui.theme}, want dark`);
  if (!saved.settings.agents.some((a) => a.id === 'e2e-custom' && !a.builtin)) {
    throw new Error('GET /v1/settings lacks the added agent');
  }
  await dialog.screenshot({ path: join(shots, 'settings-dark.png') });
  log('settings: dark at once, saved in the config file; background', bgBefore, '→', bgDark);

  await dialog.getByRole('radio', { name: 'System' }).check();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'system');
  await dialog.getByRole('region', { name: 'Appearance' }).getByText('Saved.').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}
