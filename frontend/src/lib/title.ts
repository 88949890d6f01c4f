// The title of the page and of the desktop window: it names what is in
// front — the topmost panel, else the open thread — before the app's name,
// so a window list, a screen reader and the desktop end-to-end test
// (app/e2e_window_test.go reads it with xdotool) see what is shown.

/** The app's name, the whole title when nothing is open. */
export const APP_NAME = 'Switchboard';

/**
 * "<shown> — Switchboard", or "Switchboard" when shown is empty; a
 * positive pending count goes in front ("(2) …"): the browser tab's title
 * has it, the window's does not (the Approvals button and the tray show it).
 */
export function pageTitle(shown: string, pending = 0): string {
  const s = shown.trim();
  return `${pending > 0 ? `(${pending}) ` : ''}${s ? `${s} — ` : ''}${APP_NAME}`;
}

/** Which panels are open, each drawn over the ones after it in topmost's order. */
export interface OpenPanels {
  history?: boolean;
  settings?: boolean;
  search?: boolean;
  newThread?: boolean;
  help?: boolean;
  usage?: boolean;
  approvals?: boolean;
}

/** The name of the topmost open panel (the one Escape closes), or "". */
export function topmost(p: OpenPanels): string {
  if (p.history) return 'Decision history';
  if (p.settings) return 'Settings';
  if (p.search) return 'Search';
  if (p.newThread) return 'New thread';
  if (p.help) return 'Keyboard shortcuts';
  if (p.usage) return 'Usage';
  if (p.approvals) return 'Approvals';
  return '';
}
