import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { FakeTransport, thread } from './test/fakeTransport';
import { threadMenuHas, threadMenuItem } from './test/menu';

function setup(window = false) {
  const f = new FakeTransport();
  if (window) {
    // The desktop window: its transport is the bindings', with Open in browser.
    (f as unknown as { kind: string }).kind = 'wails';
    Object.assign(f, {
      openInBrowser: vi.fn(async (id: string) => void f.calls.push({ method: 'openInBrowser', args: [id] })),
      saveExport: vi.fn(async (req: unknown, name: string) => {
        f.calls.push({ method: 'saveExport', args: [req, name] });
        return `/home/me/${name}`;
      }),
    });
  }
  f.threads = [
    thread('th_1', { title: 'Fix the build', updatedAt: '2026-11-21T07:00:00Z' }),
    thread('th_2', { title: 'Docs', updatedAt: '2026-11-21T08:00:00Z' }),
    thread('th_3', { title: 'Shelved', updatedAt: '2026-11-21T06:00:00Z', archived: true }),
  ];
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

describe('App, daily', () => {
  it('hides archived threads until asked, and archives from the header', async () => {
    const { f } = setup();
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await within(nav).findByText('Docs');
    expect(within(nav).queryByText('Shelved')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Show archived' }));
    await within(nav).findByText('Shelved');
    expect(within(nav).getByText('archived')).toBeTruthy(); // marked in the list
    expect(f.calls.some((c) => c.method === 'queryThreads' && c.args[0] === 'true')).toBe(true);
    await fireEvent.click(screen.getByRole('button', { name: /Hide archived/ }));

    await fireEvent.click(within(nav).getByText('Docs'));
    await screen.findByRole('heading', { name: 'Docs' });
    expect(location.hash).toBe('#/t/th_2');
    expect(await threadMenuHas('Open in browser')).toBe(false); // a browser
    await fireEvent.click(await threadMenuItem('Archive'));
    await vi.waitFor(() => expect(within(nav).queryByText('Docs')).toBeNull());
    expect(f.calls.find((c) => c.method === 'setArchived')?.args).toEqual(['th_2', true]);
    // Still shown, and it says so.
    expect(screen.getByRole('heading', { name: 'Docs' })).toBeTruthy();
    expect(await threadMenuItem('Unarchive')).toBeTruthy();
    expect(screen.getByText('archived', { selector: '.where .badge' })).toBeTruthy();
  });

  it('archives the threads idle for a number of days', async () => {
    const { f } = setup();
    await screen.findByText('Docs');
    await fireEvent.click(screen.getByRole('button', { name: 'Archive idle…' }));
    const days = screen.getByRole('spinbutton', { name: /Not used for/ });
    await fireEvent.input(days, { target: { value: '10' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Archive' }));
    await screen.findByText('Archived 0 threads.');
    const req = f.calls.find((c) => c.method === 'archiveThreads')?.args[0] as { idleBefore: string };
    const ago = (Date.now() - Date.parse(req.idleBefore)) / 86_400_000;
    expect(ago).toBeGreaterThan(9.99);
    expect(ago).toBeLessThan(10.01);
  });

  it('? lists the keys; Escape closes the topmost only; A does not type into the page', async () => {
    setup();
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'A', code: 'KeyA', ctrlKey: true, shiftKey: true });
    await screen.findByRole('region', { name: 'Pending approvals' });
    await fireEvent.keyDown(window, { key: '?', shiftKey: true });
    const help = await screen.findByRole('dialog', { name: 'Keyboard' });
    expect(within(help).getByText('Alt+1 … Alt+9')).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Keyboard' })).toBeNull();
    expect(screen.getByRole('region', { name: 'Pending approvals' })).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Pending approvals' })).toBeNull();
  });

  it("Ctrl+K opens Search (one dialog) and Escape closes it, not the Approvals beneath; ? lists the inbox's keys", async () => {
    setup();
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'A', code: 'KeyA', ctrlKey: true, shiftKey: true });
    await screen.findByRole('region', { name: 'Pending approvals' });
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', ctrlKey: true });
    await screen.findByRole('dialog', { name: 'Search all threads' });
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', metaKey: true });
    expect(screen.getAllByRole('dialog', { name: 'Search all threads' })).toHaveLength(1);
    await fireEvent.keyDown(screen.getByRole('searchbox', { name: 'Search all threads' }), { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Search all threads' })).toBeNull();
    expect(screen.getByRole('region', { name: 'Pending approvals' })).toBeTruthy();
    await fireEvent.keyDown(window, { key: '?', shiftKey: true });
    const help = await screen.findByRole('dialog', { name: 'Keyboard' });
    const inbox = within(help).getByRole('table', { name: 'In the Approvals list' });
    for (const k of ['↑ / ↓', 'Space', 'Enter', 'Delete', 'Escape']) expect(within(inbox).getByText(k)).toBeTruthy();
  });

  it('Escape over the Usage view closes the key list first, then the Usage view, then Approvals', async () => {
    setup();
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'A', code: 'KeyA', ctrlKey: true, shiftKey: true });
    await screen.findByRole('region', { name: 'Pending approvals' });
    await fireEvent.click(screen.getByRole('button', { name: 'Usage' }));
    await screen.findByRole('dialog', { name: 'Usage' });
    await fireEvent.keyDown(window, { key: '?', shiftKey: true });
    await screen.findByRole('dialog', { name: 'Keyboard' });
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Keyboard' })).toBeNull();
    expect(screen.getByRole('dialog', { name: 'Usage' })).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Usage' })).toBeNull();
    expect(screen.getByRole('region', { name: 'Pending approvals' })).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Pending approvals' })).toBeNull();
  });

  it('Alt+digit and Alt+arrows switch threads in list order; a link opens its thread', async () => {
    const { store } = setup();
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await within(nav).findByText('Docs');
    await fireEvent.keyDown(window, { key: '1', code: 'Digit1', altKey: true });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_2'));
    await fireEvent.keyDown(window, { key: 'ArrowDown', altKey: true });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_1'));
    await fireEvent.keyDown(window, { key: 'ArrowDown', altKey: true });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_2')); // wraps
    location.hash = '#/t/th_1';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    await vi.waitFor(() => expect(store.selectedId).toBe('th_1'));
  });

  it('in the window: Ctrl+digit switches threads and a thread opens in the browser', async () => {
    const { f, store } = setup(true);
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await within(nav).findByText('Docs');
    await fireEvent.keyDown(window, { key: '2', code: 'Digit2', ctrlKey: true });
    await vi.waitFor(() => expect(store.selectedId).toBe('th_1'));
    await fireEvent.click(await threadMenuItem('Open in browser'));
    await vi.waitFor(() => expect(f.calls.find((c) => c.method === 'openInBrowser')?.args).toEqual(['th_1']));
    // Export goes through the native Save dialog, not a download; here
    // from the command palette, as a user who types it: Ctrl+K, words, Enter.
    await fireEvent.keyDown(window, { key: 'k', code: 'KeyK', ctrlKey: true });
    const box = await screen.findByRole('searchbox', { name: 'Search all threads' });
    await fireEvent.input(box, { target: { value: 'export mark' } });
    const actions = screen.getByRole('list', { name: 'Actions' });
    expect(within(actions).getAllByRole('button').map((b) => b.querySelector('.label')?.textContent)).toEqual(['Export as Markdown']);
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(screen.queryByRole('dialog', { name: 'Search all threads' })).toBeNull());
    await vi.waitFor(() =>
      expect(f.calls.find((c) => c.method === 'saveExport')?.args).toEqual([{ threadId: 'th_1', format: 'md' }, 'switchboard-Fix_the_build.md']),
    );
    expect(f.calls.some((c) => c.method === 'exportThreads')).toBe(false);
  });

  it("in the window: the Thread menu acts on the thread shown, and the native title names it", async () => {
    const f = new FakeTransport();
    (f as unknown as { kind: string }).kind = 'wails';
    let menu: ((a: string) => void) | undefined;
    const titles: string[] = [];
    Object.assign(f, {
      openInBrowser: vi.fn(async (id: string) => void f.calls.push({ method: 'openInBrowser', args: [id] })),
      saveExport: vi.fn(async (req: unknown, name: string) => {
        f.calls.push({ method: 'saveExport', args: [req, name] });
        return `/home/me/${name}`;
      }),
      onMenu: (cb: (a: string) => void) => {
        menu = cb;
        return () => (menu = undefined);
      },
      setTitle: (t: string) => titles.push(t),
    });
    f.threads = [thread('th_1', { title: 'Fix the build' })];
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    await screen.findByRole('navigation', { name: 'Threads' });
    expect(titles.at(-1)).toBe('Switchboard');
    // No thread shown: the menu says so and does nothing.
    menu?.('export-md');
    await screen.findByText(/Open a thread first/);
    expect(f.calls.some((c) => c.method === 'saveExport')).toBe(false);
    await store.select('th_1');
    await vi.waitFor(() => expect(titles.at(-1)).toBe('Fix the build — Switchboard'));
    menu?.('export-jsonl');
    await vi.waitFor(() =>
      expect(f.calls.find((c) => c.method === 'saveExport')?.args).toEqual([{ threadId: 'th_1', format: 'jsonl' }, 'switchboard-Fix_the_build.jsonl']),
    );
    menu?.('open-browser');
    await vi.waitFor(() => expect(f.calls.find((c) => c.method === 'openInBrowser')?.args).toEqual(['th_1']));
    await fireEvent.keyDown(window, { key: '?' });
    await vi.waitFor(() => expect(titles.at(-1)).toBe('Keyboard shortcuts — Switchboard'));
  });
});
