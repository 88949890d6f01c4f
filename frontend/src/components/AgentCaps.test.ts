import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import AgentCaps from './AgentCaps.svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import type { Agent } from '../lib/types';
import { agentCaps, canSignOut } from '../lib/agentcaps';

/** The fake agent's initialize answer (acp/acptest) with auth and http MCP, plus an unstable key. */
const caps = {
  loadSession: true,
  promptCapabilities: { image: true, audio: false, embeddedContext: true },
  sessionCapabilities: { list: {}, close: {}, fork: {} },
  mcpCapabilities: { http: true, sse: false },
  auth: { logout: {} },
};
const agent: Agent = {
  id: 'mine',
  name: 'Mine',
  status: 'available',
  command: '/opt/mine',
  capabilities: caps,
  authMethods: [{ id: 'fake-login', name: 'Fake login' }],
};

describe('the capability card', () => {
  it('says what the agent can do and what it cannot, in words', () => {
    render(AgentCaps, { agent });
    const list = screen.getByRole('list', { name: 'What Mine can do' });
    const chip = (id: string) => list.querySelector(`[data-cap="${id}"]`) as HTMLElement;
    expect(chip('image').title).toBe('Mine takes images in a message.');
    expect(chip('image').classList.contains('off')).toBe(false);
    expect(chip('audio').classList.contains('off')).toBe(true);
    expect(chip('audio').textContent).toContain('(not supported)');
    expect(chip('resume').classList.contains('off')).toBe(true);
    expect(chip('list').title).toContain('import');
    expect(chip('mcpHttp').classList.contains('off')).toBe(false);
    expect(chip('mcpSse').classList.contains('off')).toBe(true);
    expect(chip('signIn').textContent).toContain('Sign-in: Fake login');
    expect(chip('logout').classList.contains('off')).toBe(false);
    // An unstable capability it advertises is shown, and said to be unstable.
    expect(chip('unstable-fork').textContent).toContain('(unstable)');
    expect(chip('unstable-fork').title).toContain('forking a session');
  });

  it('is compact in New thread: icons only, each with its words', () => {
    render(AgentCaps, { agent, compact: true });
    const items = within(screen.getByRole('list', { name: 'What Mine can do' })).getAllByRole('listitem');
    expect(items.map((i) => i.dataset.cap)).toEqual(['image', 'audio', 'loadSession', 'list', 'mcpHttp', 'signIn']);
    for (const i of items) {
      expect(i.title).not.toBe('');
      expect(i.querySelector('.visually-hidden')).not.toBeNull();
    }
  });

  it('says why a probe failed, with what the agent printed', () => {
    render(AgentCaps, { agent: { ...agent, capabilities: undefined, probeError: { message: 'it exited with code 3 before answering.', stderr: 'no API key' } } });
    expect(screen.getByRole('note').textContent).toContain('Switchboard could not ask Mine what it can do: it exited with code 3 before answering.');
    expect(screen.getByLabelText('What Mine printed').textContent).toBe('no API key');
  });

  it('says when nothing is known yet, and offers Sign out only with auth.logout', () => {
    render(AgentCaps, { agent: { ...agent, capabilities: undefined } });
    screen.getByText('What Mine can do shows once it has started.');
    expect(agentCaps({ ...agent, capabilities: undefined })).toBeUndefined();
    expect(canSignOut(agent)).toBe(true);
    expect(canSignOut({ capabilities: { auth: {} } })).toBe(false);
    expect(canSignOut({ capabilities: { auth: { logout: null } } })).toBe(false);
  });

  it('shows beside the chosen agent in the New thread dialog', async () => {
    const other: Agent = { id: 'plain', name: 'Plain', status: 'available', command: 'plain', capabilities: { promptCapabilities: {} } };
    render(NewThreadDialog, { agents: [agent, other], agent: 'mine', oncreate: () => {}, onclose: () => {} });
    const list = screen.getByRole('list', { name: 'What Mine can do' });
    expect((list.querySelector('[data-cap="image"]') as HTMLElement).title).toBe('Mine takes images in a message.');
    expect(screen.queryByRole('list', { name: 'What Plain can do' })).toBeNull();
    screen.getByRole('radio', { name: /Plain/ }).click();
    await screen.findByRole('list', { name: 'What Plain can do' });
    expect(screen.queryByRole('list', { name: 'What Mine can do' })).toBeNull();
  });
});

describe('New thread: Also give access to…', () => {
  it('adds extra folders, refuses a relative one, removes one, and creates the thread with them', async () => {
    const { fireEvent } = await import('@testing-library/svelte');
    const calls: unknown[][] = [];
    const plain: Agent = { id: 'plain', name: 'Plain', status: 'available', command: 'plain', capabilities: { sessionCapabilities: {} } };
    render(NewThreadDialog, { agents: [plain], oncreate: (...a: unknown[]) => void calls.push(a), onclose: () => {} });
    await fireEvent.input(screen.getByRole('textbox', { name: /^Folder/ }), { target: { value: '/work/app' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Also give access to…' }));
    const input = screen.getByRole('textbox', { name: 'Another folder the agent may use' });
    await fireEvent.input(input, { target: { value: 'relative/dir' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    screen.getByText('Give an absolute path.');
    for (const d of ['/work/lib/', '/work/docs']) {
      await fireEvent.input(input, { target: { value: d } });
      await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    }
    const list = screen.getByRole('list', { name: 'Extra folders' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent?.trim())).toEqual(['/work/lib', '/work/docs']);
    // Plain does not take them from ACP: the dialog says so.
    screen.getByText(/Plain is not told of them/);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove /work/docs' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(calls).toEqual([['plain', '/work/app', '', undefined, undefined, ['/work/lib']]]);
  });
});
