import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import CompactionRow from './CompactionRow.svelte';

describe('CompactionRow', () => {
  it('says the agent compacted its context, with the summary behind a closed disclosure', () => {
    const { container } = render(CompactionRow, { status: 'completed', summary: 'We renamed the parser. Tests pass.' });
    expect(screen.getByRole('status').textContent).toContain('The agent compacted its context');
    const details = container.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('What it kept');
    expect(details.textContent).toContain('We renamed the parser. Tests pass.');
  });

  it('says it is compacting while in progress, and why it failed', () => {
    const { unmount, container } = render(CompactionRow, { status: 'in_progress' });
    expect(screen.getByRole('status').textContent).toContain("Compacting the agent's context…");
    expect(container.querySelector('details')).toBeNull();
    unmount();
    render(CompactionRow, { status: 'failed', error: 'context too small' });
    expect(screen.getByRole('status').textContent).toContain('The agent could not compact its context: context too small');
  });
});
