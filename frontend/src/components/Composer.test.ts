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
});
