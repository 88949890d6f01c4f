import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import type { Agent, FolderList } from '../lib/types';
import type { HostsApi } from '../lib/hosts';

// New thread's extra folders (issue 32, ADR 0051): the folder's configured
// ones come pre-filled and marked, the user may remove them (the hub is
// then told "none", not left to apply them); a host's thread gets extra
// folders too, picked among the host's folders and never checked against
// this machine's disk.

const agent: Agent = { id: 'mine', name: 'Mine', status: 'available', command: 'mine', capabilities: { sessionCapabilities: { additionalDirectories: {} } } };

function dialog(gitFolder = vi.fn(async (p: string) => ({ git: false, additionalDirectories: p === '/work/app' ? ['/work/shared'] : [] }))) {
  const oncreate = vi.fn();
  render(NewThreadDialog, { agents: [agent], cwd: '/work/app', gitFolder, oncreate, onclose: () => {} });
  return { oncreate, gitFolder };
}

const shownFolders = () =>
  within(screen.getByRole('list', { name: 'Extra folders' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());

describe('New thread: the folder’s configured extra folders', () => {
  it('pre-fills them, marked, and creates the thread with them', async () => {
    const { oncreate } = dialog();
    await screen.findByRole('list', { name: 'Extra folders' });
    expect(shownFolders()).toEqual(['/work/shared from settings']);
    expect(screen.getByRole('button', { name: 'Also give access to… (1)' }).getAttribute('aria-expanded')).toBe('true');
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('mine', '/work/app', '', undefined, undefined, ['/work/shared']);
  });

  it('sends an empty list once the user removed them, and swaps them when the folder changes', async () => {
    const { oncreate } = dialog();
    await screen.findByRole('list', { name: 'Extra folders' });
    const input = screen.getByRole('textbox', { name: 'Another folder the agent may use' });
    await fireEvent.input(input, { target: { value: '/work/mine' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    // Another folder with no settings: its pre-filled folder goes, the user's stays.
    await fireEvent.input(screen.getByRole('textbox', { name: /^Folder/ }), { target: { value: '/work/other' } });
    await vi.waitFor(() => expect(shownFolders()).toEqual(['/work/mine']));
    await fireEvent.input(screen.getByRole('textbox', { name: /^Folder/ }), { target: { value: '/work/app' } });
    await vi.waitFor(() => expect(shownFolders()).toEqual(['/work/mine', '/work/shared from settings']));
    await fireEvent.click(screen.getByRole('button', { name: 'Remove /work/shared' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Remove /work/mine' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('mine', '/work/app', '', undefined, undefined, []);
  });
});

describe('New thread on a host: extra folders', () => {
  it('picks them among the host’s folders, checks only the path’s form, and sends them with the host', async () => {
    const tree: Record<string, FolderList> = {
      '': { path: '/home/dev', parent: '/home', folders: [{ name: 'lib', path: '/home/dev/lib' }] },
      '/home/dev/lib': { path: '/home/dev/lib', parent: '/home/dev', folders: [] },
    };
    const hostsApi: HostsApi = {
      list: async () => ['box'],
      agents: vi.fn(async () => [{ ...agent, id: 'box-agent', name: 'Box agent' }]),
      folders: vi.fn(async (_h: string, p: string) => tree[p] ?? { path: p, folders: [] }),
    };
    const chooseFolder = vi.fn(async () => '/local/only');
    const gitFolder = vi.fn(async () => ({ git: false }));
    const oncreate = vi.fn();
    render(NewThreadDialog, { agents: [agent], hosts: ['box'], hostsApi, chooseFolder, gitFolder, oncreate, onclose: () => {} });
    await fireEvent.click(within(screen.getByRole('group', { name: 'Runs on' })).getByRole('radio', { name: 'box' }));
    await screen.findByRole('radio', { name: /Box agent/ });
    await fireEvent.input(screen.getByRole('textbox', { name: 'Folder on box' }), { target: { value: '/home/dev/app' } });
    await fireEvent.click(screen.getByRole('button', { name: /^Also give access to…/ }));
    screen.getByText(/Folders on box\. Box agent may read and change files there/);
    expect(screen.queryByRole('button', { name: 'Choose…' })).toBeNull();
    // A path that does not exist here is fine: the host checks it.
    const input = screen.getByRole('textbox', { name: 'Another folder the agent may use' });
    await fireEvent.input(input, { target: { value: '/srv/data-on-box' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    const extra = screen.getByRole('button', { name: 'Browse…', expanded: false });
    await fireEvent.click(extra);
    const pickers = await screen.findAllByRole('group', { name: 'Folders on box' });
    const picker = pickers[pickers.length - 1];
    await fireEvent.click(await within(picker).findByRole('button', { name: 'lib' }));
    await within(picker).findByText('No folders in here.');
    await fireEvent.click(within(picker).getByRole('button', { name: 'Use this folder' }));
    expect(shownFolders()).toEqual(['/srv/data-on-box', '/home/dev/lib']);
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('box-agent', '/home/dev/app', '', undefined, 'box', ['/srv/data-on-box', '/home/dev/lib']);
    expect(chooseFolder).not.toHaveBeenCalled();
    expect(gitFolder).not.toHaveBeenCalled();
  });
});
