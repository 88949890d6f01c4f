import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Composer from './Composer.svelte';

describe('Composer while a turn runs (issue 33)', () => {
  it('queues the message on Enter and says so on its button; Stop still stops', async () => {
    const onsend = vi.fn();
    const onqueue = vi.fn();
    const onstop = vi.fn();
    render(Composer, { onsend, onqueue, onstop, running: true });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    expect(box.placeholder).toContain('Enter queues');
    const button = screen.getByRole('button', { name: 'Queue' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true); // nothing typed
    await fireEvent.input(box, { target: { value: 'Then run the linter' } });
    expect(button.disabled).toBe(false);
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onqueue).toHaveBeenCalledWith({ input: 'Then run the linter' });
    expect(onsend).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(box.value).toBe(''));
    await fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onstop).toHaveBeenCalledTimes(1);
  });

  it('without a queue, a running turn still holds the message (Send disabled)', async () => {
    const onsend = vi.fn();
    render(Composer, { onsend, onstop: vi.fn(), running: true });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: 'wait' } });
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).not.toHaveBeenCalled();
  });
});
