import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import PermissionCard from './PermissionCard.svelte';
import { permission } from '../test/fakeTransport';

// A spending limit's question (kind budget): the hub's words, its own
// options by name, nothing to remember.
describe('PermissionCard for a spending limit', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const title = '"Refactor" reached its per-thread limit of 1,000 tokens (1,200 tokens spent): allow 200 tokens more for this turn, or stop now';

  it('says the amounts, answers with the hub’s options by name, and offers no “Always…”', async () => {
    const ondecide = vi.fn();
    render(PermissionCard, {
      permission: permission('pe_b', {
        kind: 'budget',
        request: {
          kind: 'other',
          title,
          budget: { budget: 'tokens.perThread', measure: 'tokens', spent: 1200, limit: 1000, allowMore: 200, grace: 100 },
        },
        toolCall: { toolCallId: 'hub_budget_1', kind: 'other', title },
        options: [
          { optionId: 'allow-more', name: 'Allow 200 tokens more for this turn', kind: 'allow_once' },
          { optionId: 'stop', name: 'Stop now', kind: 'reject_once' },
        ],
      }),
      ondecide,
    });
    const card = screen.getByRole('region', { name: /^Permission request/ });
    expect(within(card).getByText('Spending limit', { selector: 'strong' })).toBeTruthy();
    expect(card.textContent).toContain('1,200 tokens spent');
    expect(card.textContent).not.toContain('The agent says');
    const answer = within(card).getByRole('group', { name: 'Answer' });
    expect(within(answer).getAllByRole('button').map((b) => b.textContent)).toEqual(['Allow 200 tokens more for this turn', 'Stop now']);
    expect(within(card).queryByRole('button', { name: /Always/ })).toBeNull();
    await vi.advanceTimersByTimeAsync(2000);
    await fireEvent.click(within(answer).getByRole('button', { name: 'Allow 200 tokens more for this turn' }));
    expect(ondecide).toHaveBeenCalledWith('allow-more');
  });
});
