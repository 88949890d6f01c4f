import { describe, expect, it } from 'vitest';
import { actionFor, BROWSER_RESERVED, INBOX_KEYMAP, inboxAction, KEYMAP, stepThread, type KeyLike } from './keymap';

const key = (k: Partial<KeyLike> & { key: string }): KeyLike => ({ code: '', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...k });
const browser = { inWindow: false, typing: false };
const win = { inWindow: true, typing: false };

describe('keymap', () => {
  it('binds no key a browser keeps for itself, outside the window', () => {
    for (const b of KEYMAP) {
      if (b.windowOnly) continue;
      for (const c of b.combos) expect(BROWSER_RESERVED, `${b.keys}: ${c}`).not.toContain(c);
    }
  });

  it("lists the Approvals inbox's keys, each one the inbox acts on and none the browser's", () => {
    const combos = INBOX_KEYMAP.flatMap((b) => b.combos);
    for (const c of combos) expect(BROWSER_RESERVED, c).not.toContain(c);
    const ev = (c: string) => ({
      key: c.slice(c.lastIndexOf('+') + 1),
      ctrlKey: c.startsWith('Ctrl+'),
      metaKey: c.startsWith('Meta+'),
      altKey: false,
      shiftKey: false,
    });
    for (const c of combos) expect(inboxAction(ev(c)), c).toBeDefined();
    // and every key the inbox acts on is listed
    for (const k of ['ArrowUp', 'ArrowDown', 'Home', 'End', ' ', 'Enter', 'Delete', 'Escape']) expect(combos).toContain(k);
    expect(combos).toContain('Ctrl+a');
  });

  it('matches every binding it lists', () => {
    expect(actionFor(key({ key: '3', code: 'Digit3', altKey: true }), browser)).toEqual({ kind: 'thread', n: 3 });
    expect(actionFor(key({ key: '¡', code: 'Digit1', altKey: true }), browser)).toEqual({ kind: 'thread', n: 1 }); // Option+1 on a Mac
    expect(actionFor(key({ key: 'ArrowUp', altKey: true }), browser)).toEqual({ kind: 'prev' });
    expect(actionFor(key({ key: 'ArrowDown', altKey: true }), browser)).toEqual({ kind: 'next' });
    expect(actionFor(key({ key: 'k', code: 'KeyK', ctrlKey: true }), browser)).toEqual({ kind: 'search' });
    expect(actionFor(key({ key: 'k', code: 'KeyK', metaKey: true }), browser)).toEqual({ kind: 'search' });
    expect(actionFor(key({ key: 'A', code: 'KeyA', ctrlKey: true, shiftKey: true }), browser)).toEqual({ kind: 'approvals' });
    expect(actionFor(key({ key: '.', code: 'Period', ctrlKey: true }), browser)).toEqual({ kind: 'stop' });
    expect(actionFor(key({ key: 'a', code: 'KeyA' }), browser)).toEqual({ kind: 'approve' });
    expect(actionFor(key({ key: 'd', code: 'KeyD' }), browser)).toEqual({ kind: 'deny' });
    expect(actionFor(key({ key: '?', code: 'Slash', shiftKey: true }), browser)).toEqual({ kind: 'help' });
    expect(actionFor(key({ key: 'Escape' }), browser)).toEqual({ kind: 'close' });
    expect(actionFor(key({ key: ',', ctrlKey: true }), browser)).toEqual({ kind: 'settings' });
    expect(actionFor(key({ key: 'n', code: 'KeyN', altKey: true }), browser)).toEqual({ kind: 'new' });
    expect(actionFor(key({ key: 'b', code: 'KeyB', ctrlKey: true }), browser)).toEqual({ kind: 'sidebar' });
    expect(actionFor(key({ key: 'b', code: 'KeyB', metaKey: true }), { inWindow: false, typing: true })).toEqual({ kind: 'sidebar' });
  });

  it('quits on Ctrl+Q (⌘Q) in the window only: the browser keeps it', () => {
    expect(actionFor(key({ key: 'q', code: 'KeyQ', ctrlKey: true }), win)).toEqual({ kind: 'quit' });
    expect(actionFor(key({ key: 'q', code: 'KeyQ', metaKey: true }), win)).toEqual({ kind: 'quit' });
    expect(actionFor(key({ key: 'q', code: 'KeyQ', ctrlKey: true }), browser)).toBeNull();
  });

  it('leaves Ctrl+digit and Ctrl+N to the browser, takes them in the window', () => {
    expect(actionFor(key({ key: '2', code: 'Digit2', ctrlKey: true }), browser)).toBeNull();
    expect(actionFor(key({ key: 'n', code: 'KeyN', ctrlKey: true }), browser)).toBeNull();
    expect(actionFor(key({ key: '2', code: 'Digit2', ctrlKey: true }), win)).toEqual({ kind: 'thread', n: 2 });
    expect(actionFor(key({ key: 'n', code: 'KeyN', metaKey: true }), win)).toEqual({ kind: 'new' });
  });

  it('never stops a turn on Escape, and types letters in a text field', () => {
    expect(actionFor(key({ key: 'Escape' }), browser)?.kind).not.toBe('stop');
    expect(actionFor(key({ key: 'a', code: 'KeyA' }), { inWindow: false, typing: true })).toBeNull();
    expect(actionFor(key({ key: '?', shiftKey: true }), { inWindow: false, typing: true })).toBeNull();
    // Shortcuts with a modifier still work while typing.
    expect(actionFor(key({ key: '.', ctrlKey: true }), { inWindow: false, typing: true })).toEqual({ kind: 'stop' });
    expect(actionFor(key({ key: 'A', code: 'KeyA', shiftKey: true }), browser)).toBeNull();
  });

  it('steps through the list, wrapping', () => {
    expect(stepThread(['a', 'b', 'c'], 'c', 1)).toBe('a');
    expect(stepThread(['a', 'b', 'c'], 'a', -1)).toBe('c');
    expect(stepThread(['a', 'b'], null, 1)).toBe('a');
    expect(stepThread(['a', 'b'], 'x', -1)).toBe('b');
    expect(stepThread([], 'a', 1)).toBeUndefined();
  });
});
