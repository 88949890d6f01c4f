import { describe, expect, it } from 'vitest';
import { keepTabInside } from './focustrap';

function dialog(): HTMLElement {
  const d = document.createElement('div');
  d.tabIndex = -1;
  d.innerHTML = '<input id="a"><button id="b" disabled>x</button><select id="c"></select><button id="d">y</button>';
  document.body.append(d);
  return d;
}

function tab(d: HTMLElement, shiftKey = false): boolean {
  const e = new KeyboardEvent('keydown', { key: 'Tab', shiftKey, cancelable: true });
  keepTabInside(e, d);
  return e.defaultPrevented;
}

describe('keepTabInside', () => {
  it('wraps from the last control to the first and back, skipping disabled ones', () => {
    const d = dialog();
    d.querySelector<HTMLElement>('#d')!.focus();
    expect(tab(d)).toBe(true);
    expect(document.activeElement?.id).toBe('a');
    expect(tab(d, true)).toBe(true);
    expect(document.activeElement?.id).toBe('d');
    d.remove();
  });

  it('leaves a Tab between inner controls to the browser, and Shift+Tab from the dialog goes last', () => {
    const d = dialog();
    d.querySelector<HTMLElement>('#a')!.focus();
    expect(tab(d)).toBe(false);
    expect(document.activeElement?.id).toBe('a');
    d.focus();
    expect(tab(d, true)).toBe(true);
    expect(document.activeElement?.id).toBe('d');
    const other = new KeyboardEvent('keydown', { key: 'a', cancelable: true });
    keepTabInside(other, d);
    expect(other.defaultPrevented).toBe(false);
    d.remove();
  });
});
