import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import SettingsFolders from './SettingsFolders.svelte';
import type { Settings, SettingsPatch } from '../lib/types';

// Settings → Folders (issue 32, ADR 0051): folders.<glob>.additionalDirectories
// listed by pattern; each change saves that pattern's whole list at once.

function view(onsave = vi.fn(async (_p: SettingsPatch) => ({}) as Settings)) {
  render(SettingsFolders, {
    folders: [
      { glob: '~/work/**', additionalDirectories: ['~/shared', '/opt/lib'] },
      { glob: '/only/mcp', mcpServers: [{ name: 'm', type: 'stdio' } as never] },
    ],
    onsave,
  });
  return onsave;
}

describe('SettingsFolders', () => {
  it('lists the patterns with extra folders only, and removes one by saving the rest', async () => {
    const onsave = view();
    const card = screen.getByRole('group', { name: 'Extra folders for ~/work/**' });
    expect(within(card).getAllByRole('listitem').map((li) => li.textContent?.trim())).toEqual(['~/shared', '/opt/lib']);
    expect(screen.queryByRole('group', { name: /\/only\/mcp/ })).toBeNull();
    const remove = within(card).getByRole('button', { name: 'Remove ~/shared from ~/work/**' });
    expect(remove.getAttribute('title')).toBe('Remove ~/shared');
    await fireEvent.click(remove);
    expect(onsave).toHaveBeenCalledWith({ folders: { '~/work/**': { additionalDirectories: ['/opt/lib'] } } });
    await within(card).findByText('Saved');
  });

  it('adds a folder to a pattern; a relative one is refused before any save', async () => {
    const onsave = view();
    const card = screen.getByRole('group', { name: 'Extra folders for ~/work/**' });
    const input = within(card).getByRole('textbox', { name: 'Another extra folder for ~/work/**' });
    await fireEvent.input(input, { target: { value: 'relative/dir' } });
    await fireEvent.click(within(card).getByRole('button', { name: 'Add' }));
    expect((await within(card).findByRole('alert')).textContent).toContain('absolute path');
    expect(onsave).not.toHaveBeenCalled();
    await fireEvent.input(input, { target: { value: '/srv/data/' } });
    await fireEvent.click(within(card).getByRole('button', { name: 'Add' }));
    expect(onsave).toHaveBeenCalledWith({ folders: { '~/work/**': { additionalDirectories: ['~/shared', '/opt/lib', '/srv/data'] } } });
  });

  it('adds a new pattern with its first extra folder, and shows the hub’s refusal', async () => {
    const onsave = vi.fn().mockRejectedValueOnce(new Error('folders."~/x/[": bad pattern')).mockResolvedValue({});
    view(onsave);
    await fireEvent.input(screen.getByRole('textbox', { name: 'Threads in' }), { target: { value: '~/x/[' } });
    await fireEvent.input(screen.getByRole('textbox', { name: 'also get' }), { target: { value: '~/lib' } });
    await fireEvent.click(screen.getAllByRole('button', { name: 'Add' }).at(-1)!);
    expect((await screen.findByRole('alert')).textContent).toContain('bad pattern');
    await fireEvent.input(screen.getByRole('textbox', { name: 'Threads in' }), { target: { value: '~/x/**' } });
    await fireEvent.click(screen.getAllByRole('button', { name: 'Add' }).at(-1)!);
    expect(onsave).toHaveBeenLastCalledWith({ folders: { '~/x/**': { additionalDirectories: ['~/lib'] } } });
    await vi.waitFor(() => expect((screen.getByRole('textbox', { name: 'Threads in' }) as HTMLInputElement).value).toBe(''));
  });
});
