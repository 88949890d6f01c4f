// The app shell: the toolbar's icon buttons, the thread list's toggle
// (Ctrl+B), Ctrl+Q in the window, and the command palette's actions.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { FakeTransport, thread } from './test/fakeTransport';

beforeEach(() => localStorage.clear());

function setup(f = new FakeTransport()) {
  f.threads = [thread('th_1', { title: 'Fix the build' }), thread('th_2', { title: 'Docs' })];
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

describe('App shell', () => {
  it('has icon buttons that name their action and key in a tooltip', async () => {
    setup();
    await screen.findByText('Docs');
    const toolbar = document.querySelector('header.toolbar') as HTMLElement;
    const tips = Object.fromEntries(
      within(toolbar)
        .getAllByRole('button')
        .map((b) => [b.getAttribute('aria-label') ?? b.textContent?.trim(), b.getAttribute('title')]),
    );
    expect(tips['Settings']).toBe('Settings (Ctrl+,)');
    expect(tips['Search or run a command…']).toBe('Search and commands (Ctrl+K)');
    expect(tips['Keyboard shortcuts']).toBe('Keyboard shortcuts (?)');
    expect(tips['Thread list']).toBe('Hide the thread list (Ctrl+B)');
    expect(tips['New thread']).toBe('New thread (Alt+N)');
    // Every icon-only button has a name and a tooltip.
    for (const b of within(toolbar).getAllByRole('button')) {
      if (!b.textContent?.trim()) expect(b.getAttribute('aria-label') && b.getAttribute('title')).toBeTruthy();
    }
  });

  it('Ctrl+B hides and shows the thread list, and the toggle says which', async () => {
    setup();
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    const toggle = screen.getByRole('button', { name: 'Thread list' });
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    await fireEvent.keyDown(window, { key: 'b', code: 'KeyB', ctrlKey: true });
    expect((document.getElementById('thread-list') as HTMLElement).hidden).toBe(true);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await fireEvent.click(toggle);
    expect((document.getElementById('thread-list') as HTMLElement).hidden).toBe(false);
    expect(nav.isConnected).toBe(true);
  });

  it('the palette lists the app, the thread and the threads to switch to; Enter on a thread shows it', async () => {
    const { store } = setup();
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', ctrlKey: true });
    const box = await screen.findByRole('searchbox', { name: 'Search all threads' });
    const labels = () =>
      within(screen.getByRole('list', { name: 'Actions' }))
        .getAllByRole('button')
        .map((b) => `${b.querySelector('.group')?.textContent}: ${b.querySelector('.label')?.textContent}`);
    expect(labels()).toEqual(expect.arrayContaining(['App: New thread', 'App: Settings', 'Settings: Appearance (theme)', 'Go to thread: Docs']));
    expect(labels().some((l) => l.startsWith('Thread:'))).toBe(false); // no thread shown yet
    expect(labels()).not.toContain('App: Quit Switchboard'); // a browser
    await fireEvent.input(box, { target: { value: 'docs' } });
    expect(labels()).toEqual(['Go to thread: Docs']);
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_2'));
    // With a thread shown, its actions are there too.
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', ctrlKey: true });
    await screen.findByRole('searchbox', { name: 'Search all threads' });
    expect(labels()).toEqual(expect.arrayContaining(['Thread: Rename thread', 'Thread: Archive thread', 'Thread: Export as Markdown', 'Thread: Delete thread…']));
  });

  it('in the window, Ctrl+Q quits and the palette offers Quit', async () => {
    const f = new FakeTransport();
    (f as unknown as { kind: string }).kind = 'wails';
    const quit = vi.fn();
    Object.assign(f, { quit });
    setup(f);
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'q', code: 'KeyQ', ctrlKey: true });
    expect(quit).toHaveBeenCalledTimes(1);
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', ctrlKey: true });
    const box = await screen.findByRole('searchbox', { name: 'Search all threads' });
    await fireEvent.input(box, { target: { value: 'quit' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(quit).toHaveBeenCalledTimes(2));
  });
});
