// The UI theme (config ui.theme): data-theme on <html>, which app.css
// honours; "system" follows prefers-color-scheme. The last theme applied is
// remembered in localStorage, so a reload paints in it before the hub's
// settings arrive (restoreTheme, called first thing in main.ts).
import type { Theme } from './types';

const key = 'switchboard.theme';

function known(theme: unknown): Theme {
  return theme === 'light' || theme === 'dark' ? theme : 'system';
}

/** Applies theme to root (the document's <html>) and remembers it; anything unknown is "system". */
export function applyTheme(
  theme: Theme | undefined,
  root: HTMLElement = document.documentElement,
  storage: Storage | undefined = globalThis.localStorage,
): void {
  root.dataset.theme = known(theme);
  try {
    storage?.setItem(key, root.dataset.theme);
  } catch {
    // Storage full or refused (private mode): the theme still applies.
  }
}

/** Applies the theme remembered by the last applyTheme, if any. */
export function restoreTheme(root: HTMLElement = document.documentElement, storage: Storage | undefined = globalThis.localStorage): void {
  let saved: string | null = null;
  try {
    saved = storage?.getItem(key) ?? null;
  } catch {
    return;
  }
  if (saved) root.dataset.theme = known(saved);
}
