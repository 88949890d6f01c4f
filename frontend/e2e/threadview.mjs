// Thread view and composer in a real browser: tool cards, the permission
// countdown, the slash palette's absence, and attachment refusals.
//
// Called by e2e/run.mjs as threadViewScenario(page, {url, log, shots}) once
// its main scenario is done. Needs: the page signed in, a thread titled
// "E2E thread" on the acp-go-sdk example agent ("SDK": it streams text,
// makes two tool calls and asks one permission, "Allow this change"; it
// reports no slash commands and no prompt capabilities beyond text), and
// no turn running on it. Leaves the thread idle with one more turn.
import { join } from 'node:path';

export async function threadViewScenario(page, { log, shots }) {
  const nav = page.getByRole('navigation', { name: 'Threads' });
  await nav.getByRole('button', { name: /E2E thread/ }).first().click();
  await page.getByRole('heading', { name: 'E2E thread' }).waitFor();
  const conv = page.getByRole('list', { name: 'Conversation' });

  log('tool cards: kind and status');
  const summary = conv.locator('details.tool summary').first();
  await summary.waitFor();
  const badge = await summary.locator('.badge').textContent();
  if (!/completed|failed|pending|in progress/.test(badge ?? '')) throw new Error(`tool card status badge says ${JSON.stringify(badge)}`);

  log('no slash palette for an agent without commands');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/');
  if (await page.getByRole('listbox', { name: 'Commands' }).count()) throw new Error('a command palette opened for an agent with no commands');
  if ((await box.getAttribute('aria-autocomplete')) !== null) throw new Error('the message box claims autocompletion');
  await box.fill('');

  log('attachments the agent does not accept are refused, with the reason');
  if (await page.getByRole('button', { name: 'Attach' }).count()) throw new Error('Attach offered to an agent that accepts only text');
  await page.locator('form.composer').evaluate((form) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['TODO\n'], 'notes.txt', { type: 'text/plain' }));
    form.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  const refusal = page.locator('form.composer [role="alert"]');
  await refusal.waitFor();
  const why = (await refusal.textContent()) ?? '';
  if (!/^notes\.txt: SDK does not accept file contents/.test(why)) throw new Error(`refusal says ${JSON.stringify(why)}`);
  if (await page.getByRole('list', { name: 'Attachments' }).count()) throw new Error('a refused file was attached');

  log('permission countdown');
  await box.fill('Countdown check');
  await box.press('Enter');
  const turn = conv.locator('li.turn').last();
  await turn.getByText('Countdown check').waitFor();
  const card = turn.getByRole('region', { name: /Permission request: \/home\/user\/project\/config\.json/ });
  const tick = card.locator('.countdown [aria-live="off"]');
  await tick.waitFor();
  const first = (await tick.textContent()) ?? '';
  if (!/^expires in \d+:\d\d$/.test(first)) throw new Error(`countdown says ${JSON.stringify(first)}`);
  await page.waitForFunction(
    ([el, was]) => el.textContent !== was,
    [await tick.elementHandle(), first],
    { timeout: 3000 },
  );
  const hidden = (await card.locator('.countdown .visually-hidden').textContent()) ?? '';
  if (!/answer by/.test(hidden)) throw new Error(`no deadline time for screen readers: ${JSON.stringify(hidden)}`);
  await page.screenshot({ path: join(shots, 'threadview-countdown-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'threadview-countdown-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(
    () => [...document.querySelectorAll('button')].some((x) => x.textContent.startsWith('Allow once') && x.textContent.includes('“Allow this change”') && !x.disabled),
    null,
    { timeout: 5000 },
  );
  await card.getByRole('button', { name: 'Allow this change' }).click();
  await card.locator('.countdown').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  log(`countdown ticked from ${first}; gone once decided`);
}
