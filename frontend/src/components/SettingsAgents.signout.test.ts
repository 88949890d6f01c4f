import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import SettingsAgents from './SettingsAgents.svelte';
import { HubError } from '../lib/transport';
import type { Agent } from '../lib/types';
import type { AgentAuthTransport } from '../lib/installer';

/** Settings → Agents → Sign out, and the row's capability card (ADR 0047). */

const signedIn: Agent = {
  id: 'mine',
  name: 'Mine',
  status: 'available',
  command: '/opt/mine',
  capabilities: { loadSession: true, promptCapabilities: { image: true }, auth: { logout: {} } },
  authMethods: [{ id: 'fake-login', name: 'Fake login' }],
};
const noLogout: Agent = { ...signedIn, id: 'plain', name: 'Plain', capabilities: { promptCapabilities: {} } };
const broken: Agent = { id: 'broken', name: 'Broken', status: 'available', command: '/bin/broken', probeError: { message: 'it exited with code 3 before answering.', stderr: 'no key' } };

function setup(signOut: (id: string) => Promise<void>) {
  const calls: string[] = [];
  const auth = {
    signOutAgent: async (id: string) => {
      calls.push(id);
      await signOut(id);
    },
    signInAgent: async () => ({}),
    watchAuth: () => () => {},
    authInput: async () => {},
    authResize: async () => {},
    closeAuth: async () => {},
  } satisfies AgentAuthTransport;
  render(SettingsAgents, { agents: [signedIn, noLogout, broken], configured: [], onsave: async () => {}, auth });
  return { calls, region: screen.getByRole('region', { name: 'Agents' }) };
}

describe('Settings → Agents → Sign out', () => {
  it('is offered only where the agent advertises logout, asks once, then signs out', async () => {
    const { calls, region } = setup(async () => {});
    expect(within(region).queryByRole('button', { name: 'Sign out of Plain…' })).toBeNull();
    await fireEvent.click(within(region).getByRole('button', { name: 'Sign out of Mine…' }));
    expect(calls).toEqual([]);
    screen.getByText('Sign out of Mine? Its threads will ask you to sign in again.');
    await fireEvent.click(within(region).getByRole('button', { name: 'Sign out' }));
    expect(calls).toEqual(['mine']);
    const done = await within(region).findByText('Signed out of Mine. Its threads ask you to sign in at their next message.');
    expect(done.getAttribute('role')).toBe('status');
  });

  it('Cancel signs nothing out', async () => {
    const { calls, region } = setup(async () => {});
    await fireEvent.click(within(region).getByRole('button', { name: 'Sign out of Mine…' }));
    await fireEvent.click(within(region).getByRole('button', { name: 'Cancel' }));
    expect(calls).toEqual([]);
    within(region).getByRole('button', { name: 'Sign out of Mine…' });
  });

  it("says the hub's refusal", async () => {
    const { region } = setup(async () => {
      throw new HubError('CONFLICT', 'Mine cannot sign out from Switchboard (it does not offer logout): sign out with its own command', {
        status: 409,
        details: { reason: 'LOGOUT_UNSUPPORTED' },
      });
    });
    await fireEvent.click(within(region).getByRole('button', { name: 'Sign out of Mine…' }));
    await fireEvent.click(within(region).getByRole('button', { name: 'Sign out' }));
    const alert = await within(region).findByRole('alert');
    expect(alert.textContent).toContain('does not offer logout');
    expect(within(region).queryByText(/Signed out of/)).toBeNull();
  });

  it('shows what each agent can do behind a disclosure, and why a probe failed', async () => {
    const { region } = setup(async () => {});
    const toggle = within(region).getByRole('button', { name: 'What it can do of Mine' });
    expect(within(region).queryByRole('list', { name: 'What Mine can do' })).toBeNull();
    within(region).getByText('Images · Reopens sessions');
    await fireEvent.click(toggle);
    within(region).getByRole('list', { name: 'What Mine can do' });
    // Open, the chips say it: the summary beside the toggle goes.
    expect(within(region).queryByText('Images · Reopens sessions')).toBeNull();
    within(region).getByText('Text only');
    // The failure is not hidden behind a toggle.
    expect(within(region).getByRole('note').textContent).toContain('could not ask Broken what it can do: it exited');
  });
});
