// The app's page never navigates: every click on a link (agent text's,
// the only links there are) is caught here and the URL, if it is an
// absolute http(s) or mailto one, opens outside the app — the user's
// browser through Wails in the window (where a navigation would put a
// remote page next to the bindings), a new tab without opener or referrer
// in a browser. Anything else opens nothing.
import { safeLink } from './markdown';

interface OpenURL {
  BrowserOpenURL?: (url: string) => void;
}

/** Opens url outside the app; false when it is not a link the app opens. */
export function openExternal(url: string, w: Window = window): boolean {
  const safe = safeLink(url);
  if (!safe) return false;
  const rt = (w as unknown as { runtime?: OpenURL }).runtime;
  if (w.go && rt?.BrowserOpenURL) rt.BrowserOpenURL(safe);
  else w.open(safe, '_blank', 'noopener,noreferrer');
  return true;
}

/** Catches every link click and middle click in doc (capture phase); returns the uninstaller. */
export function guardLinks(doc: Document = document): () => void {
  const w = doc.defaultView ?? window;
  const handle = (e: MouseEvent) => {
    const a = e.target instanceof Element ? e.target.closest('a[href], area[href]') : null;
    if (!a) return;
    e.preventDefault();
    if (e.type === 'click' || e.button === 1) openExternal(a.getAttribute('href') ?? '', w);
  };
  doc.addEventListener('click', handle, true);
  doc.addEventListener('auxclick', handle, true);
  return () => {
    doc.removeEventListener('click', handle, true);
    doc.removeEventListener('auxclick', handle, true);
  };
}
