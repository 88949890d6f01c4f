import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { HubError } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';
import { budgetRefusal, costTexts, dayBars, lastDays, otherCurrencies, spendText, topThreads, type UsageReport } from '../lib/ledger';

const [yesterday, today] = lastDays(2);

const days: UsageReport = {
  currency: 'USD',
  agentsWithoutCost: ['qwen', 'silent'],
  heldBy: { claude: 'cost', codex: 'cost', qwen: 'tokens', silent: 'minutes' },
  buckets: [
    {
      key: yesterday,
      cost: { USD: 1.5, EUR: 2 },
      inputTokens: 9000,
      outputTokens: 3000,
      agents: { claude: { USD: 1 }, codex: { USD: 0.5 } },
      agentTokens: { claude: 4000, qwen: 8000 },
    },
    { key: today, cost: { USD: 0.25 }, inputTokens: 0, outputTokens: 0, agents: { claude: { USD: 0.25 } } },
  ],
};
const threads: UsageReport = {
  agentsWithoutCost: [],
  buckets: [
    { key: 'th_a', title: 'Cheap', agent: 'claude', cost: { USD: 0.1 }, inputTokens: 0, outputTokens: 0 },
    { key: 'th_b', title: 'Dear', agent: 'codex', cost: { USD: 3 }, inputTokens: 0, outputTokens: 0 },
    { key: 'th_c', title: 'Euros only', agent: 'codex', cost: { EUR: 9 }, inputTokens: 0, outputTokens: 0 },
  ],
};

describe('ledger', () => {
  it('stacks days by agent in the budgets currency and ranks threads', () => {
    const bars = dayBars(days, 'USD');
    expect(dayBars(days, 'USD', lastDays(3)).map((b) => b.total)).toEqual([0, 1.5, 0.25]);
    expect(bars.map((b) => [b.day, b.total, b.segments.map((s) => s.agent)])).toEqual([
      [yesterday, 1.5, ['claude', 'codex']],
      [today, 0.25, ['claude']],
    ]);
    expect(topThreads(threads, 'USD').map((t) => t.key)).toEqual(['th_b', 'th_a']);
    expect(otherCurrencies(days, 'USD')).toEqual(['EUR']);
    expect(costTexts(threads)).toEqual({ th_a: '0.10 USD', th_b: '3.00 USD', th_c: '9.00 EUR' });
    const estimated: UsageReport = {
      currency: 'USD',
      agentsWithoutCost: [],
      buckets: [
        { key: 'tu_1', cost: {}, inputTokens: 4000, outputTokens: 1000, estimate: 0.027 },
        { key: 'tu_2', cost: { USD: 0.5 }, inputTokens: 0, outputTokens: 0, estimate: 0.1 },
      ],
    };
    expect(costTexts(estimated)).toEqual({ tu_1: '≈ 0.03 USD, estimated', tu_2: '0.50 USD' });
  });

  it('stacks days by agent in tokens, the agents that report no cost included', () => {
    expect(dayBars(days, 'USD', lastDays(2), 'tokens').map((b) => [b.total, b.segments.map((s) => `${s.agent}:${s.value}`)])).toEqual([
      [12000, ['claude:4000', 'qwen:8000']],
      [0, []],
    ]);
  });

  it('reads a BUDGET_EXCEEDED refusal and nothing else', () => {
    const e = new HubError('CONFLICT', 'spent', { details: { reason: 'BUDGET_EXCEEDED', budget: 'daily', currency: 'USD', spent: 5.2, limit: 5 } });
    expect(budgetRefusal(e, 'th_1')).toMatchObject({ threadId: 'th_1', budget: 'daily', spent: 5.2, limit: 5 });
    expect(budgetRefusal(new HubError('CONFLICT', 'a turn is running'), 'th_1')).toBeUndefined();
    // Each budget in its own measure.
    expect(spendText(5.2, 'daily', 'USD')).toBe('5.20 USD');
    expect(spendText(1200, 'tokens.perThread', 'USD')).toBe('1,200 tokens');
    expect(spendText(45, 'minutes.agents.claude.daily', 'USD')).toBe('45 min');
  });
});

describe('Usage view', () => {
  it('plots cost per day by agent and the dearest threads, and says what is not counted', async () => {
    const f = new FakeTransport();
    f.usage = { day: days, thread: threads };
    render(App, { store: new HubStore(f, (flush) => queueMicrotask(flush)) });
    await fireEvent.click(await screen.findByRole('button', { name: 'Usage' }));
    const view = await screen.findByRole('dialog', { name: 'Usage' });
    const plot = await within(view).findByRole('img', { name: 'Cost per day, stacked by agent' });
    expect(plot.querySelectorAll('rect[data-agent]')).toHaveLength(3);
    expect(within(view).getByRole('img', { name: 'Threads that cost most' }).textContent).toContain('Dear');
    expect(view.textContent).toContain('Costs in EUR are reported but not counted against the USD budgets');
    const tokensPlot = within(view).getByRole('img', { name: 'Tokens per day, stacked by agent' });
    expect([...tokensPlot.querySelectorAll('rect[data-agent]')].map((r) => r.getAttribute('data-agent'))).toEqual(['claude', 'qwen']);
    expect(tokensPlot.querySelector('rect[data-agent="qwen"] title')?.textContent).toBe(`${yesterday} · qwen: 8,000 tokens`);
    const held = within(view).getByTestId('held-by');
    expect(held.querySelector('[data-agent="qwen"]')?.textContent).toBe('qwen: its tokens (it reports no cost)');
    expect(held.querySelector('[data-agent="silent"]')?.textContent).toBe('silent: its agent time only (it reports neither cost nor tokens)');
    expect(held.querySelector('[data-agent="claude"]')?.textContent).toBe('claude: its cost');
    expect(view.textContent).toContain('the budgets in money cannot stop them; those in tokens and minutes can: qwen, silent');
    expect(f.usageQueries.map((q) => q.by).sort()).toEqual(['day', 'thread']);
    expect(document.activeElement?.textContent).toBe('Close');
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Usage' })).toBeNull();
  });
});

describe('budget events', () => {
  it('shows budget_warning and budget_exceeded until dismissed', async () => {
    const f = new FakeTransport();
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    await screen.findByRole('button', { name: 'Usage' });
    const at = '2026-11-25T07:00:00Z';
    store.apply({ seq: 5, type: 'budget_warning', threadId: '', turnId: '', at, budget: 'daily', currency: 'USD', spent: 0.85, limit: 1 });
    await screen.findByText('The daily budget is at 85 %: 0.85 USD of 1.00 USD.');
    store.apply({ seq: 6, type: 'budget_exceeded', threadId: '', turnId: '', at, budget: 'daily', currency: 'USD', spent: 1.2, limit: 1 });
    await screen.findByText(/The daily budget is spent \(1.20 USD of 1.00 USD\)/);
    await fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(/The daily budget is spent/)).toBeNull();
  });
});


describe('Settings → Budgets', () => {
  it('saves the budgets section whole, with the one value committed changed', async () => {
    const f = new FakeTransport();
    f.settings = { ...f.settings, budgets: { currency: 'USD', daily: 5, agents: { claude: { daily: 3, monthly: 30 } } } };
    f.agents = [{ id: 'claude', name: 'Claude', status: 'available' } as never];
    render(App, { store: new HubStore(f, (flush) => queueMicrotask(flush)) });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    const section = await within(dialog).findByRole('region', { name: 'Budgets' });
    const monthly = within(section).getByRole('spinbutton', { name: 'Monthly' }) as HTMLInputElement;
    await fireEvent.input(monthly, { target: { value: '50' } });
    await fireEvent.change(monthly);
    await within(section).findByText('Saved');
    const patch = f.calls.filter((c) => c.method === 'updateSettings').at(-1)?.args[0] as { budgets: unknown };
    expect(patch.budgets).toEqual({ currency: 'USD', daily: 5, monthly: 50, agents: { claude: { daily: 3, monthly: 30 } } });
  });
});
