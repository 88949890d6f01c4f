import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ThreadHeader from './ThreadHeader.svelte';
import { HubError } from '../lib/transport';
import { thread } from '../test/fakeTransport';
import { threadMenuButton, threadMenuItem } from '../test/menu';

function setup(over: Partial<Parameters<typeof thread>[1]> = {}, compacting = false) {
  const calls = { rename: [] as string[], compact: 0, del: 0 };
  const props = {
    thread: thread('th_1', { title: 'Fix the build', ...over }),
    compacting,
    onrename: vi.fn(async (t: string) => void calls.rename.push(t)),
    oncompact: vi.fn(async () => void calls.compact++),
    ondelete: vi.fn(async () => void calls.del++),
  };
  const r = render(ThreadHeader, props);
  return { ...r, props, calls };
}

const menuButton = threadMenuButton;
const item = threadMenuItem;

describe('ThreadHeader', () => {
  it('keeps its actions in one menu: ↓ opens it on the first item, arrows move and wrap, Escape closes it back to its button', async () => {
    setup();
    expect(screen.queryByRole('menu')).toBeNull();
    menuButton().focus();
    await fireEvent.keyDown(menuButton(), { key: 'ArrowDown' });
    const menu = await screen.findByRole('menu', { name: 'Thread actions' });
    expect(menuButton().getAttribute('aria-expanded')).toBe('true');
    const names = within(menu).getAllByRole('menuitem').map((b) => b.textContent?.trim());
    expect(names).toEqual(['Rename', 'Compact', 'Delete']);
    await vi.waitFor(() => expect(document.activeElement?.textContent).toBe('Rename'));
    await fireEvent.keyDown(menu, { key: 'ArrowUp' });
    expect(document.activeElement?.textContent).toBe('Delete'); // wraps
    await fireEvent.keyDown(menu, { key: 'ArrowDown' });
    expect(document.activeElement?.textContent).toBe('Rename');
    await fireEvent.keyDown(menu, { key: 'End' });
    expect(document.activeElement?.textContent).toBe('Delete');
    await fireEvent.keyDown(menu, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(menuButton());
    expect(menuButton().getAttribute('title')).toBe('Thread actions');
  });

  it('renames in place: Enter saves, Escape cancels, focus returns to the actions menu', async () => {
    const { props } = setup();
    await fireEvent.click(await item('Rename'));
    const input = screen.getByRole('textbox', { name: 'Thread title' }) as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    expect(input.value).toBe('Fix the build');

    await fireEvent.input(input, { target: { value: 'Nope' } });
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByRole('textbox', { name: 'Thread title' })).toBeNull();
    expect(props.onrename).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(document.activeElement).toBe(menuButton()));
    expect(screen.queryByRole('menu')).toBeNull(); // the item closed it

    await fireEvent.click(await item('Rename'));
    const again = screen.getByRole('textbox', { name: 'Thread title' });
    await fireEvent.input(again, { target: { value: '  Build fixed  ' } });
    await fireEvent.submit(again.closest('form')!); // what Enter does in a one-field form
    expect(props.onrename).toHaveBeenCalledWith('Build fixed');
    await vi.waitFor(() => expect(screen.queryByRole('textbox', { name: 'Thread title' })).toBeNull());
  });

  it('keeps editing when the hub refuses the title', async () => {
    const { props } = setup();
    props.onrename.mockImplementation(async () => {
      throw new HubError('INVALID_ARGUMENT', 'title must be 1 to 200 characters');
    });
    await fireEvent.click(await item('Rename'));
    const input = screen.getByRole('textbox', { name: 'Thread title' });
    await fireEvent.input(input, { target: { value: 'x'.repeat(10) } });
    await fireEvent.submit(input.closest('form')!);
    await vi.waitFor(() => expect(props.onrename).toHaveBeenCalled());
    expect(screen.getByRole('textbox', { name: 'Thread title' })).toBeTruthy();
  });

  it('deletes only after the confirmation; Escape or Keep it backs out', async () => {
    const { props } = setup();
    await fireEvent.click(await item('Delete'));
    const confirm = screen.getByRole('alertdialog', { name: 'Delete “Fix the build”?' });
    const keep = within(confirm).getByRole('button', { name: 'Keep it' });
    await vi.waitFor(() => expect(document.activeElement).toBe(keep));
    await fireEvent.keyDown(keep, { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(props.ondelete).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(document.activeElement).toBe(menuButton()));

    await fireEvent.click(await item('Delete'));
    await fireEvent.click(screen.getByRole('button', { name: 'Delete thread' }));
    expect(props.ondelete).toHaveBeenCalledTimes(1);
  });

  it('compacts, shows progress while it runs, and is off while a turn runs', async () => {
    const { props, rerender } = setup();
    await fireEvent.click(await item('Compact'));
    expect(props.oncompact).toHaveBeenCalledTimes(1);
    await rerender({ ...props, compacting: true });
    const busy = await item('Compacting…');
    expect(busy.disabled).toBe(true);
    expect(busy.getAttribute('aria-busy')).toBe('true');
    expect(screen.getByRole('status').textContent).toMatch(/summarising/);
    await rerender({ ...props, compacting: false, thread: { ...props.thread, status: 'running' } });
    expect((await item('Compact')).disabled).toBe(true);
  });

  it('shows the editor badge, with the editor’s name, for a thread from switchboard acp', () => {
    setup({ clientId: 'acp-zed' });
    const badge = screen.getByText('editor');
    expect(badge.textContent).toBe('editor: zed');
    expect(badge.getAttribute('title')).toMatch(/zed/);
  });

  it('has no editor badge for other clients', () => {
    setup({ clientId: 'browser-1' });
    expect(screen.queryByText('editor')).toBeNull();
  });
});
