// Recent folders for the New thread dialog: the folders this browser (or
// window) created threads in, most recent first, kept in localStorage,
// then the folders of the thread list (newest thread first).

const recentKey = 'switchboard.recentFolders';
export const maxRecent = 8;

/** The folders remembered by rememberFolder, most recent first. */
export function loadRecent(storage: Storage | undefined = globalThis.localStorage): string[] {
  try {
    const v: unknown = JSON.parse(storage?.getItem(recentKey) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '').slice(0, maxRecent) : [];
  } catch {
    return [];
  }
}

/** Puts cwd first in the remembered folders; returns the new list. */
export function rememberFolder(cwd: string, storage: Storage | undefined = globalThis.localStorage): string[] {
  const list = [cwd, ...loadRecent(storage).filter((x) => x !== cwd)].slice(0, maxRecent);
  try {
    storage?.setItem(recentKey, JSON.stringify(list));
  } catch {
    // refused: the list lasts for this page
  }
  return list;
}

/** used first, then the threads' folders, without repeats, at most n. */
export function mergeRecent(used: string[], threadCwds: string[], n = maxRecent): string[] {
  const out: string[] = [];
  for (const cwd of [...used, ...threadCwds]) {
    if (cwd && !out.includes(cwd)) out.push(cwd);
    if (out.length === n) break;
  }
  return out;
}
