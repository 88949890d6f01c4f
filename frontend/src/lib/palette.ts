// The command palette's actions (Ctrl/Cmd+K, components/SearchDialog.svelte):
// everything the toolbar, a thread's overflow menu, the settings and the
// thread list offer, by name, filtered as the user types. App.svelte
// builds the list; the palette only filters, shows and runs it.

/** One thing the palette can do. */
export interface PaletteAction {
  /** Stable and unique in the list (the each key). */
  id: string;
  /** What the user reads and types ("Export as Markdown"). */
  label: string;
  /** The group it is listed under ("Thread", "Go to thread", "App"). */
  group: string;
  /** The shortcut as the keymap writes it ("Ctrl+N"), if any. */
  shortcut?: string;
  /** Does it; the palette closes first (so a dialog it opens gets the focus). */
  run: () => unknown;
}

/** Folds case and accents, so "resume" finds "Résumé". */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * The actions whose "group label" contains every word of query (any order,
 * any case), the ones whose label starts with the query's first word first,
 * at most limit. An empty query gives the first limit actions as listed.
 */
export function filterActions(actions: PaletteAction[], query: string, limit = 50): PaletteAction[] {
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (!words.length) return actions.slice(0, limit);
  const hits = actions.filter((a) => {
    const text = fold(`${a.group} ${a.label}`);
    return words.every((w) => text.includes(w));
  });
  const starts = (a: PaletteAction) => (fold(a.label).startsWith(words[0]) ? 0 : 1);
  return hits
    .map((a, i) => ({ a, i }))
    .sort((x, y) => starts(x.a) - starts(y.a) || x.i - y.i)
    .slice(0, limit)
    .map((x) => x.a);
}
