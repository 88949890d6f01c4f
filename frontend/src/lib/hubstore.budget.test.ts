// A budget stop is said once (issue 29): a turn refused because a budget
// is spent shows the thread's BudgetBlocked banner, not a toast as well;
// any other error still toasts.
import { beforeEach, describe, expect, it } from 'vitest';
import { HubStore } from './hubstore.svelte';
import { HubError } from './transport';
import { FakeTransport } from '../test/fakeTransport';

beforeEach(() => localStorage.clear());

describe('HubStore: a budget stop said once', () => {
  it('does not toast a BUDGET_EXCEEDED refusal, and toasts any other conflict', () => {
    const store = new HubStore(new FakeTransport(), () => {});
    store.report(new HubError('CONFLICT', 'the perThread budget is spent', { status: 409, details: { reason: 'BUDGET_EXCEEDED', budget: 'perThread', currency: 'USD', spent: 2, limit: 1 } }));
    expect(store.errors).toHaveLength(0);
    store.report(new HubError('CONFLICT', 'thread is busy', { status: 409, details: { reason: 'BUSY' } }));
    expect(store.errors).toHaveLength(1);
    expect(store.errors[0].message).not.toMatch(/budget/i);
  });
});
