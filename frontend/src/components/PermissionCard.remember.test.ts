import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tick } from 'svelte';
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

describe('PermissionCard: Always…', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('opens a menu of the hub scopes and the agent own always, from the keyboard; Escape closes it; inert for 500 ms', async () => {
    const onremember = vi.fn();
    const ondecide = vi.fn();
    render(PermissionCard, {
      permission: permission('pe_1', {
        kind: 'agent',
        request: { kind: 'execute', argv: ['rm', '-rf', 'build'], cwd: '/home/me/src/app' },
        options: [
          { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'always', name: 'Always allow rm', kind: 'allow_always' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      }),
      ondecide,
      onremember,
      where: { thread: 'Fix the build', folder: '/home/me/src/app', agent: 'SDK agent' },
    });
    const toggle = screen.getByRole('button', { name: 'Always…' }) as HTMLButtonElement;
    expect(toggle.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(toggle.disabled).toBe(false);
    expect(toggle.getAttribute('aria-haspopup')).toBe('menu');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    toggle.focus();
    await fireEvent.click(toggle); // Enter on a focused button clicks it
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const menu = screen.getByRole('menu', { name: 'Always…' });
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((m) => m.textContent?.replace(/, in the agent's words:/, '').trim())).toEqual([
      'Always allow in this thread',
      'Always allow in this folder',
      'Always allow for this agent',
      'Always deny in this thread',
      'Always deny in this folder',
      'Always deny for this agent',
      "Always allow (the agent's option) “Always allow rm”",
    ]);
    expect(items[1].title).toContain('/home/me/src/app');
    expect(items[6].title).toContain('exactly this command');
    await tick();
    expect(document.activeElement).toBe(items[0]);
    await fireEvent.keyDown(menu, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(items[1]);
    await fireEvent.keyDown(menu, { key: 'ArrowUp' });
    await fireEvent.keyDown(menu, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(items[6]);
    await fireEvent.keyDown(menu, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(toggle);

    await fireEvent.click(toggle);
    await fireEvent.click(screen.getByRole('menuitem', { name: 'Always deny in this folder' }));
    expect(onremember).toHaveBeenCalledWith('declined', 'folder');
    expect(screen.queryByRole('menu')).toBeNull();
    await fireEvent.click(toggle);
    await fireEvent.click(screen.getByRole('menuitem', { name: /the agent's option/ }));
    expect(ondecide).toHaveBeenCalledWith('always');
  });

  it('offers allow only with an allow_once option, deny only with a reject_once one, only the agent own without onremember', async () => {
    const only = permission('pe_1', { options: [{ optionId: 'r', name: 'Reject', kind: 'reject_once' }] });
    const { unmount } = render(PermissionCard, { permission: only, ondecide: vi.fn(), onremember: vi.fn(), armDelay: 0 });
    await vi.advanceTimersByTimeAsync(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Always…' }));
    expect(screen.queryByRole('menuitem', { name: /Always allow/ })).toBeNull();
    expect(screen.getAllByRole('menuitem', { name: /Always deny/ })).toHaveLength(3);
    unmount();
    const u2 = render(PermissionCard, { permission: permission('pe_2'), ondecide: vi.fn() });
    expect(screen.queryByRole('button', { name: 'Always…' })).toBeNull();
    u2.unmount();
    render(PermissionCard, {
      permission: permission('pe_3', { options: [{ optionId: 'a', name: 'Always', kind: 'allow_always' }] }),
      ondecide: vi.fn(),
      armDelay: 0,
    });
    await vi.advanceTimersByTimeAsync(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Always…' }));
    expect(screen.getAllByRole('menuitem').map((m) => m.textContent)).toEqual(["Always allow (the agent's option)"]);
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
