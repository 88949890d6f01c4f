// The accessibility scenario of the browser end-to-end run (e2e/run.mjs
// calls it).
//
//   export async function a11yScenario(page, { url, log, shots })
//
//   page   a Playwright Page showing the web UI, signed in, light colour
//          scheme, theme "system", no dialog open; left that way
//   url    the hub's base URL (http://127.0.0.1:<port>), for reference
//   log    (...args) => void, the run's logger
//   shots  the folder for screenshots (<repo>/build/screenshots)
//
// Needs a thread titled "E2E thread" on the acp-go-sdk example agent
// (e2e/run.mjs makes it: a conversation with tool cards and a resolved
// permission card), idle. Adds one turn to it.
//
// axe-core (node_modules/axe-core/axe.min.js, put into the page with
// page.evaluate, which the hub's CSP does not govern) checks the WCAG 2.0,
// 2.1 and 2.2 A/AA rules and axe's best practices on each of these states,
// in the light and then the dark colour scheme:
//
//   main         the E2E thread open: tool cards, resolved permission cards
//   rename       its header's title being renamed (then cancelled)
//   delete-confirm  its header's "Delete …?" confirmation (then kept)
//   new-thread   the New thread dialog
//   settings     the Settings dialog
//   rules-editor the Settings dialog with the form of a new permission rule
//                open, after a save refused for want of a name (its error
//                shown on the field)
//   search       the Search dialog (Ctrl/Cmd+K) with hits
//   pending      a permission waiting in the thread and the Approvals
//                panel open over it
//   inbox-selection  the same with the request selected in the inbox
//                (Space on its list) and its "Always…" menu open
//   approvals    the Approvals panel with nothing pending
//   history      the Decision history dialog over it (the run's decided
//                requests, newest first)
//   palette      the composer's slash-command palette ("/" typed first in
//                the Message box). The example agent reports no commands,
//                so for this state the thread list the page loads is
//                rewritten (page.route) to give the E2E thread two; the
//                route is removed and the page reloaded afterwards.
//
// Every violation of every state is listed (rule id, impact, help, the
// first 5 target selectors) and fails the scenario. No rule is turned off.
//
// Reduced motion: the spinner of the running turn turns by default and
// not under prefers-reduced-motion: reduce.
//
// Keyboard, with real key presses: Tab from the start of the page reaches
// the New thread button, a thread of the thread list and the Message box,
// each with a visible focus indicator (outline or box-shadow under
// :focus-visible); Enter on New thread and on Settings opens the dialog,
// Escape closes it and focus is back on the button that opened it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const axeSource = readFileSync(join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

const axeOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
  // Full detail for violations only; "needs review" (incomplete) results
  // are logged by rule id, not failed on.
  resultTypes: ['violations'],
};

/** Runs axe on the whole document; its violations, each with up to 5 target selectors. */
export async function axeRun(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  return page.evaluate(async (options) => {
    const r = await window.axe.run(document, options);
    return {
      violations: r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        count: v.nodes.length,
        targets: v.nodes.slice(0, 5).map((n) => n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : t)).join(' >>> ')),
      })),
      review: r.incomplete.map((v) => v.id),
    };
  }, axeOptions);
}

/**
 * Fails when axe finds a violation on the page (axeRun's rules), naming
 * what state was checked and up to 3 places a violation; logs the pass.
 * For a script's own states; a11yScenario covers the window's main ones.
 */
export async function axeCheck(page, what, log) {
  const { violations } = await axeRun(page);
  if (violations.length) throw new Error(`axe, ${what}:\n${violations.map((v) => `${v.id} (${v.help}): ${v.targets.slice(0, 3).join(', ')}`).join('\n')}`);
  log('ok: axe finds nothing wrong with', what);
}

/**
 * Sets the colour scheme and waits until the page's background follows it (the
 * theme is "system", so it must).
 */
export async function scheme(page, colorScheme) {
  await page.emulateMedia({ colorScheme });
  await page.waitForFunction(
    (dark) => {
      const bg = getComputedStyle(document.body).backgroundColor;
      return dark === (bg !== 'rgb(255, 255, 255)');
    },
    colorScheme === 'dark',
    { timeout: 3000 },
  );
}

export async function a11yScenario(page, { url, log, shots }) {
  const found = []; // {state, scheme, violation}
  const summary = [];
  const keyboard = []; // keyboard and motion problems
  const check = async (state) => {
    for (const s of ['light', 'dark']) {
      await scheme(page, s);
      const { violations: vs, review } = await axeRun(page);
      for (const v of vs) found.push({ state, scheme: s, v });
      summary.push(
        `${state}/${s}: ${vs.length ? vs.map((v) => `${v.id}×${v.count}`).join(' ') : 'clean'}` +
          (review.length ? ` (to review by hand: ${review.join(', ')})` : ''),
      );
    }
    await scheme(page, 'light');
  };

  log('a11y: the thread view', `(hub ${url})`);
  const nav = page.getByRole('navigation', { name: 'Threads' });
  const openThread = async () => {
    await nav.getByRole('button', { name: /E2E thread/ }).first().click();
    await page.getByRole('heading', { name: 'E2E thread' }).waitFor();
    await page.getByRole('list', { name: 'Conversation' }).locator('details.tool').first().waitFor();
  };
  await openThread();
  await check('main');

  log('a11y: renaming and deleting from the thread header');
  await page.getByRole('button', { name: 'Thread actions', exact: true }).click();
  await page.getByRole('menu', { name: 'Thread actions' }).waitFor();
  await check('thread-actions-menu');
  await page.getByRole('menuitem', { name: 'Rename', exact: true }).click();
  await page.getByRole('textbox', { name: 'Thread title' }).waitFor();
  await check('rename');
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.getByRole('button', { name: 'Thread actions', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('alertdialog');
  await confirm.waitFor();
  await check('delete-confirm');
  await confirm.getByRole('button', { name: 'Keep it' }).click();
  await confirm.waitFor({ state: 'detached' });

  log('a11y: the New thread dialog');
  await page.getByRole('button', { name: 'New thread' }).click();
  const newDialog = page.getByRole('dialog', { name: 'New thread' });
  await newDialog.waitFor();
  await check('new-thread');
  await newDialog.getByRole('button', { name: 'Cancel' }).click();
  await newDialog.waitFor({ state: 'detached' });

  log('a11y: the Settings dialog');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByText(/Saved to/).waitFor();
  await check('settings');
  await settings.getByRole('button', { name: 'Add rule' }).click();
  const ruleForm = settings.getByRole('form', { name: 'Rule (new)' });
  await ruleForm.getByRole('button', { name: 'Save rule' }).click();
  await ruleForm.getByText(/Give the rule a name/).waitFor();
  await check('rules-editor');
  await ruleForm.getByRole('button', { name: 'Cancel' }).click();
  await ruleForm.waitFor({ state: 'detached' });
  await settings.getByRole('button', { name: 'Close settings', exact: true }).click();
  await settings.waitFor({ state: 'detached' });

  log('a11y: the Search dialog with hits');
  await page.getByRole('button', { name: 'Search or run a command…', exact: true }).click();
  const search = page.getByRole('dialog', { name: 'Search all threads' });
  await search.getByRole('searchbox').fill('understand');
  await search.getByRole('list', { name: 'Search results' }).getByRole('button').first().waitFor();
  await check('search');
  await search.getByRole('searchbox').press('Escape');
  await search.waitFor({ state: 'detached' });

  log('a11y: a pending permission and the Approvals panel');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Accessibility check');
  await box.press('Enter');
  const turn = page.getByRole('list', { name: 'Conversation' }).locator('li.turn').last();
  await turn.getByText('Accessibility check').waitFor();
  const card = turn.getByRole('region', { name: /Permission request: \/home\/user\/project\/config\.json/ });
  await card.waitFor();
  await page.waitForFunction(
    () => [...document.querySelectorAll('button')].some((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”') && !x.disabled),
    null,
    { timeout: 5000 },
  );
  await page.getByRole('button', { name: 'Approvals: 1 pending' }).click();
  const panel = page.getByRole('region', { name: 'Pending approvals' });
  await panel.getByRole('button', { name: 'Allow this change' }).waitFor();
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('#approvals button')].some((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”') && !x.disabled),
    null,
    { timeout: 5000 },
  );
  await check('pending');
  const inbox = panel.getByRole('listbox', { name: 'Pending requests' });
  await inbox.focus();
  await page.waitForFunction(() => document.querySelector('#approvals [role="listbox"]')?.getAttribute('aria-busy') === 'false');
  await page.keyboard.press(' ');
  await inbox.locator('[aria-selected="true"]').waitFor();
  await panel.getByRole('button', { name: 'Always…' }).click();
  await panel.getByRole('menu', { name: 'Always…' }).waitFor();
  await check('inbox-selection');
  // The running turn's spinner turns only when motion is not reduced.
  const spin = turn.locator('.working .spin');
  const animation = () => spin.evaluate((el) => getComputedStyle(el).animationName);
  const moving = await animation();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const still = await animation();
  await page.emulateMedia({ reducedMotion: null });
  if (moving === 'none' || still !== 'none') {
    keyboard.push(`the working spinner: animation ${moving} by default, ${still} with reduced motion (want none)`);
  }
  await card.getByRole('button', { name: 'Allow this change' }).click();
  await page.getByRole('button', { name: 'Approvals: 0 pending' }).waitFor();
  await panel.getByText('Nothing waits for you.').waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  await check('approvals');
  await panel.getByRole('button', { name: 'History…' }).click();
  const history = page.getByRole('dialog', { name: 'Decision history' });
  await history.getByRole('table').waitFor();
  await check('history');
  await page.keyboard.press('Escape');
  await history.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Approvals: 0 pending' }).click();
  await panel.waitFor({ state: 'detached' });

  log('a11y: the slash-command palette');
  const listRoute = /\/v1\/threads(\?|$)/;
  await page.route(listRoute, async (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    const res = await route.fetch();
    const body = await res.json();
    for (const t of body.threads ?? []) {
      if (t.title === 'E2E thread') {
        t.availableCommands = [
          { name: 'review', description: 'Review the changes in the working tree', input: { hint: 'paths' } },
          { name: 'plan', description: 'Write a plan before changing anything' },
        ];
      }
    }
    await route.fulfill({ response: res, json: body });
  });
  try {
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    await openThread();
    await box.fill('/');
    const palette = page.getByRole('listbox', { name: 'Commands' });
    await palette.getByRole('option', { name: /review/ }).waitFor();
    await check('palette');
    await box.fill('');
    await palette.waitFor({ state: 'detached' });
  } finally {
    await page.unroute(listRoute);
  }
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();

  log('a11y: keyboard');
  await openThread();
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { what: 'body' };
      const cs = getComputedStyle(el);
      const nav = el.closest('nav[aria-label="Threads"]');
      return {
        what:
          el.getAttribute('aria-label') ||
          (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40) ||
          el.tagName.toLowerCase(),
        newThread: el.tagName === 'BUTTON' && el.textContent?.trim() === 'New thread' && !!el.closest('header.toolbar'),
        settings: el.tagName === 'BUTTON' && el.getAttribute('aria-label') === 'Settings' && !!el.closest('header.toolbar'),
        threadList: !!nav && el.tagName === 'BUTTON' && !!el.closest('li'),
        message: el.tagName === 'TEXTAREA' && el.getAttribute('aria-label') === 'Message',
        visible:
          el.matches(':focus-visible') &&
          ((cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none'),
        outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}; box-shadow ${cs.boxShadow}`,
      };
    });
  // The start of the page: a click on its first heading puts the
  // sequential focus navigation starting point there.
  const fromStart = async () => {
    await page.getByRole('heading', { level: 1, name: 'Switchboard' }).click();
    const f = await focused();
    if (f.what !== 'body') throw new Error(`a click on the page heading left focus on ${f.what}`);
  };
  await fromStart();
  const want = { newThread: false, threadList: false, message: false };
  const order = [];
  for (let i = 0; i < 200 && !want.message; i++) {
    await page.keyboard.press('Tab');
    const f = await focused();
    order.push(f.what);
    for (const k of Object.keys(want)) {
      if (f[k] && !want[k]) {
        want[k] = true;
        if (!f.visible) keyboard.push(`${k} (${f.what}) has focus but no visible focus indicator: ${f.outline}`);
      }
    }
  }
  for (const [k, ok] of Object.entries(want)) if (!ok) keyboard.push(`Tab from the page start never reached ${k}`);
  log(`a11y: Tab order (${order.length} stops): ${order.slice(0, 12).join(' → ')}${order.length > 12 ? ' → …' : ''}`);

  for (const [name, key] of [
    ['New thread', 'newThread'],
    ['Settings', 'settings'],
  ]) {
    await fromStart();
    let on = false;
    for (let i = 0; i < 10 && !on; i++) {
      await page.keyboard.press('Tab');
      on = (await focused())[key];
    }
    if (!on) {
      keyboard.push(`Tab from the page start did not reach the ${name} button within 10 stops`);
      continue;
    }
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name });
    await dialog.waitFor();
    await page.waitForFunction(() => !!document.activeElement?.closest('[role="dialog"]'), null, { timeout: 3000 }).catch(() => {
      keyboard.push(`opening ${name} did not move focus into the dialog`);
    });
    await page.keyboard.press('Escape');
    try {
      await dialog.waitFor({ state: 'detached', timeout: 3000 });
    } catch {
      keyboard.push(`Escape did not close the ${name} dialog`);
      await dialog.getByRole('button', { name: name === 'Settings' ? 'Close settings' : 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      continue;
    }
    const f = await focused();
    if (!f[key]) keyboard.push(`after Escape closed ${name}, focus is on ${f.what}, not on the ${name} button`);
  }

  log('a11y:', summary.join('; '));
  const lines = [];
  for (const { state, scheme: s, v } of found) {
    lines.push(`  [${state}/${s}] ${v.id} (${v.impact}, ${v.count} node${v.count === 1 ? '' : 's'}): ${v.help}`);
    for (const t of v.targets) lines.push(`      ${t}`);
  }
  for (const k of keyboard) lines.push(`  [keyboard/motion] ${k}`);
  if (lines.length) {
    await page.screenshot({ path: join(shots, 'a11y-failure.png') }).catch(() => {});
    throw new Error(`accessibility problems:\n${lines.join('\n')}`);
  }
  log('a11y: no axe violations in any state, light or dark; keyboard and reduced motion ok');
}
