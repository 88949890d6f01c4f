// Browser sign-in in Chromium against the real hub (issue 12 §3): a
// one-time link signs one tab in; what the tab holds is a per-origin
// secret in sessionStorage sent as a bearer, never a cookie; a used link,
// a tab without a session and a logged-out tab say to open the link again
// from Switchboard.
//
//   export async function authScenario(page, { url, log, hub, pageUrl })
//
// Runs in browser contexts of its own, so the main page's session is
// left alone.

const again = 'Open this link again from Switchboard';

export async function authScenario(page, { url, log, hub, pageUrl }) {
  const browser = page.context().browser();
  const ctx = await browser.newContext();
  try {
    const p = await ctx.newPage();
    p.setDefaultTimeout(15000);
    const v1 = [];
    p.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/v1/')) v1.push(r.url());
    });

    // No session: the page says how to sign in, and asks the hub nothing.
    await p.goto(`${url}/`);
    await p.getByText(again).waitFor();
    if (v1.length) throw new Error(`a page without a session called the API: ${v1.join(', ')}`);
    log('a tab without a session says to open the link again, and calls nothing');

    // A link that opens a thread.
    const threads = (await hub.api('GET', '/v1/threads')).threads;
    const th = threads[0];
    const { url: link } = await hub.api('POST', '/v1/auth/codes', { body: { next: `/#/t/${th.id}` } });
    if (link.includes(hub.token) || !/\/auth\?code=[A-Za-z0-9_-]+$/.test(link)) throw new Error(`login link ${link}`);
    const setCookies = [];
    p.on('response', async (r) => {
      for (const h of await r.headersArray()) if (h.name.toLowerCase() === 'set-cookie') setCookies.push(`${r.url()}: ${h.value}`);
    });
    await p.goto(link);
    await p.waitForURL(`${url}/#/t/${th.id}`);
    await p.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    await p.getByRole('heading', { name: th.title || th.id }).waitFor();
    const held = await p.evaluate(() => ({ cookie: document.cookie, secret: sessionStorage.getItem('switchboard.session') }));
    const cookies = await ctx.cookies();
    if (held.cookie !== '' || cookies.length || setCookies.length) {
      throw new Error(`a cookie: document.cookie ${JSON.stringify(held.cookie)}, jar ${JSON.stringify(cookies)}, Set-Cookie ${setCookies}`);
    }
    if (!held.secret || held.secret.includes(hub.token)) throw new Error('no session secret in sessionStorage');
    if (p.url().includes('code=')) throw new Error(`the code is left in the address: ${p.url()}`);
    const status = (secret) =>
      p.evaluate(
        async (s) => (await fetch('/v1/threads', { headers: { 'X-Client-ID': 'x', ...(s ? { Authorization: `Bearer ${s}` } : {}) } })).status,
        secret,
      );
    if ((await status(held.secret)) !== 200 || (await status('')) !== 401) throw new Error('the secret is not what authorizes the API');
    log('the link signed the tab in, opened its thread; sessionStorage holds the secret, no cookie anywhere');

    // The link works once.
    const p2 = await ctx.newPage();
    const second = await p2.goto(link);
    if (second.status() !== 401) throw new Error(`the link a second time: ${second.status()}`);
    await p2.getByText(again).waitFor();
    if (await p2.evaluate(() => sessionStorage.getItem('switchboard.session'))) throw new Error('a used link left a secret');
    // Another tab, and another port of 127.0.0.1 (the proxy), do not share the session.
    await p2.goto(`${url}/`);
    await p2.getByText(again).waitFor();
    if (pageUrl && pageUrl !== url) {
      await p2.goto(`${pageUrl}/`);
      await p2.getByText(again).waitFor();
    }
    log('a used link signs nobody in; other tabs and other ports do not see the session');

    // A next off the hub is refused.
    const evil = await fetch(`${hub.url}/v1/auth/codes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${hub.token}`, 'X-Client-ID': 'script', 'Content-Type': 'application/json' },
      body: JSON.stringify({ next: 'http://evil.example/' }),
    });
    if (evil.status !== 400) throw new Error(`next http://evil.example/: ${evil.status}`);

    // Log out ends the session.
    await p.getByRole('button', { name: 'Log out' }).click();
    await p.getByText('You are logged out.').waitFor();
    await p.getByText(again).waitFor();
    if (await p.evaluate(() => sessionStorage.getItem('switchboard.session'))) throw new Error('the secret outlived Log out');
    if ((await status(held.secret)) !== 401) throw new Error('the session outlived Log out');
    await p.reload();
    await p.getByText(again).waitFor();
    log('Log out ends the session; the page says to open the link again');
  } finally {
    await ctx.close();
  }
}
