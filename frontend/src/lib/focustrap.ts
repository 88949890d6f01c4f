/**
 * Tab and Shift+Tab inside a modal dialog: from its last control focus goes
 * to its first, from its first (or the dialog itself) to its last, so the
 * keyboard never leaves the dialog for the page behind it. Any other key,
 * and a Tab between two inner controls, is left to the browser.
 */
export function keepTabInside(e: KeyboardEvent, dialog: HTMLElement): void {
  if (e.key !== 'Tab') return;
  const f = [...dialog.querySelectorAll<HTMLElement>('input,select,button,textarea,a[href]')].filter(
    (el) => !(el as HTMLButtonElement).disabled,
  );
  if (!f.length) return;
  const first = f[0];
  const last = f[f.length - 1];
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === dialog)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && at === last) {
    e.preventDefault();
    first.focus();
  }
}
