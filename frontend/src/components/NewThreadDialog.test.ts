import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import NewThreadDialog from './NewThreadDialog.svelte';
import { HubError, WailsTransport, type WailsBindings } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';

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
    expect((await screen.findByRole('alert')).textContent).toBe('cwd /nowhere is not an existing folder (INVALID_ARGUMENT)');
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
