import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { HubStore } from '../lib/hubstore.svelte';
import { HubError } from '../lib/transport';
import { FakeTransport } from '../test/fakeTransport';
import type { PermissionRule, SettingsPatch } from '../lib/types';

const reads: PermissionRule = { name: 'reads', kinds: ['read', 'search'], inside: 'folder', decision: 'allow' };
const noRm: PermissionRule = { name: 'no-rm', kinds: ['execute'], match: '^rm ', decision: 'deny' };

function setup(rules: PermissionRule[] = [reads, noRm]) {
  const f = new FakeTransport();
  f.settings.permissions.rules = structuredClone(rules);
  f.settings.permissions.escalateAfter = '2m';
  const store = new HubStore(f, (flush) => queueMicrotask(flush));
  render(App, { store });
  return { f, store };
}

async function open() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await within(dialog).findByText(/Saved to/);
  return dialog;
}

const patches = (f: FakeTransport) =>
  f.calls.filter((c) => c.method === 'updateSettings').map((c) => c.args[0] as SettingsPatch);
const names = (dialog: HTMLElement) =>
  within(within(dialog).getByRole('list', { name: 'Rules' })).getAllByRole('listitem').map((li) => li.querySelector('strong')?.textContent);

describe('Settings → Permissions: rules', () => {
  it('lists the config rules in order, says the file may be edited by hand, and adds one (the whole list replaced)', async () => {
    const { f } = setup();
    const dialog = await open();
    expect(names(dialog)).toEqual(['reads', 'no-rm']);
    expect(within(dialog).getByText(/read, search · inside the folder → Allow once/)).toBeTruthy();
    expect(within(dialog).getByText(/you may also edit by hand: changes there apply at once/)).toBeTruthy();

    await fireEvent.click(within(dialog).getByRole('button', { name: 'Add rule' }));
    const form = within(dialog).getByRole('form', { name: 'Rule (new)' });
    // Its own checks first: a name, unique.
    await fireEvent.click(within(form).getByRole('button', { name: 'Save rule' }));
    const name = within(form).getByRole('textbox', { name: 'Name' });
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByText(/Give the rule a name/)).toBeTruthy();
    await fireEvent.input(name, { target: { value: 'reads' } });
    expect(within(form).getByText(/“reads” is the name of another rule/)).toBeTruthy();
    expect(patches(f)).toEqual([]);

    await fireEvent.input(name, { target: { value: 'go-test' } });
    await fireEvent.input(within(form).getByRole('textbox', { name: 'Agents' }), { target: { value: 'claude, qwen' } });
    await fireEvent.input(within(form).getByRole('textbox', { name: 'Match' }), { target: { value: '^go test' } });
    const kinds = within(form).getByRole('group', { name: /Kinds/ });
    expect(within(kinds).getAllByRole('checkbox')).toHaveLength(10);
    await fireEvent.click(within(kinds).getByRole('checkbox', { name: 'execute' }));
    await fireEvent.change(within(form).getByRole('combobox', { name: 'Decision' }), { target: { value: 'allow' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save rule' }));
    await waitFor(() => expect(within(dialog).queryByRole('form', { name: 'Rule (new)' })).toBeNull());
    expect(patches(f)).toEqual([
      {
        permissions: {
          rules: [reads, noRm, { name: 'go-test', agents: ['claude', 'qwen'], kinds: ['execute'], match: '^go test', decision: 'allow' }],
        },
      },
    ]);
    expect(names(dialog)).toEqual(['reads', 'no-rm', 'go-test']);
    expect(within(dialog).getByText('Rule go-test saved.')).toBeTruthy();
  });

  it("shows the hub's refusal on the field it names and keeps what was typed", async () => {
    const { f } = setup();
    const dialog = await open();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Edit no-rm' }));
    const form = within(dialog).getByRole('form', { name: 'Rule no-rm' });
    const match = within(form).getByRole('textbox', { name: 'Match' }) as HTMLInputElement;
    expect(match.value).toBe('^rm ');
    await fireEvent.input(match, { target: { value: '^rm (' } });
    f.settingsError = new HubError(
      'INVALID_ARGUMENT',
      'config.yaml: line 9: permissions.rules[1] ("no-rm"): match: invalid regular expression: missing closing )',
    );
    await fireEvent.click(within(form).getByRole('button', { name: 'Save rule' }));
    await waitFor(() => expect(match.getAttribute('aria-invalid')).toBe('true'));
    const error = document.getElementById(match.getAttribute('aria-describedby') ?? '');
    expect(error?.textContent).toMatch(/match: invalid regular expression: missing closing \) \(INVALID_ARGUMENT\)/);
    expect(match.value).toBe('^rm (');
    expect(within(form).getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid')).toBe('false');
    // Fixed: saved, the list has the new expression.
    await fireEvent.input(match, { target: { value: '^rm -' } });
    expect(match.getAttribute('aria-invalid')).toBe('false');
    await fireEvent.click(within(form).getByRole('button', { name: 'Save rule' }));
    await waitFor(() => expect(within(dialog).queryByRole('form', { name: 'Rule no-rm' })).toBeNull());
    expect(patches(f).at(-1)?.permissions?.rules?.[1]).toEqual({ ...noRm, match: '^rm -' });
  });

  it('moves a rule up or down and removes one, each saved as the whole list', async () => {
    const { f } = setup();
    const dialog = await open();
    expect((within(dialog).getByRole('button', { name: 'Move reads up' }) as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Move reads down' }));
    await waitFor(() => expect(names(dialog)).toEqual(['no-rm', 'reads']));
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Remove no-rm' }));
    await waitFor(() => expect(names(dialog)).toEqual(['reads']));
    expect(patches(f).map((p) => p.permissions?.rules?.map((r) => r.name))).toEqual([['no-rm', 'reads'], ['reads']]);
    f.settingsError = new HubError('CONFLICT', 'the config file has an error; fix it first');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Remove reads' }));
    expect((await within(dialog).findByRole('alert')).textContent).toMatch(/fix it first \(CONFLICT\)/);
    expect(names(dialog)).toEqual(['reads']);
  });

  it('saves escalateAfter as it is committed, says at the field one not shorter than the timeout, and turns it off', async () => {
    const { f } = setup();
    const dialog = await open();
    const after = within(dialog).getByRole('spinbutton', { name: 'Escalate after' }) as HTMLInputElement;
    await waitFor(() => expect(after.value).toBe('2'));
    await fireEvent.input(after, { target: { value: '10' } });
    await fireEvent.change(after);
    const status = dialog.querySelector('#settings-escalate-status') as HTMLElement;
    expect(within(status).getByRole('alert').textContent).toBe('Give a time shorter than the timeout (10m).');
    expect(after.getAttribute('aria-invalid')).toBe('true');
    expect(patches(f)).toEqual([]);
    await fireEvent.input(after, { target: { value: '5' } });
    expect(within(status).queryByRole('alert')).toBeNull(); // typing again clears it
    await fireEvent.change(after);
    await waitFor(() => expect(patches(f)).toEqual([{ permissions: { escalateAfter: '5m' } }]));
    await within(status).findByText('Saved');
    await fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Escalate a request nobody answered' }));
    await waitFor(() => expect(patches(f).at(-1)).toEqual({ permissions: { escalateAfter: '' } }));
    expect(f.settings.permissions.escalateAfter).toBeUndefined();
    expect(after.disabled).toBe(true);
  });

  it('lists remembered decisions with scope, agent, kind, command, decision, when and by whom, and removes one', async () => {
    const f = new FakeTransport();
    f.threads = [{ ...(await f.createThread({ agent: 'sdk', cwd: '/w', title: 'Fix the build' })) }];
    f.rules = [
      {
        id: 'ru_1',
        scope: 'thread',
        threadId: f.threads[0].id,
        agent: 'sdk',
        kind: 'execute',
        command: 'go test ./...',
        decision: 'allow',
        createdAt: '2026-11-21T07:00:00Z',
        createdBy: 'window',
        permissionId: 'pe_1',
      },
      { id: 'ru_2', scope: 'folder', cwd: '/w', agent: 'sdk', kind: 'read', title: 'Read a.go', decision: 'deny', createdAt: '2026-11-21T07:01:00Z', createdBy: 'client:acp-zed', permissionId: 'pe_2' },
    ];
    const store = new HubStore(f, (flush) => queueMicrotask(flush));
    render(App, { store });
    const dialog = await open();
    const table = await within(dialog).findByRole('table', { name: 'Remembered decisions' });
    const cells = (i: number) => within(within(table).getAllByRole('row')[i]).getAllByRole('cell').map((c) => c.textContent?.trim());
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(cells(1).slice(0, 5)).toEqual(['thread Fix the build', 'sdk', 'execute', 'go test ./...', 'allow']);
    expect(cells(1)[5]).toMatch(/by you, in the window$/);
    expect(cells(2).slice(0, 5)).toEqual(['folder /w', 'sdk', 'read', 'Read a.go', 'deny']);
    expect(cells(2)[5]).toMatch(/by editor acp-zed$/);
    await fireEvent.click(within(table).getByRole('button', { name: 'Remove the remembered decision for go test ./...' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
    expect(f.calls.filter((c) => c.method === 'deleteRule').map((c) => c.args)).toEqual([['ru_1']]);
    expect(store.rules.map((r) => r.id)).toEqual(['ru_2']);
  });
});
