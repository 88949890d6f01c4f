import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import PermissionCard from './PermissionCard.svelte';
import { permission } from '../test/fakeTransport';
import type { PermissionRequest } from '../lib/types';

// The card leads with the hub's description of what an approval allows;
// the agent's title is shown only as its words.
describe('PermissionCard with the hub’s request', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const request: PermissionRequest = {
    kind: 'execute',
    title: 'npm test',
    command: 'touch X',
    argv: ['touch', 'X Y'],
    cwd: '/home/me/src/app',
    env: [{ name: 'PATH', value: '/tmp/evil:/usr/bin' }, { name: 'API_KEY', hidden: true }],
    flags: ['env_changes_program', 'title_differs'],
  };

  it('shows the argv, folder, environment and warnings, and the title as the agent’s words', () => {
    const toolCall = { toolCallId: 't1', title: 'npm test', kind: 'execute', rawInput: { command: 'npm test' } };
    render(PermissionCard, { permission: permission('pe_1', { kind: 'agent', request, toolCall }), ondecide: vi.fn() });
    const card = screen.getByRole('region', { name: "Permission request: touch 'X Y'" });
    expect(within(card).getByText('Agent request: run a command', { selector: 'strong' })).toBeTruthy();
    const cmd = within(card).getByRole('group', { name: 'Command' });
    expect(cmd.textContent).toBe("touch 'X Y'");
    expect([...cmd.querySelectorAll('.arg')].map((a) => a.textContent)).toEqual(['touch', "'X Y'"]);
    expect(within(card).getByText('/home/me/src/app')).toBeTruthy();
    const env = within(card).getByRole('list', { name: 'Environment set by the agent' });
    const items = [...env.querySelectorAll('li')];
    expect(items[0].textContent?.trim()).toBe('PATH=/tmp/evil:/usr/bin');
    expect(items[0].classList.contains('program')).toBe(true);
    expect(items[1].textContent?.replace(/\s+/g, ' ').trim()).toBe('API_KEY (value not shown)');
    const warnings = within(card).getByRole('list', { name: 'Warnings' });
    expect(warnings.textContent).toContain('Sets variables that change which program runs');
    expect(warnings.textContent).toContain("The agent's title is not the command that runs");
    expect(within(card).getByText('npm test', { selector: 'q' }).closest('p')?.textContent).toBe('The agent says: npm test');
    // "npm test" appears only as the agent's words.
    expect(within(card).getAllByText(/npm test/)).toHaveLength(1);
  });

  it('has no axe violations', async () => {
    vi.useRealTimers();
    render(PermissionCard, { permission: permission('pe_1', { kind: 'terminal', request: { ...request, paths: ['/a', '/b'] } }), ondecide: vi.fn() });
    const r = await axe.run(screen.getByRole('region'), { rules: { 'color-contrast': { enabled: false } } });
    expect(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' ')}`)).toEqual([]);
  });

  it('lists the paths of a file request', () => {
    render(PermissionCard, {
      permission: permission('pe_1', {
        kind: 'file',
        request: { kind: 'read', title: 'Read', paths: ['/etc/passwd'], flags: ['outside_folder'] },
      }),
      ondecide: vi.fn(),
    });
    expect(screen.getByText('Read a file outside the folder', { selector: 'strong' })).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Paths' })).getByText('/etc/passwd')).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Warnings' }).textContent).toContain("Reaches outside the thread's folder");
  });

  it('offers no "always" choice for git’s own settings', () => {
    const options = [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'always', name: 'Always', kind: 'allow_always' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ];
    render(PermissionCard, {
      permission: permission('pe_1', {
        kind: 'git',
        options,
        request: { kind: 'edit', paths: ['/home/me/src/app/.git/config'], flags: ['git_settings'] },
      }),
      ondecide: vi.fn(),
      onremember: vi.fn(),
    });
    expect(screen.getByText("Change git's own settings", { selector: 'strong' })).toBeTruthy();
    const answer = screen.getByRole('group', { name: 'Answer' });
    expect(within(answer).getAllByRole('button').map((b) => b.textContent)).toEqual(['Allow once', 'Deny']);
    expect(screen.queryByRole('button', { name: /Always/ })).toBeNull();
  });
});

describe('PermissionCard: an edit on a card of its own', () => {
  it('shows the diff of the edit it asks about, and not when embedded in its tool call card (which shows it)', () => {
    const toolCall = {
      toolCallId: 'e1',
      title: 'Edit a.txt',
      kind: 'edit',
      content: [{ type: 'diff', path: '/home/me/src/app/a.txt', oldText: 'old\n', newText: 'new\n' }],
    };
    const p = permission('pe_1', { kind: 'agent', toolCall, request: { kind: 'edit', paths: ['/home/me/src/app/a.txt'] } });
    const { unmount } = render(PermissionCard, { permission: p, ondecide: vi.fn() });
    const diff = screen.getByRole('group', { name: 'Diff of /home/me/src/app/a.txt' });
    expect(diff.querySelector('.add')?.textContent).toContain('+new');
    expect(diff.querySelector('.del')?.textContent).toContain('-old');
    unmount();
    render(PermissionCard, { permission: p, ondecide: vi.fn(), embedded: true });
    expect(screen.queryByRole('group', { name: /^Diff of/ })).toBeNull();
  });
});
