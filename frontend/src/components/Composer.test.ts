import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Composer from './Composer.svelte';

describe('Composer', () => {
  it('sends on Enter and clears', async () => {
    const onsend = vi.fn();
    render(Composer, { onsend, onstop: vi.fn() });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'Run the tests' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).toHaveBeenCalledWith({ input: 'Run the tests' });
    await vi.waitFor(() => expect(box.value).toBe(''));
  });

  it('keeps a draft per thread: switching threads never carries text over', async () => {
    let finish: () => void = () => {};
    const onsend = vi.fn(() => new Promise<void>((r) => (finish = r)));
    const { rerender } = render(Composer, { onsend, onstop: vi.fn(), draftKey: 'th_a' });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'for thread A' } });
    await rerender({ draftKey: 'th_b' });
    expect(box.value).toBe('');
    await fireEvent.input(box, { target: { value: 'for thread B' } });
    await rerender({ draftKey: 'th_a' });
    expect(box.value).toBe('for thread A');

    // Sent from A, then B shown before the hub answers: B's draft stays, A's is gone.
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).toHaveBeenCalledWith({ input: 'for thread A' });
    await rerender({ draftKey: 'th_b' });
    expect(box.value).toBe('for thread B');
    finish();
    await vi.waitFor(() => expect(onsend).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 0));
    expect(box.value).toBe('for thread B');
    await rerender({ draftKey: 'th_a' });
    expect(box.value).toBe('');
  });

  it('keeps Shift+Enter (a new line) and an IME composition out of sending', async () => {
    const onsend = vi.fn();
    render(Composer, { onsend, onstop: vi.fn() });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'line one' } });
    const shift = await fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(shift).toBe(true); // not prevented: the textarea adds the newline
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    expect(onsend).not.toHaveBeenCalled();
  });

  it('does not send blank text', async () => {
    const onsend = vi.fn();
    render(Composer, { onsend, onstop: vi.fn() });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: '   ' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true);
  });

  it('while a turn runs: Stop cancels, Enter does not send', async () => {
    const onsend = vi.fn();
    const onstop = vi.fn();
    render(Composer, { onsend, onstop, running: true });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'more' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onstop).toHaveBeenCalledOnce();
  });

  it('has no Stop button when idle', () => {
    render(Composer, { onsend: vi.fn(), onstop: vi.fn() });
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
  });

  const modes = {
    currentModeId: 'default',
    availableModes: [
      { id: 'default', name: 'Default' },
      { id: 'plan', name: 'Plan', description: 'Think first' },
    ],
  };
  const model = {
    id: 'model',
    name: 'Model',
    category: 'model',
    type: 'select',
    currentValue: 'fake-small',
    options: [
      { value: 'fake-small', name: 'Small' },
      { value: 'fake-large', name: 'Large' },
    ],
  };

  it('has no Mode or Model picker when the thread has neither', () => {
    render(Composer, { onsend: vi.fn(), onstop: vi.fn(), configOptions: [{ id: 'x', name: 'X', type: 'boolean' }] });
    expect(screen.queryByRole('combobox', { name: 'Mode' })).toBeNull();
    expect(screen.queryByRole('combobox', { name: 'Model' })).toBeNull();
  });

  it('picks a mode and a model', async () => {
    const onmode = vi.fn();
    const onconfig = vi.fn();
    render(Composer, { onsend: vi.fn(), onstop: vi.fn(), modes, configOptions: [{ id: 'effort', name: 'Effort', type: 'select', currentValue: 'low', options: [] }, model], onmode, onconfig });
    const mode = screen.getByRole('combobox', { name: 'Mode' }) as HTMLSelectElement;
    expect(mode.value).toBe('default');
    expect(Array.from(mode.options, (o) => o.text)).toEqual(['Default', 'Plan']);
    await fireEvent.change(mode, { target: { value: 'plan' } });
    expect(onmode).toHaveBeenCalledWith('plan');
    const pick = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    expect(pick.value).toBe('fake-small');
    await fireEvent.change(pick, { target: { value: 'fake-large' } });
    expect(onconfig).toHaveBeenCalledWith('model', 'fake-large');
  });

  it('shows grouped model values, and goes back to the current one when the change fails', async () => {
    const onconfig = vi.fn().mockRejectedValue(new Error('refused'));
    const grouped = { ...model, id: 'llm', options: [{ group: 'fast', name: 'Fast', options: [{ value: 'fake-small', name: 'Small' }, { value: 'fake-tiny', name: 'Tiny' }] }] };
    render(Composer, { onsend: vi.fn(), onstop: vi.fn(), configOptions: [grouped], onconfig });
    const pick = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    expect(pick.querySelector('optgroup')?.label).toBe('Fast');
    await fireEvent.change(pick, { target: { value: 'fake-tiny' } });
    expect(onconfig).toHaveBeenCalledWith('llm', 'fake-tiny');
    await vi.waitFor(() => expect(pick.value).toBe('fake-small'));
  });

  const commands = [
    { name: 'review', description: 'Review the current changes', input: { hint: 'what to focus on' } },
    { name: 'init', description: 'Write an AGENTS.md' },
    { name: 'compact', description: 'Summarize the conversation' },
  ];
  const options = () => screen.getAllByRole('option').map((o) => o.querySelector('.name')?.textContent);

  it('opens a command palette on "/", filters, moves with arrows, picks with Enter', async () => {
    const onsend = vi.fn();
    render(Composer, { onsend, onstop: vi.fn(), commands });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    expect(screen.queryByRole('listbox')).toBeNull();
    box.focus();
    await fireEvent.input(box, { target: { value: '/' } });
    const list = screen.getByRole('listbox', { name: 'Commands' });
    expect(options()).toEqual(['/review', '/init', '/compact']);
    expect(box.getAttribute('aria-controls')).toBe(list.id);
    expect(list.textContent).toContain('Review the current changes');
    expect(list.textContent).toContain('what to focus on');
    const selected = () => screen.getAllByRole('option').find((o) => o.getAttribute('aria-selected') === 'true');
    expect(box.getAttribute('aria-activedescendant')).toBe(selected()?.id);
    expect(selected()?.textContent).toContain('/review');

    await fireEvent.input(box, { target: { value: '/c' } });
    expect(options()).toEqual(['/compact']);
    await fireEvent.input(box, { target: { value: '/i' } });
    expect(options()).toEqual(['/init', '/review']); // prefix first, then contains
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(selected()?.textContent).toContain('/review');
    expect(box.getAttribute('aria-activedescendant')).toBe(selected()?.id);
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(selected()?.textContent).toContain('/init'); // wraps
    await fireEvent.keyDown(box, { key: 'ArrowUp' });
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(box.value).toBe('/review '));
    expect(onsend).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(box);
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(box.hasAttribute('aria-activedescendant')).toBe(false);
  });

  it('picks with Tab, closes on Escape without letting it through, no palette without commands', async () => {
    const outer = vi.fn();
    const listen = (e: KeyboardEvent) => e.key === 'Escape' && outer();
    window.addEventListener('keydown', listen);
    const { unmount } = render(Composer, { onsend: vi.fn(), onstop: vi.fn(), commands });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: '/co' } });
    await fireEvent.keyDown(box, { key: 'Tab' });
    await vi.waitFor(() => expect(box.value).toBe('/compact '));
    await fireEvent.input(box, { target: { value: '/' } });
    await fireEvent.keyDown(box, { key: 'Escape' });
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(outer).not.toHaveBeenCalled();
    await fireEvent.input(box, { target: { value: '/r' } }); // typing again reopens
    expect(options()).toEqual(['/review']);
    await fireEvent.click(screen.getByRole('option'));
    await vi.waitFor(() => expect(box.value).toBe('/review '));
    window.removeEventListener('keydown', listen);
    unmount();

    render(Composer, { onsend: vi.fn(), onstop: vi.fn() });
    const plain = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(plain, { target: { value: '/' } });
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(plain.hasAttribute('aria-autocomplete')).toBe(false);
  });

  const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' });
  const notes = () => new File(['TODO\n'], 'notes.txt', { type: 'text/plain' });

  it('attaches from the picker, lists chips, removes one, sends content blocks', async () => {
    const onsend = vi.fn();
    const { container } = render(Composer, { onsend, onstop: vi.fn(), promptCapabilities: { image: true, embeddedContext: true } });
    expect(screen.getByRole('button', { name: 'Attach' })).toBeTruthy();
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    expect(input.multiple).toBe(true);
    await fireEvent.change(input, { target: { files: [png(), notes(), new File(['x'], 'gone.txt', { type: 'text/plain' })] } });
    const chips = await screen.findByRole('list', { name: 'Attachments' });
    await vi.waitFor(() => expect(chips.querySelectorAll('li')).toHaveLength(3));
    expect(chips.textContent).toContain('shot.png');
    await fireEvent.click(screen.getByRole('button', { name: 'Remove gone.txt' }));
    expect(chips.querySelectorAll('li')).toHaveLength(2);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'What is this?' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).toHaveBeenCalledWith({
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', data: 'iVBORw==', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'attachment:notes.txt', text: 'TODO\n', mimeType: 'text/plain' } },
      ],
    });
    await vi.waitFor(() => expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull());
  });

  it('keeps attachments when sending fails; takes drops and pasted images', async () => {
    const onsend = vi.fn().mockRejectedValue(new Error('409'));
    const { container } = render(Composer, { onsend, onstop: vi.fn(), promptCapabilities: { image: true } });
    const form = container.querySelector('form')!;
    await fireEvent.drop(form, { dataTransfer: { files: [png()], types: ['Files'] } });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.paste(box, { clipboardData: { files: [new File([new Uint8Array([1])], 'image.png', { type: 'image/png' })] } });
    const chips = await screen.findByRole('list', { name: 'Attachments' });
    await vi.waitFor(() => expect(chips.querySelectorAll('li')).toHaveLength(2));
    // Only attachments, no text: still sendable.
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onsend).toHaveBeenCalledWith({ content: [expect.objectContaining({ type: 'image' }), expect.objectContaining({ type: 'image' })] });
    await vi.waitFor(() => expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(false));
    expect(screen.getByRole('list', { name: 'Attachments' }).querySelectorAll('li')).toHaveLength(2);
  });

  it('offers only what the agent accepts and says why a file is refused', async () => {
    const { unmount } = render(Composer, { onsend: vi.fn(), onstop: vi.fn(), promptCapabilities: { image: true } });
    expect((document.querySelector('input[type=file]') as HTMLInputElement).accept).toBe('image/*');
    await fireEvent.drop(document.querySelector('form')!, { dataTransfer: { files: [notes()], types: ['Files'] } });
    expect((await screen.findByRole('alert')).textContent).toMatch(/^notes.txt: This agent does not accept file contents/);
    expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull();
    unmount();

    // Text only (or capabilities not known yet): no Attach button; a pasted image is refused by name.
    render(Composer, { onsend: vi.fn(), onstop: vi.fn(), agentName: 'Codex' });
    expect(screen.queryByRole('button', { name: 'Attach' })).toBeNull();
    await fireEvent.paste(screen.getByRole('textbox', { name: 'Message' }), { clipboardData: { files: [png()] } });
    expect((await screen.findByRole('alert')).textContent).toMatch(/^shot.png: Codex does not accept images/);
  });

  it('shows how full the context is', () => {
    render(Composer, { onsend: vi.fn(), onstop: vi.fn(), usage: { used: 50_000, size: 200_000 } });
    expect(screen.getByLabelText('Context usage').textContent?.trim()).toBe('context 50K / 200K (25%)');
  });
});
