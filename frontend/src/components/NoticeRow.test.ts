import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import NoticeRow from './NoticeRow.svelte';

describe('NoticeRow', () => {
  it('says a warning with its description, as a status, not an alert', () => {
    render(NoticeRow, { severity: 'warning', title: 'Model switched to Sonnet', description: 'Opus is busy.' });
    const row = screen.getByRole('status', { name: 'Agent warning' });
    expect(row.getAttribute('data-notice')).toBe('warning');
    expect(row.textContent).toContain('Model switched to Sonnet');
    expect(row.textContent).toContain('Opus is busy.');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('makes an error an alert, and an unknown severity plain info', () => {
    const { unmount } = render(NoticeRow, { severity: 'error', title: 'Quota exhausted' });
    expect(screen.getByRole('alert', { name: 'Agent error' }).textContent).toContain('Quota exhausted');
    unmount();
    render(NoticeRow, { severity: 'shout', title: 'From the future' });
    expect(screen.getByRole('status', { name: 'Agent notice' }).getAttribute('data-notice')).toBe('info');
  });
});
