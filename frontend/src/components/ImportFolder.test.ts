import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { FakeTransport } from '../test/fakeTransport';

describe('import into a folder', () => {
  it('asks for a folder when the hub refuses the file’s, and imports into the one chosen', async () => {
    const f = new FakeTransport();
    f.importFolder = '/';
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    const input = (await screen.findByLabelText('Import a JSON lines export')) as HTMLInputElement;
    const file = new File(['{"schema":1,"thread":{"id":"th_x","cwd":"/"}}\n'], 'x.jsonl', { type: 'application/x-ndjson' });
    Object.defineProperty(input, 'files', { value: [file], configurable: true });
    await fireEvent.change(input);

    const form = await screen.findByRole('form', { name: 'Choose the folder for the import' });
    expect(form.textContent).toContain('/');
    expect(screen.queryByRole('alert')).toBeNull(); // asked, not reported as a failure
    const folder = within(form).getByRole('textbox', { name: 'Folder' }) as HTMLInputElement;
    expect(folder.value).toBe(''); // the user chooses; the file's folder is only shown
    await fireEvent.input(folder, { target: { value: '/home/me/src/app' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Choose the folder for the import' })).toBeNull());
    const imports = f.calls.filter((c) => c.method === 'importThreads');
    expect(imports.map((c) => c.args[1])).toEqual([undefined, '/home/me/src/app']);
  });
});
