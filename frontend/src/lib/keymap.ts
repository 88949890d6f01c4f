// The keymap: every keyboard shortcut of the app, in one table, shown by
// `?` (components/KeymapHelp.svelte) and matched by actionFor; and the keys
// of the Approvals inbox's list (INBOX_KEYMAP, matched by inboxAction),
// which the inbox runs itself while its list has the focus. Components
// never listen for shortcuts of their own beside what a focused control
// does (Enter in the composer, Escape in a dialog, the inbox list's keys);
// App.svelte runs the actions actionFor names.
//
// None of these is a key a browser keeps for itself (BROWSER_RESERVED:
// Chromium and Firefox never hand them to the page, or do something
// else first): those are bound in the window only, where no browser is.

/** What a shortcut does. */
export type Action =
  | { kind: 'thread'; n: number } // the n-th thread of the list, 1-based
  | { kind: 'prev' }
  | { kind: 'next' }
  | { kind: 'search' }
  | { kind: 'approvals' }
  | { kind: 'stop' }
  | { kind: 'approve' }
  | { kind: 'deny' }
  | { kind: 'close' }
  | { kind: 'help' }
  | { kind: 'new' }
  | { kind: 'settings' }
  | { kind: 'sidebar' } // show or hide the thread list
  | { kind: 'quit' }; // the window only: quit Switchboard (its native menu is not shown on Linux)

/** One line of the keymap as `?` shows it. */
export interface Binding {
  /** The keys, as written for people ("Alt+1 … Alt+9"). */
  keys: string;
  /** What it does. */
  does: string;
  /** Only in the desktop window (the browser keeps these keys). */
  windowOnly?: boolean;
  /** The combos it stands for, in the notation of BROWSER_RESERVED (for the check). */
  combos: string[];
}

const digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];

/** The keymap, in the order `?` lists it. */
export const KEYMAP: Binding[] = [
  { keys: 'Alt+1 … Alt+9', does: 'Show the first to ninth thread of the list', combos: digits.map((d) => `Alt+${d}`) },
  {
    keys: 'Ctrl+1 … Ctrl+9 (⌘ on a Mac)',
    does: 'Show the first to ninth thread of the list',
    windowOnly: true,
    combos: digits.flatMap((d) => [`Ctrl+${d}`, `Meta+${d}`]),
  },
  { keys: 'Alt+↑ / Alt+↓', does: 'Show the previous / next thread', combos: ['Alt+ArrowUp', 'Alt+ArrowDown'] },
  { keys: 'Ctrl+K (⌘K)', does: 'Commands and search: every action, thread and setting, by typing', combos: ['Ctrl+k', 'Meta+k'] },
  { keys: 'Ctrl+B (⌘B)', does: 'Show or hide the thread list', combos: ['Ctrl+b', 'Meta+b'] },
  { keys: 'Ctrl+Shift+A (⌘⇧A)', does: 'Open the Approvals panel', combos: ['Ctrl+Shift+a', 'Meta+Shift+a'] },
  { keys: 'Ctrl+.', does: "Stop the thread's running turn (Escape never does)", combos: ['Ctrl+.', 'Meta+.'] },
  { keys: 'A', does: 'Approve the focused permission request (once it can be answered)', combos: ['a'] },
  { keys: 'D', does: 'Deny the focused permission request (once it can be answered)', combos: ['d'] },
  { keys: 'Escape', does: 'Close the topmost panel or dialog, only that one', combos: ['Escape'] },
  { keys: 'Alt+N', does: 'New thread', combos: ['Alt+n'] },
  { keys: 'Ctrl+N (⌘N)', does: 'New thread', windowOnly: true, combos: ['Ctrl+n', 'Meta+n'] },
  { keys: 'Ctrl+, (⌘,)', does: 'Settings', combos: ['Ctrl+,', 'Meta+,'] },
  { keys: '?', does: 'Show this list of keys', combos: ['?'] },
  { keys: 'Ctrl+Q (⌘Q)', does: 'Quit Switchboard', windowOnly: true, combos: ['Ctrl+q', 'Meta+q'] },
];

/**
 * The Approvals inbox's keys, while its list has the focus (Ctrl/Cmd+Shift+A
 * puts it there), in the order `?` lists them. The list runs them itself
 * (ApprovalsInbox.svelte, through inboxAction) and stops them there, so
 * Escape closes the inbox only when nothing is open above it.
 */
export const INBOX_KEYMAP: Binding[] = [
  { keys: '↑ / ↓', does: 'Move to the previous / next request', combos: ['ArrowUp', 'ArrowDown'] },
  { keys: 'Home / End', does: 'Move to the first / last request', combos: ['Home', 'End'] },
  { keys: 'Space', does: 'Select or unselect the request', combos: [' '] },
  { keys: 'Ctrl+A (⌘A)', does: 'Select all (again: none)', combos: ['Ctrl+a', 'Meta+a'] },
  { keys: 'Enter', does: 'Approve the selection (the current request when none is selected)', combos: ['Enter'] },
  { keys: 'Delete', does: 'Deny the selection (the current request when none is selected)', combos: ['Delete'] },
  { keys: 'Escape', does: 'Close the Approvals panel', combos: ['Escape'] },
];

/** The inbox's keys in one line, as the inbox shows them under its list. */
export const inboxKeysHelp = '↑/↓ move · Space select · Ctrl+A all · Enter approve · Delete deny · Esc close';

/** What a key does in the inbox's list (INBOX_KEYMAP). */
export type InboxAction = 'up' | 'down' | 'first' | 'last' | 'toggle' | 'all' | 'approve' | 'deny' | 'close';

/**
 * The inbox's keys (INBOX_KEYMAP): ↑/↓ (Home/End) move, Space selects,
 * Ctrl+A (⌘A) selects all (again: none), Enter approves and Delete denies
 * the selection, Escape closes. undefined: a key the list leaves alone.
 */
export function inboxAction(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): InboxAction | undefined {
  if (e.altKey) return undefined;
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') return 'all';
  if (e.ctrlKey || e.metaKey) return undefined;
  switch (e.key) {
    case 'ArrowUp':
      return 'up';
    case 'ArrowDown':
      return 'down';
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case ' ':
      return 'toggle';
    case 'Enter':
      return e.shiftKey ? undefined : 'approve';
    case 'Delete':
      return 'deny';
    case 'Escape':
      return 'close';
  }
  return undefined;
}

/**
 * Keys browsers keep for themselves (tabs, windows, history, the address
 * bar) or do something else with first: a page never gets them, or gets
 * them too late. No binding outside the window may be one of these.
 */
export const BROWSER_RESERVED: string[] = [
  ...['n', 't', 'w', 'q', 'l', 'r', 'p', 'f', 'h', 'j', 'd', 'o', 's', 'u', 'Tab', 'PageUp', 'PageDown', '+', '-', '0'].flatMap(
    (k) => [`Ctrl+${k}`, `Meta+${k}`],
  ),
  ...digits.flatMap((d) => [`Ctrl+${d}`, `Meta+${d}`]),
  ...['n', 't', 'w', 'b', 'Delete', 'i', 'j', 'o'].flatMap((k) => [`Ctrl+Shift+${k}`, `Meta+Shift+${k}`]),
  'Alt+ArrowLeft',
  'Alt+ArrowRight',
  'Alt+Home',
  'Alt+F4',
  'Alt+d',
  'Alt+e',
  'Alt+f',
  'F1',
  'F3',
  'F5',
  'F6',
  'F11',
  'F12',
];

/** What actionFor needs to know besides the key. */
export interface KeyContext {
  /** The desktop window, not a browser. */
  inWindow: boolean;
  /** Focus is in a text field: a plain letter is typing, not a shortcut. */
  typing: boolean;
}

/** The parts of a KeyboardEvent actionFor reads. */
export type KeyLike = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>;

/** The digit a key is (by its position, which Alt and layouts do not change), or 0. */
function digitOf(e: KeyLike): number {
  const m = /^(?:Digit|Numpad)([1-9])$/.exec(e.code ?? '');
  if (m) return Number(m[1]);
  return /^[1-9]$/.test(e.key) ? Number(e.key) : 0;
}

/** The letter a key is, lower case, by its position when known (Alt+N on a Mac types ˜). */
function letterOf(e: KeyLike): string {
  const m = /^Key([A-Z])$/.exec(e.code ?? '');
  if (m) return m[1].toLowerCase();
  return e.key.length === 1 ? e.key.toLowerCase() : '';
}

/** The action a key press asks for, or null (then the page leaves it alone). */
export function actionFor(e: KeyLike, ctx: KeyContext): Action | null {
  const mod = e.ctrlKey || e.metaKey;
  if (e.key === 'Escape' && !mod && !e.altKey) return { kind: 'close' };
  if (e.altKey && !mod) {
    if (e.shiftKey) return null;
    const d = digitOf(e);
    if (d) return { kind: 'thread', n: d };
    if (e.key === 'ArrowUp') return { kind: 'prev' };
    if (e.key === 'ArrowDown') return { kind: 'next' };
    if (letterOf(e) === 'n') return { kind: 'new' };
    return null;
  }
  if (mod && !e.altKey) {
    const l = letterOf(e);
    if (e.shiftKey) return l === 'a' ? { kind: 'approvals' } : null;
    if (l === 'k') return { kind: 'search' };
    if (l === 'b') return { kind: 'sidebar' };
    if (e.key === '.' || e.code === 'Period') return { kind: 'stop' };
    if (e.key === ',' || e.code === 'Comma') return { kind: 'settings' };
    if (!ctx.inWindow) return null; // the browser's own: tabs, new window
    const d = digitOf(e);
    if (d) return { kind: 'thread', n: d };
    if (l === 'n') return { kind: 'new' };
    if (l === 'q') return { kind: 'quit' };
    return null;
  }
  if (mod || e.altKey || ctx.typing) return null;
  if (e.key === '?') return { kind: 'help' };
  if (!e.shiftKey && letterOf(e) === 'a') return { kind: 'approve' };
  if (!e.shiftKey && letterOf(e) === 'd') return { kind: 'deny' };
  return null;
}

/** Whether the focus is somewhere a letter types text. */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'file', 'color'].includes(el.type);
  }
  return (el as HTMLElement).isContentEditable === true;
}

/**
 * The thread n steps from current in list (wrapping), or the first (last
 * for a step back) when current is not in it; undefined for an empty list.
 */
export function stepThread(list: string[], current: string | null, step: 1 | -1): string | undefined {
  if (!list.length) return undefined;
  const i = current ? list.indexOf(current) : -1;
  if (i < 0) return step > 0 ? list[0] : list[list.length - 1];
  return list[(i + step + list.length) % list.length];
}

/**
 * The pending permission card the focus is in, and its approve and deny
 * buttons (the first allow and the first reject option): a key answers
 * through the button, so the card's 500 ms guard holds for keys as for
 * clicks (a disabled button ignores the click).
 */
export function focusedPermission(el: Element | null): { approve?: HTMLButtonElement; deny?: HTMLButtonElement } | null {
  // The card itself, or its thread view's wrapper ([data-permission-id],
  // focusable: a notification's reveal focuses it).
  const card = el?.closest('section.permission') ?? el?.closest('[data-permission-id]')?.querySelector('section.permission');
  if (!card) return null;
  return {
    approve: card.querySelector<HTMLButtonElement>('.options button[data-answer="allow"]') ?? undefined,
    deny: card.querySelector<HTMLButtonElement>('.options button[data-answer="deny"]') ?? undefined,
  };
}
