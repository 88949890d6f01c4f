// The A and D keys answer the focused card through its own buttons
// (lib/keymap focusedPermission): A is "Allow once", D is "Deny", whatever
// the buttons look like (Deny is a plain button since issue 29's card).
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import PermissionCard from './PermissionCard.svelte';
import { permission } from '../test/fakeTransport';
import { focusedPermission } from '../lib/keymap';

describe('PermissionCard and the A/D keys', () => {
  it('finds Allow once and Deny from inside the card', () => {
    render(PermissionCard, { permission: permission('pe_1'), ondecide: vi.fn() });
    const group = screen.getByRole('group', { name: 'Answer' });
    const got = focusedPermission(group);
    expect(got?.approve?.textContent).toBe('Allow once');
    expect(got?.deny?.textContent).toBe('Deny');
  });
});
