// Settings → Hosts in a real page: a real headless hub with one host in
// its config, headless Chromium.
//
//   node e2e/hostlink.mjs     (after `vite build`)
//
// The hosts' ssh is the script's own config (SWITCHBOARD_SSH_CONFIG, -F),
// naming hosts that do not resolve: no ssh reaches anywhere, the real
// ~/.ssh is not read. Checks, as a user goes:
//   1. Settings lists Hosts; the section shows This computer (connected,
//      with the hub's version) and the configured host, unreachable with
//      ssh's reason;
//   2. Add host with an ssh value that is an option is refused with the
//      hub's words; a good one is added (in the list, in GET /v1/hosts);
//   3. Remove takes it away.
// Screenshots build/screenshots/hostlink-{light,dark}-{700,1440}.png.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('hostlink');
const shots = screenshotDir();
const tmp = tempDir('switchboard-hostlink-');
let hub;
let browser;
const check = checker(log);

async function main() {
  const sshConfig = join(tmp.dir, 'ssh_config');
  writeFileSync(sshConfig, `Host *\n  UserKnownHostsFile ${join(tmp.dir, 'known_hosts')}\n  ConnectTimeout 2\n`, { mode: 0o600 });
  process.env.SWITCHBOARD_SSH_CONFIG = sshConfig;
  log('building and starting the hub');
  hub = await startHub(tmp.dir, {}, { hosts: { devbox: { ssh: 'me@devbox.invalid' } } });
  const { api } = hub;
  for (let i = 0; i < 200 && (await api('GET', '/v1/hosts/devbox')).state !== 'unreachable'; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  await page.setViewportSize({ width: 1440, height: 900 });

  log('1. Settings → Hosts');
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Hosts' }).click();
  const section = dialog.getByRole('region', { name: 'Hosts' });
  const list = section.getByRole('list', { name: 'Hosts' });
  await list.getByText('devbox', { exact: true }).waitFor();
  const rows = list.getByRole('listitem');
  check((await rows.count()) === 2, 'this computer and the configured host are listed');
  check((await rows.nth(0).textContent()).includes('This computer') && /Connected since/.test(await rows.nth(0).textContent()), 'this computer is first, connected');
  const devbox = rows.nth(1);
  await devbox.getByText(/^Unreachable since/).waitFor();
  check((await devbox.locator('.why').textContent()).length > 0, `the host says why: ${await devbox.locator('.why').textContent()}`);
  check((await devbox.getByRole('button', { name: 'Retry' }).count()) === 1, 'an unreachable host offers Retry');

  log('2. Add host');
  const form = section.getByRole('form', { name: 'Add host' });
  await form.getByLabel('Name').fill('gpu');
  await form.getByLabel('ssh').fill('-oProxyCommand=touch /tmp/x');
  await form.getByRole('button', { name: 'Add host' }).click();
  await section.getByRole('alert').filter({ hasText: 'starts with -' }).waitFor();
  check(!(await api('GET', '/v1/hosts')).hosts.some((h) => h.name === 'gpu'), 'the option was refused by the hub');
  await form.getByLabel('ssh').fill('me@gpu.invalid');
  await form.getByRole('button', { name: 'Add host' }).click();
  await list.getByText('gpu', { exact: true }).waitFor();
  check((await api('GET', '/v1/hosts')).hosts.some((h) => h.name === 'gpu' && h.ssh === 'me@gpu.invalid'), 'the host was added');
  await list.getByRole('listitem').filter({ hasText: 'gpu' }).getByText(/^Unreachable since/).waitFor();
  await section.scrollIntoViewIfNeeded();

  for (const [scheme, width] of [['light', 1440], ['dark', 1440], ['light', 700], ['dark', 700]]) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `hostlink-${scheme}-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  log('3. Remove');
  await section.getByRole('button', { name: 'Remove host gpu' }).click();
  await list.getByText('gpu', { exact: true }).waitFor({ state: 'detached' });
  check(!(await api('GET', '/v1/hosts')).hosts.some((h) => h.name === 'gpu'), 'the host was removed');

  // The one refusal made on purpose (step 2), and its console line.
  const expected = ['HTTP 400 POST /v1/hosts', 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)'];
  for (const e of expected) {
    const i = problems.indexOf(e);
    check(i >= 0, `the refusal was seen: ${e}`);
    problems.splice(i, 1);
  }
  noProblems(problems);
}

await runScript('hosts', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: (failed) => {
    if (!failed) tmp.remove();
  },
});
