import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import SessionToggles from './SessionToggles.svelte';
import type { ConfigOption } from '../lib/types';

const options: ConfigOption[] = [
  { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'A' }] },
  {
    id: 'effort',
    name: 'Thinking',
    category: 'thought_level',
    type: 'select',
    currentValue: 'low',
    options: [
      { value: 'low', name: 'Low' },
      { value: 'high', name: 'High' },
    ],
  },
  { id: 'fast', name: 'Fast mode', type: 'boolean', currentValue: false },
];

describe('SessionToggles', () => {
  it('shows the thought level and each boolean option (not the model), and sets them', async () => {
    const onconfig = vi.fn(async () => {});
    render(SessionToggles, { configOptions: options, onconfig });
    expect(screen.queryByRole('combobox', { name: 'Model' })).toBeNull();
    const thinking = screen.getByRole('combobox', { name: 'Thinking' }) as HTMLSelectElement;
    expect(thinking.value).toBe('low');
    await fireEvent.change(thinking, { target: { value: 'high' } });
    expect(onconfig).toHaveBeenCalledWith('effort', 'high');
    const fast = screen.getByRole('checkbox', { name: 'Fast mode' }) as HTMLInputElement;
    expect(fast.checked).toBe(false);
    await fireEvent.click(fast);
    expect(onconfig).toHaveBeenLastCalledWith('fast', 'true');
  });

  it('puts a refused change back', async () => {
    render(SessionToggles, { configOptions: options, onconfig: () => Promise.reject(new Error('refused')) });
    const fast = screen.getByRole('checkbox', { name: 'Fast mode' }) as HTMLInputElement;
    await fireEvent.click(fast);
    await vi.waitFor(() => expect(fast.checked).toBe(false));
  });
});
