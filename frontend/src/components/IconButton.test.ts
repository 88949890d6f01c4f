import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Inbox from '@lucide/svelte/icons/inbox';
import IconButton from './IconButton.svelte';

describe('IconButton', () => {
  it('is named by its label, its tooltip names the action and the key, the icon is hidden', async () => {
    const onclick = vi.fn();
    render(IconButton, { icon: Inbox, label: 'Approvals: 3 pending', tip: 'Approvals', shortcut: 'Ctrl+Shift+A', badge: 3, tone: 'warn', onclick });
    const b = screen.getByRole('button', { name: 'Approvals: 3 pending' });
    expect(b.getAttribute('title')).toBe('Approvals (Ctrl+Shift+A)');
    expect(b.querySelector('svg')?.getAttribute('aria-hidden')).toBe('true');
    expect(b.querySelector('.count.warn')?.textContent).toBe('3');
    expect(b.hasAttribute('aria-pressed')).toBe(false); // not a toggle
    await fireEvent.click(b);
    expect(onclick).toHaveBeenCalledTimes(1);
  });

  it('says a toggle is pressed, and shows no badge for 0; past 99 it says 99+', async () => {
    const { rerender } = render(IconButton, { icon: Inbox, label: 'Thread list', pressed: true, badge: 0 });
    const b = screen.getByRole('button', { name: 'Thread list' });
    expect(b.getAttribute('aria-pressed')).toBe('true');
    expect(b.getAttribute('title')).toBe('Thread list');
    expect(b.querySelector('.count')).toBeNull();
    await rerender({ icon: Inbox, label: 'Thread list', pressed: false, badge: 120 });
    expect(b.getAttribute('aria-pressed')).toBe('false');
    expect(b.querySelector('.count')?.textContent).toBe('99+');
  });
});
