// The Sidebar's rows while the pointer or focus is in the list: the order
// they had when it came in, so a row does not move under the mouse.

/**
 * items in the order of held (ids), then the items held does not know, in
 * their own order; an id of held no longer among items is skipped.
 */
export function heldOrder<T extends { id: string }>(items: T[], held: string[]): T[] {
  const rank = new Map(held.map((id, i) => [id, i]));
  const known = items.filter((t) => rank.has(t.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  return [...known, ...items.filter((t) => !rank.has(t.id))];
}
