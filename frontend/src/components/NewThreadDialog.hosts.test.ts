import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import { FakeTransport } from '../test/fakeTransport';
import type { HostsApi } from '../lib/hosts';
import type { Agent, FolderList } from '../lib/types';
import { HubError } from '../lib/transport';

const agents = new FakeTransport().agents;
const boxAgent: Agent = { ...agents[0], id: 'gpu-agent', name: 'GPU agent', status: 'available' };

function fakeHosts(): HostsApi & { folders: ReturnType<typeof vi.fn> } {
  const tree: Record<string, FolderList> = {
    '': { path: '/home/dev', parent: '/home', folders: [{ name: 'src', path: '/home/dev/src' }] },
    '/home/dev/src': { path: '/home/dev/src', parent: '/home/dev', folders: [{ name: 'model', path: '/home/dev/src/model' }] },
  };
  return {
    list: async () => ['box'],
    agents: vi.fn(async () => [boxAgent]),
    folders: vi.fn(async (_h: string, p: string) => tree[p] ?? { path: p, folders: [] }),
  };
}

describe('NewThreadDialog on a host (issue 30)', () => {
  it('picks the host, then a folder on it through its folder picker, then one of its agents', async () => {
    const oncreate = vi.fn();
    const hostsApi = fakeHosts();
    render(NewThreadDialog, {
      agents,
      recent: ['/home/me/local-only'],
      hostRecent: { box: ['/home/dev/src/old'] },
      hosts: ['box'],
      hostsApi,
      oncreate,
      onclose: () => {},
    });
    const dialog = screen.getByRole('dialog', { name: 'New thread' });
    const runsOn = within(dialog).getByRole('group', { name: 'Runs on' });
    expect((within(runsOn).getByRole('radio', { name: 'This computer' }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(within(runsOn).getByRole('radio', { name: 'box' }));

    // That host's agents, not this computer's; its recent folders only.
    const agentsBox = await within(dialog).findByRole('radio', { name: /GPU agent/ });
    expect((agentsBox as HTMLInputElement).checked).toBe(true);
    expect(within(dialog).queryByRole('radio', { name: new RegExp(agents[0].name) })).toBeNull();
    expect(within(dialog).getByRole('list', { name: 'Recent folders on box' })).toBeTruthy();
    expect(within(dialog).queryByText('/home/me/local-only')).toBeNull();

    // The folder picker opens on the host's home; down one level, then use it.
    const picker = await within(dialog).findByRole('group', { name: 'Folders on box' });
    await fireEvent.click(await within(picker).findByRole('button', { name: 'src' }));
    await within(picker).findByRole('button', { name: 'model' });
    expect(hostsApi.folders).toHaveBeenLastCalledWith('box', '/home/dev/src');
    await fireEvent.click(within(picker).getByRole('button', { name: 'Use this folder' }));
    const folder = within(dialog).getByRole('textbox', { name: 'Folder on box' }) as HTMLInputElement;
    expect(folder.value).toBe('/home/dev/src');

    await fireEvent.click(within(dialog).getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('gpu-agent', '/home/dev/src', '', undefined, 'box');
  });

  it('says why when the host cannot be reached, and creates nothing', async () => {
    const hostsApi = fakeHosts();
    hostsApi.agents = vi.fn(async () => {
      throw Object.assign(new Error('host box is not connected'), { code: 'UPSTREAM_UNAVAILABLE' });
    });
    render(NewThreadDialog, { agents, hosts: ['box'], hostsApi, oncreate: () => {}, onclose: () => {} });
    await fireEvent.click(screen.getByRole('radio', { name: 'box' }));
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Create thread' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('disables Create thread with the reason while the host is down, and Retry reads its agents again', async () => {
    const down = new HubError('UPSTREAM_UNAVAILABLE', 'host gpu is not connected: its hub cannot be reached now', {
      status: 502,
      details: { reason: 'HOST_UNREACHABLE', host: 'gpu' },
    });
    const oncreate = vi.fn();
    const hostsApi = { ...fakeHosts(), agents: vi.fn<HostsApi['agents']>(async () => Promise.reject(down)) };
    render(NewThreadDialog, { agents, hosts: ['gpu'], hostsApi, oncreate, onclose: () => {} });
    const dialog = screen.getByRole('dialog', { name: 'New thread' });
    // This computer's agent was chosen: Create is enabled once a folder is given.
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Folder' }), { target: { value: '/home/dev/src' } });
    const create = within(dialog).getByRole('button', { name: 'Create thread' }) as HTMLButtonElement;
    expect(create.disabled).toBe(false);

    await fireEvent.click(within(within(dialog).getByRole('group', { name: 'Runs on' })).getByRole('radio', { name: 'gpu' }));
    await within(dialog).findByRole('alert');
    expect(create.disabled).toBe(true);
    // The reason is visible beside the button and is its description.
    const why = within(dialog).getByText('The agents on gpu cannot be read: gpu is not connected.');
    expect(create.getAttribute('aria-describedby')).toBe(why.id);
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Folder on gpu' }), { target: { value: '/srv/x' } });
    await fireEvent.click(create);
    expect(oncreate).not.toHaveBeenCalled();

    // The link is back: Retry reads gpu's agents again, and Create is offered.
    hostsApi.agents.mockResolvedValueOnce([boxAgent]);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Retry' }));
    await within(dialog).findByRole('radio', { name: /GPU agent/ });
    expect(hostsApi.agents).toHaveBeenCalledTimes(2);
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(within(dialog).queryByText(/cannot be read/)).toBeNull();
    expect(create.disabled).toBe(false);
    expect(create.hasAttribute('aria-describedby')).toBe(false);
  });

  it('never enables Create thread over a host with no agent, and says so', async () => {
    const hostsApi = { ...fakeHosts(), agents: vi.fn(async () => []) };
    render(NewThreadDialog, { agents, hosts: ['box'], hostsApi, oncreate: vi.fn(), onclose: () => {} });
    await fireEvent.click(screen.getByRole('radio', { name: 'box' }));
    await screen.findByText('No agent to start on box.');
    await fireEvent.input(screen.getByRole('textbox', { name: 'Folder on box' }), { target: { value: '/srv/x' } });
    expect((screen.getByRole('button', { name: 'Create thread' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers no host choice without hosts', () => {
    render(NewThreadDialog, { agents, oncreate: () => {}, onclose: () => {} });
    expect(screen.queryByRole('group', { name: 'Runs on' })).toBeNull();
  });

  it('says once that a host is not connected, with no folder picker to fail again', async () => {
    const down = new HubError('UPSTREAM_UNAVAILABLE', 'host gpu is not connected: its hub cannot be reached now', {
      status: 502,
      details: { reason: 'HOST_UNREACHABLE', host: 'gpu' },
    });
    const hostsApi = { ...fakeHosts(), agents: vi.fn(async () => Promise.reject(down)) };
    render(NewThreadDialog, { agents, hosts: ['gpu'], hostsApi, oncreate: vi.fn(), onclose: () => {} });
    const dialog = screen.getByRole('dialog', { name: 'New thread' });
    await fireEvent.click(within(within(dialog).getByRole('group', { name: 'Runs on' })).getByRole('radio', { name: 'gpu' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('gpu is not connected: Switchboard cannot reach it now.');
    expect(within(dialog).getAllByRole('alert')).toHaveLength(1);
    expect(within(dialog).queryByRole('group', { name: 'Folders on gpu' })).toBeNull();
    expect(within(dialog).queryByRole('radio', { name: new RegExp(agents[0].name) })).toBeNull();
  });
});
