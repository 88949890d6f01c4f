import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardLinks } from './links';
import { renderMarkdown } from './markdown';

describe('guardLinks', () => {
  let undo = () => {};
  afterEach(() => {
    undo();
    delete (window as { go?: unknown }).go;
    delete (window as { runtime?: unknown }).runtime;
    vi.restoreAllMocks();
    document.body.innerHTML = '';
  });

  /** Clicks the link of agent markdown; whether the page's own navigation was prevented. */
  function click(md: string, init: MouseEventInit = {}, type = 'click'): boolean {
    document.body.innerHTML = `<div class="md">${renderMarkdown(md)}</div>`;
    const a = document.querySelector('a')!;
    const e = new MouseEvent(type, { bubbles: true, cancelable: true, ...init });
    a.dispatchEvent(e);
    return e.defaultPrevented;
  }

  it('opens a link in a new tab without opener in a browser, never in the page', () => {
    undo = guardLinks();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    expect(click('[docs](https://example.com/x)')).toBe(true);
    expect(open).toHaveBeenCalledWith('https://example.com/x', '_blank', 'noopener,noreferrer');
    expect(click('[docs](https://example.com/y)', { button: 1 }, 'auxclick')).toBe(true);
    expect(open).toHaveBeenLastCalledWith('https://example.com/y', '_blank', 'noopener,noreferrer');
  });

  it("opens it in the user's browser from the window", () => {
    undo = guardLinks();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const browserOpen = vi.fn();
    Object.assign(window, { go: {}, runtime: { BrowserOpenURL: browserOpen } });
    expect(click('<a href="https://example.com/w">w</a>')).toBe(true);
    expect(browserOpen).toHaveBeenCalledWith('https://example.com/w');
    expect(open).not.toHaveBeenCalled();
  });

  it('opens nothing for a link that is not http(s) or mailto, and still keeps the page', () => {
    undo = guardLinks();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    // Written straight into the page, past the sanitiser, as a last line.
    document.body.innerHTML = '<a href="javascript:alert(1)">js</a><a href="/v1/shutdown">rel</a><map><area href="https://e.x/"></map>';
    for (const a of document.querySelectorAll('a, area')) {
      const e = new MouseEvent('click', { bubbles: true, cancelable: true });
      a.dispatchEvent(e);
      expect(e.defaultPrevented, a.outerHTML).toBe(true);
    }
    expect(open).toHaveBeenCalledTimes(1); // the area's https link, outside the page
    expect(open).toHaveBeenCalledWith('https://e.x/', '_blank', 'noopener,noreferrer');
  });
});
