import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import SubagentCard from './SubagentCard.svelte';

describe('SubagentCard', () => {
  it('names the sub-agent, what it does and its state', () => {
    render(SubagentCard, { sessionId: 's1', title: 'Explore tests', description: 'Find the flaky test', state: 'requires_action' });
    const card = screen.getByRole('region', { name: 'Sub-agent Explore tests' });
    expect(card.textContent).toContain('Find the flaky test');
    expect(card.querySelector('.state')!.textContent).toBe('needs you');
  });

  it('falls back to the session id, and shows no state when none is known', () => {
    render(SubagentCard, { sessionId: 'child-7' });
    const card = screen.getByRole('region', { name: 'Sub-agent child-7' });
    expect(card.querySelector('.state')).toBeNull();
  });
});
