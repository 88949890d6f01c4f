import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ErrorNotice from './ErrorNotice.svelte';

describe('ErrorNotice', () => {
  it('says what went wrong once, offers the fix, and keeps the raw detail behind a closed Details', async () => {
    let finish!: () => void;
    const restart = vi.fn(() => new Promise<void>((r) => (finish = r)));
    render(ErrorNotice, {
      error: { code: 'UPSTREAM_UNAVAILABLE', message: 'acp: session/prompt: connection closed' },
      agent: 'Qwen Code',
      on: { restart },
    });
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('.title')?.textContent).toBe('Qwen Code stopped unexpectedly.');
    const details = within(alert).getByText('Details').closest('details')!;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain('UPSTREAM_UNAVAILABLE: acp: session/prompt: connection closed');
    // The raw text is said nowhere else.
    expect(alert.textContent!.split('connection closed').length).toBe(2);
    const button = within(alert).getByRole('button', { name: 'Restart it' });
    await fireEvent.click(button);
    await fireEvent.click(button); // busy: not run twice
    expect(restart).toHaveBeenCalledTimes(1);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    finish();
    await vi.waitFor(() => expect(button.getAttribute('aria-disabled')).toBe('false'));
  });

  it('says when its action failed, in words', async () => {
    render(ErrorNotice, {
      error: { code: 'TIMEOUT', message: 'turn timed out' },
      agent: 'Codex',
      on: { retry: () => Promise.reject({ code: 'TOO_MANY_REQUESTS', message: 'limit' }) },
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await vi.waitFor(() => expect(screen.getByText('Too many agents are running at once. Wait for one to finish.')).toBeTruthy());
  });

  it('offers no button when this place cannot fix it', () => {
    render(ErrorNotice, { error: { code: 'UPSTREAM_UNAVAILABLE', message: 'connection closed' }, agent: 'Codex' });
    expect(screen.queryByRole('button')).toBeNull();
  });
});
