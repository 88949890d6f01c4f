import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { HubError } from './lib/transport';
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

  it('opens New thread with Alt+N: installed agents to choose, the others under "Install more…" with why, cwd checked', async () => {
    const { f } = setup();
    await screen.findByText('Docs');
    // Ctrl+N is the browser's (a new window); the keymap takes it in the desktop window only.
    await fireEvent.keyDown(window, { key: 'n', code: 'KeyN', ctrlKey: true });
    expect(screen.queryByRole('dialog', { name: 'New thread' })).toBeNull();
    await fireEvent.keyDown(window, { key: 'n', code: 'KeyN', altKey: true });
    const dialog = await screen.findByRole('dialog', { name: 'New thread' });
    const radios = within(dialog).getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['sdk']);
    expect(within(within(dialog).getByRole('list', { name: 'Agents to install' })).getByText('Not on this computer, and Switchboard cannot install it.')).toBeTruthy();

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
    expect(conv.querySelector('[onerror]')).toBeNull();
    expect(conv.querySelector('img')).toBeNull(); // src=x is not a data: image: its alt text instead
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

  it('switches mode and model from the composer; a refusal shows the code and message', async () => {
    const { f } = setup();
    f.threads[0] = {
      ...f.threads[0],
      modes: { currentModeId: 'default', availableModes: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }] },
      configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fake-small', options: [{ value: 'fake-small', name: 'Small' }, { value: 'fake-large', name: 'Large' }] }],
    };
    await fireEvent.click(await screen.findByText('Fix the build'));
    const mode = (await screen.findByRole('combobox', { name: 'Mode' })) as HTMLSelectElement;
    await fireEvent.change(mode, { target: { value: 'plan' } });
    expect(f.calls.at(-1)).toEqual({ method: 'setMode', args: ['th_1', 'plan'] });
    await vi.waitFor(() => expect(mode.value).toBe('plan'));
    // The agent's own update arrives as an event.
    f.push(ev(1, 'config_options', { configOptions: [{ ...f.threads[0].configOptions![0], currentValue: 'fake-large' }] }, 'th_1', ''));
    const model = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    await vi.waitFor(() => expect(model.value).toBe('fake-large'));
    f.push(ev(2, 'mode_changed', { modeId: 'default' }, 'th_1', ''));
    await vi.waitFor(() => expect(mode.value).toBe('default'));

    f.setError = new HubError('INVALID_ARGUMENT', 'the agent refused the value');
    await fireEvent.change(model, { target: { value: 'fake-small' } });
    expect(await screen.findByText('The agent refused the value.')).toBeTruthy();
    await vi.waitFor(() => expect(model.value).toBe('fake-large'));
  });

  it('offers the slash commands the hub kept on the thread, then the ones the agent sends', async () => {
    const { f } = setup();
    f.threads[0] = { ...f.threads[0], availableCommands: [{ name: 'init', description: 'Write AGENTS.md' }] };
    await fireEvent.click(await screen.findByText('Fix the build'));
    const box = screen.getByRole('textbox', { name: 'Message' });
    const names = () => screen.getAllByRole('option').map((o) => o.querySelector('.name')?.textContent);
    await fireEvent.input(box, { target: { value: '/' } });
    await vi.waitFor(() => expect(names()).toEqual(['/init']));
    f.push(ev(1, 'available_commands', { commands: [{ name: 'review', description: 'Review the diff' }] }, 'th_1', ''));
    await fireEvent.input(box, { target: { value: '' } });
    await fireEvent.input(box, { target: { value: '/' } });
    await vi.waitFor(() => expect(names()).toEqual(['/review']));
  });

  it('says when the config file was refused, from the settings and live, until it is fixed', async () => {
    const f = new FakeTransport();
    f.settings = { ...f.settings, configError: 'line 2: unknown key permissons' };
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('The config file was not applied.');
    expect(banner.textContent).toContain('line 2: unknown key permissons');
    expect(banner.textContent).toContain(f.settings.configFile);
    const hubWide = (seq: number, message: string) =>
      store.apply({ seq, type: 'config_error', threadId: '', turnId: '', at: '2026-11-21T07:00:00Z', file: f.settings.configFile, message });
    hubWide(1, '');
    await vi.waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    hubWide(2, 'line 7: agents.x.command is required');
    expect((await screen.findByRole('alert')).textContent).toContain('line 7: agents.x.command is required');
  });

  it('shows the permission or turn a notification click asks for', async () => {
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    try {
      const { f, store } = setup();
      f.histories.set('th_2', [
        {
          id: 'tu_1', threadId: 'th_2', status: 'running', input: 'Clean up', output: '', startedAt: '',
          events: [ev(1, 'turn_started', { input: 'Clean up' }, 'th_2'), ev(2, 'permission_required', { permission: permission('pe_2', { threadId: 'th_2' }) }, 'th_2')],
        },
      ]);
      f.histories.set('th_1', [
        { id: 'tu_a', threadId: 'th_1', status: 'completed', input: 'First', output: '', startedAt: '', events: [] },
        { id: 'tu_b', threadId: 'th_1', status: 'completed', input: 'Second', output: '', startedAt: '', events: [] },
      ]);
      f.permissions = [permission('pe_1'), permission('pe_2', { threadId: 'th_2' })];
      await screen.findByText('Docs');
      f.navigate?.({ kind: 'permission', id: 'pe_2' });
      await screen.findByRole('heading', { name: 'Docs' });
      await vi.waitFor(() => expect(scrolled).toHaveLength(1));
      expect(scrolled[0].getAttribute('data-permission-id')).toBe('pe_2');
      expect(within(scrolled[0] as HTMLElement).getByRole('region', { name: 'Permission request: rm -rf build' })).toBeTruthy();
      expect(document.activeElement).toBe(scrolled[0]);
      expect(store.reveal).toBeNull();

      f.navigate?.({ kind: 'turn', id: 'tu_a', threadId: 'th_1' });
      await screen.findByRole('heading', { name: 'Fix the build' });
      await vi.waitFor(() => expect(scrolled).toHaveLength(2));
      expect(scrolled[1].getAttribute('data-turn-id')).toBe('tu_a');
      expect(scrolled[1].textContent).toContain('First');
    } finally {
      delete (Element.prototype as Partial<Element>).scrollIntoView;
    }
  });
});
