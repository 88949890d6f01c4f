// A host over real OpenSSH in the window (issue 30): "Trust this key", a
// changed key, a host's settings and its state in the thread list.
//
//   node e2e/hosttrust.mjs        (after `vite build`; needs root, sshd, ssh-keygen, useradd)
//
// The "remote machine" is this one: the script starts its own sshd on a
// loopback port with a host key it generates, for a Unix user it makes
// (home 0700 in the script's folder). The local hub (the real headless
// binary) reaches it with the system ssh through the script's own ssh
// config (SWITCHBOARD_SSH_CONFIG: its own known_hosts and client key; the
// real ~/.ssh is not read), and installs itself there from its own build
// (switchboard-headless beside it). Two hosts:
//   - box: an unknown key. Settings → Hosts shows needs attention with the
//     key's fingerprint, the very one ssh-keygen -l gives for the key sshd
//     serves; "Trust this key" takes the host through connecting to
//     connected (states recorded as the page shows them), and ssh wrote the
//     key to the script's known_hosts (screenshots
//     hosttrust-unknown-{light,dark}-{700,1440}.png).
//   - moved: the same sshd under a HostKeyAlias whose known_hosts entry
//     holds another key: a changed key, ssh's own message, no trust action.
//   - box's own settings (Settings → Hosts → Settings…): its config file
//     and agent, the timeout edited there is box's, not this computer's
//     (hosttrust-settings-{light,dark}-{700,1440}.png); the thread list's
//     box heading says connected.
//   - the link cut (the hub's ssh processes killed by pid, sshd stopped):
//     the host's settings say box is not connected and disable every
//     control, the thread list's heading says unreachable
//     (hosttrust-down-{light,dark}-{700,1440}.png,
//     hosttrust-sidebar-down-{light,dark}-{700,1440}.png).
//   - box back with another key (sshd restarted with it): Retry meets a
//     changed key, ssh's own message and no trust action; the thread
//     list's heading needs attention and opens Settings → Hosts at box
//     (hosttrust-changed-{light,dark}-{700,1440}.png).
// Skipped (exit 0, said) without root or sshd, unless
// SWITCHBOARD_HOSTS_E2E=require (CI), which makes that a failure.
// axe finds nothing on Settings → Hosts and on the host's settings.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';
import { axeCheck } from './a11y.mjs';

const log = logger('hosttrust');
const check = checker(log);
const shots = screenshotDir();
const sizes = [
  ['light', 1440],
  ['dark', 1440],
  ['light', 700],
  ['dark', 700],
];

const missing = [];
if (process.getuid?.() !== 0) missing.push('root');
for (const p of ['/usr/sbin/sshd', '/usr/bin/ssh', '/usr/bin/ssh-keygen', '/usr/sbin/useradd', '/usr/sbin/userdel']) {
  if (!existsSync(p)) missing.push(p);
}
if (missing.length) {
  const msg = `needs ${missing.join(', ')}`;
  if (process.env.SWITCHBOARD_HOSTS_E2E === 'require') {
    console.error(`[hosttrust] FAILED: ${msg} (SWITCHBOARD_HOSTS_E2E=require)`);
    process.exit(1);
  }
  log(`skipped: ${msg} (SWITCHBOARD_HOSTS_E2E=require makes this a failure)`);
  process.exit(0);
}

const tmp = tempDir('switchboard-hosttrust-');
chmodSync(tmp.dir, 0o755); // the host's user goes through it to its home
const user = `sbt${randomBytes(3).toString('hex')}`;
let userMade = false;
let sshd;
let hub;
let browser;

const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8' });

async function until(what, f, tries = 600) {
  for (let i = 0; i < tries; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${what}`);
}

/** A free loopback port (asked of the kernel, then released for sshd). */
async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The pids of processes whose parent is pid and whose command is comm. */
function children(pid, comm) {
  const out = run('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)]);
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([p, c]) => p && c === comm)
    .map(([p]) => Number(p));
}

/** The user's own processes (the host's hub it started), by pid. */
function userPids() {
  try {
    return run('ps', ['-o', 'pid=', '-u', user])
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

/** Starts sshd on 127.0.0.1:port serving hostKey, for the host's user; resolves once it accepts connections. */
async function startSSHD(port, hostKey) {
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const config = join(tmp.dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(tmp.dir, 'sshd.pid')}`,
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AllowUsers ${user}`,
      'AllowTcpForwarding local',
      'AllowStreamLocalForwarding local',
      'X11Forwarding no',
      'PermitTTY no',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  let sshdLog = '';
  sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshd.stderr.on('data', (d) => (sshdLog += d));
  await until(`sshd on 127.0.0.1:${port}`, () =>
    new Promise((r) => {
      const c = connect(port, '127.0.0.1', () => {
        c.destroy();
        r(true);
      });
      c.on('error', () => r(false));
    }),
  ).catch((e) => {
    throw new Error(`${e.message}\n${sshdLog}`);
  });
}

function stopSSHD() {
  if (!sshd || sshd.exitCode !== null) return;
  sshd.kill('SIGKILL');
}

async function main() {
  // The host: its user and 0700 home, the client's key authorized.
  const home = join(tmp.dir, 'home');
  run('useradd', ['-M', '-d', home, '-s', '/bin/sh', '-p', '*', user]); // "*": no password, not locked
  userMade = true;
  const uid = Number(run('id', ['-u', user]).trim());
  const gid = Number(run('id', ['-g', user]).trim());
  for (const d of [home, join(home, '.ssh')]) {
    mkdirSync(d, { mode: 0o700 });
    chownSync(d, uid, gid);
  }
  const clientKey = join(tmp.dir, 'client_key');
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'switchboard-e2e', '-f', clientKey]);
  const ak = join(home, '.ssh', 'authorized_keys');
  writeFileSync(ak, readFileSync(`${clientKey}.pub`), { mode: 0o600 });
  chownSync(ak, uid, gid);

  // sshd on a loopback port, with a key of its own; another key for "moved".
  const hostKey = join(tmp.dir, 'host_ed25519');
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const otherKey = join(tmp.dir, 'other_ed25519');
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
  const fingerprint = run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`]).split(/\s+/)[1];
  const port = await freePort();
  await startSSHD(port, hostKey);

  // The client side: the script's own ssh config and known_hosts.
  const knownHosts = join(tmp.dir, 'known_hosts');
  const otherPub = readFileSync(`${otherKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(knownHosts, `moved-box ${otherPub}\n`, { mode: 0o600 });
  const sshConfig = join(tmp.dir, 'ssh_config');
  const common = [
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user}`,
    `  IdentityFile ${clientKey}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  ConnectTimeout 5',
  ];
  writeFileSync(sshConfig, ['Host box', ...common, 'Host moved', ...common, '  HostKeyAlias moved-box', ''].join('\n'), { mode: 0o600 });
  process.env.SWITCHBOARD_SSH_CONFIG = sshConfig;

  // The fake agent, for box's hub to run (as its user: a 0755 folder).
  const agentBin = buildFakeAgent(tmp.dir);
  chmodSync(agentBin, 0o755);

  // The local hub, and its build to install on box beside it.
  const localDir = join(tmp.dir, 'local');
  mkdirSync(localDir, { mode: 0o700 });
  const agents = { fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } };
  log('building and starting the local hub');
  hub = await startHub(localDir, agents, { hosts: { box: { ssh: 'box' }, moved: { ssh: 'moved' } } });
  copyFileSync(join(localDir, 'switchboard'), join(localDir, 'switchboard-headless'));
  chmodSync(join(localDir, 'switchboard-headless'), 0o755);
  const { api } = hub;

  const listed = await until('both hosts need attention', async () => {
    const { hosts } = await api('GET', '/v1/hosts');
    const box = hosts.find((h) => h.name === 'box');
    const moved = hosts.find((h) => h.name === 'moved');
    return box?.state === 'needs_attention' && box.fingerprint && moved?.state === 'needs_attention' && moved.error && { box, moved };
  });
  check(listed.box.fingerprint === fingerprint, `box shows the key sshd serves: ${listed.box.fingerprint} = ${fingerprint}`);
  check(!listed.moved.fingerprint, 'a changed key offers no fingerprint to trust');

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;

  // 1. Settings → Hosts: box's unknown key and moved's changed one.
  log('1. an unknown key and a changed key in Settings → Hosts');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Hosts' }).click();
  const list = settings.getByRole('list', { name: 'Hosts' });
  const boxRow = list.locator('[data-host-row="box"]');
  const movedRow = list.locator('[data-host-row="moved"]');
  await boxRow.getByRole('button', { name: 'Trust this key' }).waitFor();
  const shownKey = await boxRow.locator('.key code').textContent();
  check(shownKey === fingerprint, `the user reads the fingerprint ssh-keygen gives: ${shownKey}`);
  const movedWhy = await movedRow.getByRole('alert').textContent();
  check(/REMOTE HOST IDENTIFICATION HAS CHANGED|has changed/i.test(movedWhy), `moved shows ssh's own message: ${movedWhy.slice(0, 120)}`);
  check((await movedRow.getByRole('button', { name: 'Trust this key' }).count()) === 0, 'a changed key has no trust action');
  await boxRow.scrollIntoViewIfNeeded();
  await axeCheck(page, 'Settings → Hosts with an unknown and a changed key', log);
  for (const [scheme, width] of sizes) {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme: scheme });
    await boxRow.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `hosttrust-unknown-${scheme}-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 860 });

  // 2. Trust: connecting, then connected, as the row shows them.
  log('2. Trust this key');
  await boxRow.evaluate((li) => {
    const seen = (window.__boxStates = []);
    const note = () => {
      const s = li.querySelector('.state')?.textContent?.split(' since')[0];
      if (s && seen[seen.length - 1] !== s) seen.push(s);
    };
    note();
    new MutationObserver(note).observe(li, { subtree: true, childList: true, characterData: true });
  });
  await boxRow.getByRole('button', { name: 'Trust this key' }).click();
  await until('box connected in the page', async () => (await boxRow.locator('.state').textContent()).startsWith('Connected'), 900);
  const states = await page.evaluate(() => window.__boxStates);
  check(
    states[0] === 'Needs attention' && states.includes('Connecting') && states[states.length - 1] === 'Connected' && states.indexOf('Connecting') < states.indexOf('Connected'),
    `box went needs attention → connecting → connected: ${states.join(' → ')}`,
  );
  check(run('ssh-keygen', ['-F', `[127.0.0.1]:${port}`, '-f', knownHosts]).includes('ssh-ed25519'), 'ssh wrote the trusted key to known_hosts');
  check((await boxRow.getByRole('button', { name: 'Trust this key' }).count()) === 0, 'no trust action once connected');
  check(/has changed|IDENTIFICATION/i.test(await movedRow.getByRole('alert').textContent()), 'moved still refused');

  // 3. box's own settings. An agent on box and a thread there first (its API).
  log('3. box’s own settings');
  await api('PATCH', '/v1/hosts/box/settings', {
    body: { agents: { fake: { name: 'Fake on box', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } } } },
  });
  const project = join(home, 'project');
  mkdirSync(project, { mode: 0o700 });
  chownSync(project, uid, gid);
  const made = await until('a thread on box', async () => {
    try {
      return (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: project, title: 'On box', host: 'box' } })).thread;
    } catch {
      return null;
    }
  });
  check(made.id.endsWith('@box'), `a thread runs on box: ${made.id}`);
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const boxHeading = nav.getByRole('region', { name: 'Host box' }).getByRole('heading', { level: 2 }).first();
  await boxRow.getByRole('button', { name: 'Settings of box…' }).click();
  const hostSettings = page.getByRole('dialog', { name: 'Settings on box' });
  await hostSettings.getByText('Fake on box', { exact: true }).first().waitFor();
  const file = await hostSettings.locator('.file code').textContent();
  check(file.startsWith(home), `box's settings are box's config file: ${file}`);
  const sections = await hostSettings.getByRole('navigation', { name: 'Settings sections' }).getByRole('button').allTextContents();
  check(sections.join() === 'Agents,Folders,Approvals,Budgets,Usage', `only what box's hub decides: ${sections}`);
  const timeout = hostSettings.getByLabel('Refuse an unanswered permission after');
  await timeout.fill('7');
  await timeout.press('Enter');
  await until('box’s timeout saved', async () => (await api('GET', '/v1/hosts/box/settings')).settings.permissions.timeout === '7m');
  check((await api('GET', '/v1/settings')).settings.permissions.timeout !== '7m', 'this computer’s timeout is unchanged');
  await axeCheck(page, 'a host’s settings', log);
  for (const [scheme, width] of sizes) {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(shots, `hosttrust-settings-${scheme}-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 860 });
  check((await boxHeading.locator('[data-host-state]').getAttribute('data-host-state')) === 'connected', 'the thread list’s box heading says connected');

  // 4. The link cut: sshd stopped, the hub's ssh processes killed (by pid).
  log('4. the link cut');
  stopSSHD();
  const ssh = children(hub.proc.pid, 'ssh');
  check(ssh.length > 0, `the hub's ssh processes: ${ssh}`);
  for (const pid of ssh) process.kill(pid, 'SIGKILL');
  await hostSettings.getByRole('alert').filter({ hasText: 'box is not connected' }).waitFor({ timeout: 60000 });
  check(await timeout.isDisabled(), 'editing is disabled while box is not connected');
  check(await hostSettings.getByRole('button', { name: 'Usage on box…' }).isDisabled(), 'every control is');
  for (const [scheme, width] of sizes) {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(shots, `hosttrust-down-${scheme}-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 860 });
  await page.keyboard.press('Escape'); // back to Settings → Hosts
  await settings.waitFor();
  await page.keyboard.press('Escape');
  await until('the heading says unreachable', async () => (await boxHeading.textContent()).includes('unreachable'));
  const tip = await boxHeading.getAttribute('title');
  check(/^box: Unreachable since /.test(tip), `the heading's tooltip says since when and why: ${tip}`);
  // The thread list at each size (at 700 px a drawer: opened for the picture, closed after).
  const toggle = page.getByRole('button', { name: 'Thread list' });
  for (const [scheme, width] of sizes) {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme: scheme });
    if (width < 1000) {
      await page.locator('button[aria-label="Thread list"][aria-pressed="false"]').waitFor();
      await toggle.click();
    }
    await boxHeading.waitFor();
    await page.screenshot({ path: join(shots, `hosttrust-sidebar-down-${scheme}-${width}.png`) });
    if (width < 1000) await toggle.click();
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 860 });

  // 5. box comes back with another key (sshd restarted with it): the user's
  // Retry meets a changed key, ssh's own message, no trust action; the
  // thread list's heading then needs attention and opens Settings → Hosts at box.
  log('5. box back with a changed key');
  stopSSHD();
  await until('sshd stopped', async () => sshd.exitCode !== null || sshd.signalCode !== null);
  await startSSHD(port, otherKey);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await settings.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Hosts' }).click();
  await boxRow.getByRole('button', { name: 'Retry' }).click();
  const changed = await until('box refused for its changed key', async () => {
    const h = (await api('GET', '/v1/hosts')).hosts.find((x) => x.name === 'box');
    return h.state === 'needs_attention' && /IDENTIFICATION HAS CHANGED|has changed/i.test(h.error ?? '') && h;
  });
  check(!changed.fingerprint, 'a changed key is not offered for trust');
  await boxRow.getByRole('alert').filter({ hasText: /IDENTIFICATION HAS CHANGED|has changed/i }).waitFor();
  check((await boxRow.getByRole('button', { name: 'Trust this key' }).count()) === 0, 'box’s changed key has no trust action in the page');
  await page.keyboard.press('Escape');
  const attention = nav.getByRole('button', { name: /^box\s*needs attention$/ });
  await attention.waitFor();
  check((await attention.getAttribute('title')).includes('Settings → Hosts'), 'the heading says where it leads');
  await attention.click();
  await settings.waitFor();
  await until('box’s row focused in Settings → Hosts', () => boxRow.evaluate((li) => document.activeElement === li));
  log('ok: the heading opened Settings → Hosts at box, its row focused');
  await axeCheck(page, 'Settings → Hosts opened at a host whose key changed', log);
  for (const [scheme, width] of sizes) {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(shots, `hosttrust-changed-${scheme}-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 860 });

  // box's routes answered 502 HOST_UNREACHABLE once the link was down (the
  // page asked again on host_changed): expected, with their console lines.
  const down = problems.filter((p) => /^HTTP 502 [A-Z]+ \/v1\/hosts\/box\//.test(p));
  let lines = down.length;
  noProblems(problems.filter((p) => !down.includes(p) && !(/^console: .*status of 502/.test(p) && lines-- > 0)));
}

await runScript('hosttrust', main, {
  live: () => ({ hub, browser }),
  failureDir: tmp.dir,
  cleanup: async (failed) => {
    stopSSHD();
    if (userMade) {
      // The host's hub and anything else box's user runs: started by this script, ended by pid.
      for (const pid of userPids()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      await until('the host user’s processes gone', async () => userPids().length === 0, 100).catch((e) => log(e.message));
      try {
        run('userdel', [user]);
      } catch (e) {
        log(`userdel ${user}: ${e.message}`);
      }
    }
    if (!failed) tmp.remove(log);
  },
});
