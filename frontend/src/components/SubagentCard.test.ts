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

  it('shows what the sub-agent said and its tool calls', () => {
    render(SubagentCard, {
      sessionId: 's1',
      title: 'Explore tests',
      stream: { text: 'Looking at the tests.', tools: [{ toolCallId: 't1', title: 'Run the tests', status: 'in_progress' }] },
    });
    const card = screen.getByRole('region', { name: 'Sub-agent Explore tests' });
    expect(card.querySelector('.said')!.textContent).toBe('Looking at the tests.');
    const tools = screen.getByRole('list', { name: 'Tool calls of Explore tests' });
    expect(tools.textContent).toContain('in progress');
    expect(tools.textContent).toContain('Run the tests');
  });

  it('falls back to the session id, and shows no state when none is known', () => {
    render(SubagentCard, { sessionId: 'child-7' });
    const card = screen.getByRole('region', { name: 'Sub-agent child-7' });
    expect(card.querySelector('.state')).toBeNull();
  });
});
