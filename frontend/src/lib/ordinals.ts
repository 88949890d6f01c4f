// Numbers for things that would otherwise share a name: the second
// "Permission request: Run command" region in a conversation becomes
// "… (2)", so every landmark has a name of its own (axe's
// landmark-unique rule, e2e/a11y.mjs).

/**
 * The how-manieth of its name each item is, in list order, by id (from 1).
 * Items without an id are skipped.
 */
export function ordinals<T>(
  items: Iterable<T>,
  id: (t: T) => string | undefined,
  name: (t: T) => string,
): Record<string, number> {
  const seen = new Map<string, number>();
  const nth: Record<string, number> = {};
  for (const t of items) {
    const k = id(t);
    if (k === undefined) continue;
    const n = name(t);
    const i = (seen.get(n) ?? 0) + 1;
    seen.set(n, i);
    nth[k] = i;
  }
  return nth;
}

/** " (n)" from the second on, "" for the first. */
export function ordinalSuffix(nth: number | undefined): string {
  return nth && nth > 1 ? ` (${nth})` : '';
}
