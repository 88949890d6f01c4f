import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import PermissionCard from './PermissionCard.svelte';
import { permission } from '../test/fakeTransport';
import type { RememberedRule } from '../lib/types';

const rule: RememberedRule = {
  id: 'ru_1',
  scope: 'folder',
  cwd: '/home/me/src/app',
  agent: 'sdk',
  kind: 'execute',
  command: 'rm -rf build',
  decision: 'allow',
  createdAt: '2026-11-21T07:00:00Z',
  createdBy: 'browser',
  permissionId: 'pe_1',
};

describe('PermissionCard: Always here', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('remembers allow or deny for the scope picked, from the keyboard, inert for 500 ms like the options', async () => {
    const onremember = vi.fn();
    render(PermissionCard, {
      permission: permission('pe_1'),
      ondecide: vi.fn(),
      onremember,
      where: { thread: 'Fix the build', folder: '/home/me/src/app', agent: 'SDK agent' },
    });
    const toggle = screen.getByRole('button', { name: 'Always here…' }) as HTMLButtonElement;
    expect(toggle.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(toggle.disabled).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    toggle.focus();
    await fireEvent.click(toggle); // Enter on a focused button clicks it
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const group = screen.getByRole('group', { name: 'Remember this answer for' });
    expect(within(group).getAllByRole('radio').map((r) => r.parentElement?.textContent?.trim())).toEqual([
      'this thread (Fix the build)',
      'this folder (/home/me/src/app)',
      'this agent (SDK agent)',
    ]);
    expect((within(group).getByRole('radio', { name: /this thread/ }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(within(group).getByRole('radio', { name: /this folder/ }));
    await fireEvent.click(within(group).getByRole('button', { name: 'Always deny in this folder' }));
    expect(onremember).toHaveBeenCalledWith('declined', 'folder');
    await fireEvent.click(within(group).getByRole('radio', { name: /this agent/ }));
    await fireEvent.click(within(group).getByRole('button', { name: 'Always allow in this agent' }));
    expect(onremember).toHaveBeenLastCalledWith('approved', 'agent');
  });

  it('offers allow only with an allow_once option, deny only with a reject_once one, nothing without onremember', async () => {
    const only = permission('pe_1', { options: [{ optionId: 'r', name: 'Reject', kind: 'reject_once' }] });
    const { unmount } = render(PermissionCard, { permission: only, ondecide: vi.fn(), onremember: vi.fn(), armDelay: 0 });
    await vi.advanceTimersByTimeAsync(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Always here…' }));
    expect(screen.queryByRole('button', { name: /Always allow/ })).toBeNull();
    expect(screen.getByRole('button', { name: /Always deny/ })).toBeTruthy();
    unmount();
    render(PermissionCard, { permission: permission('pe_2'), ondecide: vi.fn() });
    expect(screen.queryByRole('button', { name: 'Always here…' })).toBeNull();
  });

  it('says what was remembered and which config rule decides such requests first', () => {
    const decided = permission('pe_1', { status: 'approved', decidedBy: 'browser', optionId: 'allow' });
    const { unmount } = render(PermissionCard, { permission: decided, ondecide: vi.fn(), remembered: { rule } });
    expect(screen.getByText(/Remembered:/).textContent).toBe(
      'Remembered: Always allow execute “rm -rf build” in folder /home/me/src/app.',
    );
    unmount();
    render(PermissionCard, { permission: decided, ondecide: vi.fn(), remembered: { rule, shadowedBy: 'reads-in-project' } });
    const note = screen.getByText(/Remembered:/);
    expect(note.textContent?.replace(/\s+/g, ' ')).toBe(
      'Remembered: Always allow execute “rm -rf build” in folder /home/me/src/app. The config rule reads-in-project decides such requests first.',
    );
    expect(within(note).getByText('reads-in-project').tagName).toBe('STRONG');
  });

  it('marks an escalated request', () => {
    render(PermissionCard, { permission: permission('pe_1', { escalatedAt: '2026-11-21T06:07:00Z' }), ondecide: vi.fn() });
    expect(screen.getByText('escalated').classList.contains('escalated')).toBe(true);
  });
});
