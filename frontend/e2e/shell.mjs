// The app shell at every size: a real headless hub, the project's fake ACP
// agent, headless Chromium.
//
//   node e2e/shell.mjs        (after `vite build`)
//
// With a long thread shown, at 700×800, 1440×900, 1920×1080 and 900×600,
// light and dark (element rects, not pixels):
//   - the page never scrolls: the toolbar sits at the top, the composer at
//     the bottom of the viewport, nothing sticks out sideways;
//   - wheeling over the thread scrolls the thread's events only: the
//     toolbar and the composer stay where they were (docked);
//   - at 700 px the thread list is hidden behind the toolbar's toggle
//     (Ctrl+B shows it over the thread, picking a thread hides it);
//   - at 1920 px the thread's text keeps the measure (no wider than
//     --measure);
//   - at 900×600 the composer takes at most a fifth of the height;
//   - an error toast sits clear of the composer and the thread's header;
//   - the thread's actions menu opens from the keyboard, fits, and gives
//     the focus back on Escape;
//   - Ctrl+K's palette runs an action typed into it (Settings).
// Screenshots: build/screenshots/shell-<w>x<h>-<light|dark>.png.
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, screenshotDir, startHub, tempDir } from './harness.mjs';

const log = logger('shell');
const shots = screenshotDir();
const tmp = tempDir('switchboard-shell-');
const proj = tempDir('switchboard-shell-project-');
let hub;
let browser;
const check = checker(log);

const sizes = [
  [700, 800],
  [1440, 900],
  [1920, 1080],
  [900, 600],
];

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const { api } = hub;
  const th = (await api('POST', '/v1/threads', { body: { agent: 'fake', cwd: proj.dir, title: 'Long thread' } })).thread;
  const waitIdle = async (id) => {
    for (let i = 0; i < 400; i++) {
      if ((await api('GET', `/v1/threads/${id}`)).thread.status === 'idle') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`thread ${id} did not end its turn`);
  };
  // Many turns, each a long paragraph: a thread far taller than any window.
  const para = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  for (let t = 0; t < 12; t++) {
    await api('POST', `/v1/threads/${th.id}/turns`, { body: { input: `echo turn ${t + 1}: ${para} ${para} ${para}` } });
    await waitIdle(th.id);
  }

  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);
  await page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: /Long thread/ }).click();
  await page.getByRole('heading', { name: 'Long thread', exact: true }).waitFor();
  // A long thread opens on its last 10 turns (ThreadView firstTurns): enough to scroll.
  await page.locator('li.turn').nth(9).waitFor();

  const rect = (sel) =>
    page.locator(sel).first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
    });
  const visible = (sel) => page.locator(sel).first().isVisible();

  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [w, h] of sizes) {
      const at = `${w}×${h} ${scheme}`;
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(150);
      const doc = await page.evaluate(() => ({
        sh: document.scrollingElement.scrollHeight,
        ch: document.scrollingElement.clientHeight,
        sw: document.scrollingElement.scrollWidth,
        cw: document.scrollingElement.clientWidth,
        y: window.scrollY,
      }));
      check(doc.sh <= doc.ch && doc.y === 0, `${at}: the page itself does not scroll (${doc.sh} in ${doc.ch})`);
      check(doc.sw <= doc.cw, `${at}: nothing sticks out sideways (${doc.sw} in ${doc.cw})`);
      const bar = await rect('header.toolbar');
      const comp = await rect('form.composer');
      check(bar.top === 0 && bar.left === 0 && Math.round(bar.right) === w, `${at}: the toolbar spans the top (${JSON.stringify(bar)})`);
      check(Math.abs(comp.bottom - h) <= 1, `${at}: the composer sits on the bottom edge (${comp.bottom} of ${h})`);
      check(comp.right <= w + 0.5, `${at}: the composer fits the width (${comp.right})`);
      // Every toolbar control is on screen.
      const off = await page.locator('header.toolbar button').evaluateAll((bs, width) =>
        bs.filter((b) => { const r = b.getBoundingClientRect(); return r.left < 0 || r.right > width + 0.5; }).map((b) => b.getAttribute('aria-label') || b.textContent), w);
      check(off.length === 0, `${at}: every toolbar button is on screen (${off.join(', ') || 'all'})`);

      if (w <= 700) {
        check(!(await visible('#thread-list')), `${at}: the thread list is hidden behind its toggle`);
        await page.keyboard.press('Control+b');
        const side = await rect('#thread-list');
        check(side.left === 0 && side.right < w, `${at}: Ctrl+B lays the list over the thread (${side.right})`);
        await page.screenshot({ path: join(shots, `shell-${w}x${h}-${scheme}-list.png`) });
        await page.locator('#thread-list').getByRole('button', { name: /Long thread/ }).click();
        check(!(await visible('#thread-list')), `${at}: picking a thread hides the list again`);
      } else {
        const side = await rect('#thread-list');
        check(side.left === 0 && side.width > 150, `${at}: the thread list is beside the thread (${side.width} wide)`);
      }
      if (w >= 1920) {
        const measure = await page.evaluate(() => {
          const probe = document.createElement('div');
          probe.style.width = 'var(--measure)';
          document.querySelector('.main').appendChild(probe);
          const px = probe.getBoundingClientRect().width;
          probe.remove();
          return px;
        });
        const turns = await rect('ol.turns');
        check(turns.width <= measure + 0.5 && turns.width > measure * 0.9, `${at}: the thread's text keeps the measure (${turns.width} ≤ ${measure})`);
      }
      if (h <= 600) check(comp.height <= h / 5, `${at}: the composer takes at most a fifth of the height (${comp.height} of ${h})`);

      // Docked: wheeling over the thread scrolls its events, not the shell.
      const thread = page.locator('div.thread');
      await thread.evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.waitForTimeout(100);
      const tb = await thread.boundingBox();
      await page.mouse.move(tb.x + tb.width / 2, tb.y + tb.height / 2);
      const before = await thread.evaluate((el) => el.scrollTop);
      await page.mouse.wheel(0, -1500);
      await page.waitForTimeout(300);
      const after = await thread.evaluate((el) => el.scrollTop);
      check(after < before, `${at}: the wheel scrolls the thread (${before} → ${after})`);
      const bar2 = await rect('header.toolbar');
      const comp2 = await rect('form.composer');
      check(bar2.top === bar.top && comp2.top === comp.top && comp2.bottom === comp.bottom, `${at}: the toolbar and the composer stay docked`);
      check((await page.evaluate(() => window.scrollY)) === 0, `${at}: the page stays at the top`);
      await page.screenshot({ path: join(shots, `shell-${w}x${h}-${scheme}.png`) });
    }
  }

  // The thread's actions menu, from the keyboard: ↓ on its button opens it
  // on the first item, Escape closes it and gives the focus back.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
  const more = page.getByRole('button', { name: 'Thread actions', exact: true });
  await more.focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByRole('menu', { name: 'Thread actions' });
  await menu.waitFor();
  check((await page.evaluate(() => document.activeElement?.textContent?.trim())) === 'Rename', '↓ opens the thread menu on its first item');
  const items = await menu.getByRole('menuitem').allTextContents();
  check(['Rename', 'Compact', 'Archive', 'Export Markdown', 'Export JSON lines', 'Delete'].every((n) => items.map((t) => t.trim()).includes(n)), `the menu has the thread's actions (${items.map((t) => t.trim()).join(', ')})`);
  const mr = await menu.boundingBox();
  check(mr.x + mr.width <= 1440 && mr.y + mr.height <= 900, 'the menu fits the window');
  await page.screenshot({ path: join(shots, 'shell-thread-menu-light.png') });
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  check(await more.evaluate((el) => el === document.activeElement), 'Escape closes it and the focus is back on its button');
  await page.emulateMedia({ colorScheme: 'dark' });

  // A toast (an error from the hub) never covers the composer.
  await page.setViewportSize({ width: 900, height: 600 });
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Search all threads' });
  await palette.getByRole('searchbox').fill('settings');
  await palette.getByRole('list', { name: 'Actions' }).getByRole('button').first().waitFor();
  await page.screenshot({ path: join(shots, 'shell-palette-dark.png') });
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor();
  check(true, 'Ctrl+K, "settings", Enter opens Settings');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
  const box = page.getByRole('textbox', { name: 'Message' });
  // An error toast: the hub refuses the next turn (a 503, as when it is busy).
  await page.route(/\/v1\/threads\/[^/]+\/turns(\?.*)?$/, (r) =>
    r.request().method() === 'POST'
      ? r.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'the hub is busy' } }) })
      : r.continue(),
  );
  await box.fill('refused');
  await box.press('Enter');
  const toast = page.locator('.toast').first();
  await toast.waitFor();
  const t = await toast.boundingBox();
  const c = await rect('form.composer');
  check(t.y + t.height <= c.top, `the toast (${Math.round(t.y)}–${Math.round(t.y + t.height)}) is clear of the composer (from ${Math.round(c.top)})`);
  const menuButton = await rect('.head [aria-label="Thread actions"]');
  check(t.y >= menuButton.bottom, `the toast leaves the thread's header and its actions menu free (${Math.round(t.y)} ≥ ${Math.round(menuButton.bottom)})`);
  await page.screenshot({ path: join(shots, 'shell-toast-dark.png') });
  // The refused turn is the only problem the page reported.
  noProblems(problems.filter((p) => !/HTTP 503|console: .*503/.test(p)));
}

await runScript('shell', main, {
  live: () => ({ hub, browser }),
  failureDir: join(shots, 'shell-failure'),
  cleanup: () => {
    tmp.remove(log);
    proj.remove(log);
  },
});
