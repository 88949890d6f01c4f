import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/store.svelte';
import { FakeTransport, ev, permission, thread } from './test/fakeTransport';

function setup() {
  const f = new FakeTransport();
  f.threads = [
    thread('th_1', { title: 'Fix the build', cwd: '/home/me/src/app', updatedAt: '2026-11-21T07:00:00Z' }),
    thread('th_2', { title: 'Docs', cwd: '/home/me/src/site', updatedAt: '2026-11-21T08:00:00Z', status: 'running' }),
    thread('th_3', { title: 'Old one', cwd: '/home/me/src/app', updatedAt: '2026-11-21T06:00:00Z' }),
  ];
  f.permissions = [permission('pe_1')];
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

describe('App', () => {
  it('lists threads by folder, newest first, with status, and counts approvals', async () => {
    setup();
    const nav = await screen.findByRole('navigation', { name: 'Threads' });
    await within(nav).findByText('Docs');
    const folders = within(nav).getAllByRole('heading').map((h) => h.textContent);
    expect(folders).toEqual(['site', 'app']);
    const app = within(nav).getByRole('region', { name: 'Folder /home/me/src/app' });
    expect(within(app).getAllByRole('button').map((b) => b.querySelector('.title')?.textContent)).toEqual(['Fix the build', 'Old one']);
    expect(within(nav).getByText('running')).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Approvals: 1 pending' })).toBeTruthy();

    await fireEvent.input(within(nav).getByRole('searchbox', { name: 'Filter threads' }), { target: { value: 'old' } });
    expect(within(nav).queryByText('Docs')).toBeNull();
    expect(within(nav).getByText('Old one')).toBeTruthy();
  });

  it('opens New thread with Ctrl+N: available agents first, unavailable ones with their reason, cwd checked', async () => {
    const { f } = setup();
    await screen.findByText('Docs');
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true });
    const dialog = await screen.findByRole('dialog', { name: 'New thread' });
    const radios = within(dialog).getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['sdk', 'gone']);
    expect(radios[1].disabled).toBe(true);
    expect(within(dialog).getByText('unavailable: gone not found on PATH')).toBeTruthy();

    const folder = within(dialog).getByRole('textbox', { name: 'Folder' });
    await fireEvent.input(folder, { target: { value: 'relative/path' } });
    await fireEvent.blur(folder);
    expect(within(dialog).getByText('Give an absolute path.')).toBeTruthy();
    const create = within(dialog).getByRole('button', { name: 'Create thread' }) as HTMLButtonElement;
    expect(create.disabled).toBe(true);

    await fireEvent.input(folder, { target: { value: '/tmp/work' } });
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Title (optional)' }), { target: { value: 'Try' } });
    expect(create.disabled).toBe(false);
    await fireEvent.click(create);
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(f.calls.find((c) => c.method === 'createThread')?.args).toEqual([{ agent: 'sdk', cwd: '/tmp/work', title: 'Try' }]);
    expect(await screen.findByRole('heading', { name: 'Try' })).toBeTruthy();
  });

  it('shows a thread: streamed markdown (sanitized), tool call, plan, permission; sends from the composer', async () => {
    const { f } = setup();
    await fireEvent.click(await screen.findByText('Fix the build'));
    await screen.findByRole('heading', { name: 'Fix the build' });
    f.push(ev(1, 'turn_started', { input: 'Please fix' }));
    f.push(ev(2, 'message_delta', { text: 'Here is **bold** <img src=x onerror="alert(1)">' }));
    f.push(ev(3, 'message_delta', { text: '\n\n```\ncode\n```\n' }));
    f.push(ev(4, 'tool_call', { toolCall: { toolCallId: 'c1', title: 'Edit main.go', kind: 'edit', status: 'in_progress', content: [{ type: 'diff', path: '/a/main.go', oldText: 'a\nb\n', newText: 'a\nc\n' }] } }));
    f.push(ev(5, 'plan', { entries: [{ content: 'Edit', status: 'completed' }, { content: 'Test', status: 'pending' }] }));
    f.push(ev(6, 'permission_required', { permission: permission('pe_1') }));
    const conv = await screen.findByRole('list', { name: 'Conversation' });
    await within(conv).findByText('bold');
    expect(within(conv).getByText('bold').tagName).toBe('STRONG');
    expect(conv.querySelector('img')?.getAttribute('onerror')).toBeNull();
    expect(conv.querySelector('pre code')?.textContent).toBe('code\n');
    expect(within(conv).getByText('Edit main.go')).toBeTruthy();
    expect(within(conv).getByLabelText('Diff of /a/main.go').textContent).toContain('-b\n+c');
    expect((within(conv).getByRole('checkbox', { name: 'Edit (completed)' }) as HTMLInputElement).checked).toBe(true);
    expect(within(conv).getByRole('region', { name: 'Permission request: rm -rf build' })).toBeTruthy();

    // A turn runs: Stop cancels it.
    await fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(f.calls.at(-1)).toEqual({ method: 'cancelTurn', args: ['tu_1'] });
    f.push(ev(7, 'turn_completed', { turn: { status: 'cancelled' } }));
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull());

    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'Next' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(f.calls.find((c) => c.method === 'startTurn')?.args).toEqual(['th_1', { input: 'Next' }]);
  });
});
