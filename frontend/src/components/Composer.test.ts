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
    expect(onsend).toHaveBeenCalledWith('Run the tests');
    await vi.waitFor(() => expect(box.value).toBe(''));
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
});
