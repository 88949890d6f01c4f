// The UI theme (config ui.theme): data-theme on <html>, which app.css
// honours; "system" follows prefers-color-scheme.
import type { Theme } from './types';

/** Applies theme to root (the document's <html>); anything unknown is "system". */
export function applyTheme(theme: Theme | undefined, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme === 'light' || theme === 'dark' ? theme : 'system';
}
