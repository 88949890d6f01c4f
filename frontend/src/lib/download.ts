// Saves text as a file the user downloads (an export): a Blob and a link
// with download, clicked. The same in the window and the browser.

/** Starts the download of text as name. */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  // Not attached: its click never reaches the document, where guardLinks
  // (lib/links.ts) stops every link the page holds.
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file name of an export: switchboard-<what>.<format>, nothing but [A-Za-z0-9._-]. */
export function exportFileName(what: string, format: 'md' | 'jsonl'): string {
  const clean = what.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|[._]+$/g, '') || 'threads';
  return `switchboard-${clean}.${format}`;
}
