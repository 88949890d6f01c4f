import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import { HubError, WailsTransport, type WailsBindings } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';
import { FakeInstaller } from '../test/fakeInstaller.svelte';
import type { Agent } from '../lib/types';

const agents = new FakeTransport().agents;

describe('NewThreadDialog folders', () => {
  it('offers recent folders; picking one fills the path field', async () => {
    const oncreate = vi.fn();
    render(NewThreadDialog, { agents, recent: ['/home/me/src/app', '/home/me/src/site'], oncreate, onclose: () => {} });
    const dialog = screen.getByRole('dialog', { name: 'New thread' });
    const recent = within(dialog).getByRole('list', { name: 'Recent folders' });
    await fireEvent.click(within(recent).getByRole('button', { name: '/home/me/src/site' }));
    const folder = within(dialog).getByRole('textbox', { name: 'Folder' }) as HTMLInputElement;
    expect(folder.value).toBe('/home/me/src/site');
    expect(within(recent).getByRole('button', { name: '/home/me/src/site' }).getAttribute('aria-pressed')).toBe('true');
    // In a browser there is no folder dialog: only the validated path field.
    expect(within(dialog).queryByRole('button', { name: 'Choose a folder…' })).toBeNull();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Create thread' }));
    expect(oncreate).toHaveBeenCalledWith('sdk', '/home/me/src/site', '');
  });

  it('shows the hub’s code and message for a missing folder', async () => {
    const oncreate = vi.fn(async () => {
      throw new HubError('INVALID_ARGUMENT', 'cwd /nowhere is not an existing folder');
    });
    render(NewThreadDialog, { agents, cwd: '/nowhere', oncreate, onclose: () => {} });
    await fireEvent.click(screen.getByRole('button', { name: 'Create thread' }));
    const alert = await screen.findByRole('alert');
    // In words, once; the hub's code and message behind Details.
    expect(alert.querySelector('.title')?.textContent).toBe('The folder /nowhere does not exist.');
    expect(alert.querySelector('pre')?.textContent).toBe('INVALID_ARGUMENT: cwd /nowhere is not an existing folder');
  });

  it('in the window, Choose… opens the native dialog; a cancel changes nothing', async () => {
    const answers = ['/home/me/picked', ''];
    const chooseFolder = vi.fn(async () => answers.shift() ?? '');
    render(NewThreadDialog, { agents, cwd: '/home/me/src/app', chooseFolder, oncreate: () => {}, onclose: () => {} });
    const folder = screen.getByRole('textbox', { name: 'Folder' }) as HTMLInputElement;
    const choose = screen.getByRole('button', { name: 'Choose a folder…' });
    await fireEvent.click(choose);
    await vi.waitFor(() => expect(folder.value).toBe('/home/me/picked'));
    expect(chooseFolder).toHaveBeenCalledWith('Folder for the new thread');
    await fireEvent.click(choose);
    await vi.waitFor(() => expect(chooseFolder).toHaveBeenCalledTimes(2));
    expect(folder.value).toBe('/home/me/picked');
  });
});

describe('NewThreadDialog agents', () => {
  const claude: Agent = {
    id: 'claude',
    name: 'Claude Code',
    status: 'unavailable',
    command: 'claude-agent-acp',
    reason: 'claude-agent-acp not found on PATH; install it with: npm install -g @agentclientprotocol/claude-agent-acp',
    install: 'npm install -g @agentclientprotocol/claude-agent-acp',
    npm: { package: '@agentclientprotocol/claude-agent-acp', version: '0.100.0' },
  };

  it('lists installed agents first, the rest under "Install more…" with Install in place, never a command', async () => {
    const inst = new FakeInstaller();
    const { rerender } = render(NewThreadDialog, {
      agents: [claude, ...agents],
      cwd: '/home/me/src/app',
      oncreate: vi.fn(),
      onclose: () => {},
      installer: inst,
    });
    const dialog = screen.getByRole('dialog', { name: 'New thread' });
    const radios = within(dialog).getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['sdk']);
    expect(radios[0].checked).toBe(true);
    const more = within(dialog).getByText('Install more…').closest('details')!;
    expect(more.open).toBe(false); // an agent is installed: the rest wait behind it
    const items = within(more).getAllByRole('listitem');
    expect(items.map((i) => i.querySelector('.name')?.textContent)).toEqual(['Claude Code', 'Gone agent']);
    expect(within(items[1]).getByText('Not on this computer, and Switchboard cannot install it.')).toBeTruthy();
    expect(dialog.textContent).not.toMatch(/npm install|unavailable/);

    await fireEvent.click(within(items[0]).getByRole('button', { name: 'Install Claude Code' }));
    expect(inst.calls).toEqual(['install claude']);
    inst.event({ agent: 'claude', phase: 'done', fraction: 1, version: '0.100.0' });
    await rerender({ agents: [{ ...claude, status: 'available', reason: undefined, installed: { version: '0.100.0', path: '/d/x' } }, ...agents] });
    // Installed: among the agents to choose, in name order.
    expect((within(dialog).getAllByRole('radio') as HTMLInputElement[]).map((r) => r.value)).toEqual(['claude', 'sdk']);
  });

  it('opens "Install more…" at once when nothing is installed, and starts with the agent asked for', () => {
    render(NewThreadDialog, { agents: [claude], oncreate: vi.fn(), onclose: () => {}, installer: new FakeInstaller() });
    expect(screen.getByText('No agent is installed yet: install one below.')).toBeTruthy();
    expect(screen.getByText('Install more…').closest('details')?.open).toBe(true);
    expect((screen.getByRole('button', { name: 'Create thread' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('preselects the agent the first-run page started it with', () => {
    const two: Agent[] = [...agents, { id: 'zed', name: 'Zed agent', status: 'available', command: 'z' }];
    render(NewThreadDialog, { agents: two, agent: 'zed', oncreate: vi.fn(), onclose: () => {} });
    expect((screen.getByRole('radio', { name: /Zed agent/ }) as HTMLInputElement).checked).toBe(true);
  });
});

describe('WailsTransport.chooseFolder', () => {
  const runtime = { EventsOn: () => () => {} };
  it('calls the ChooseFolder binding and maps its error; absent without the binding', async () => {
    const calls: string[] = [];
    const bindings = {
      ChooseFolder: (title: string) => {
        calls.push(title);
        return title === 'bad' ? Promise.reject('{"code":"INTERNAL","message":"no dialog"}') : Promise.resolve('/picked');
      },
    } as unknown as WailsBindings;
    const t = new WailsTransport(bindings, runtime);
    expect(await t.chooseFolder!('Pick')).toBe('/picked');
    await expect(t.chooseFolder!('bad')).rejects.toMatchObject({ code: 'INTERNAL', message: 'no dialog' });
    expect(calls).toEqual(['Pick', 'bad']);
    expect(new WailsTransport({} as WailsBindings, runtime).chooseFolder).toBeUndefined();
  });
});
