import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import type { Permission } from './types';
import { describePermission } from './permissionView';
import { normalizeRequest } from './shapes';
import PermissionRequestView from '../components/PermissionRequestView.svelte';

const perm = (subagent?: { sessionId: string; title?: string }): Permission => ({
  id: 'p1',
  threadId: 't1',
  turnId: 'u1',
  status: 'pending',
  kind: 'agent',
  toolCall: { toolCallId: 'c1', title: 'Run the tests', kind: 'execute' },
  request: { kind: 'execute', title: 'Run the tests', argv: ['go', 'test', './...'], ...(subagent ? { subagent } : {}) },
  options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
  deadline: '',
});

describe('a sub-agent’s permission (issue 32)', () => {
  it('names the sub-agent that asked, in the view and its plain lines', () => {
    const v = describePermission(perm({ sessionId: 's-sub-1', title: 'Explore the tests' }));
    expect(v.subagent).toBe('Explore the tests');
    expect(v.details[0]).toBe('Asked by sub-agent: Explore the tests');
    expect(describePermission(perm({ sessionId: 's-sub-2' })).subagent).toBe('s-sub-2');
    expect(describePermission(perm()).subagent).toBe('');
  });

  it('keeps the sub-agent through the shapes the window trusts, and drops a malformed one', () => {
    expect(normalizeRequest({ subagent: { sessionId: 's1', title: 'Explore' } })?.subagent).toEqual({ sessionId: 's1', title: 'Explore' });
    expect(normalizeRequest({ subagent: { title: 'no id' } })?.subagent).toBeUndefined();
    expect(normalizeRequest({ subagent: 'x' })?.subagent).toBeUndefined();
  });

  it('says on the card who asked', () => {
    const { container } = render(PermissionRequestView, { view: describePermission(perm({ sessionId: 's1', title: 'Explore the tests' })) });
    expect(container.querySelector('[data-subagent-asker]')!.textContent).toBe('Asked by the sub-agent Explore the tests');
    expect(screen.getByRole('group', { name: 'Command' }).textContent).toBe('go test ./...');
  });
});
