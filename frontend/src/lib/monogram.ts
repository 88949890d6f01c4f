// An agent's monogram (AgentIcon.svelte): its initials on a colour picked
// from a fixed palette by its id, the same colour for the same agent.

/** The monogram backgrounds, tokens in tokens.css (--avatar-fg on each passes WCAG AA). */
export const PALETTE = ['--avatar-1', '--avatar-2', '--avatar-3', '--avatar-4', '--avatar-5', '--avatar-6'] as const;

/** Up to two initials of a name: "Claude Code" → "CC", "gemini" → "G", "codex-acp" → "CA". */
export function initials(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return '?';
  const first = [...words[0]][0];
  const second = words.length > 1 ? [...words[1]][0] : '';
  return (first + second).toUpperCase();
}

/** The palette token of an id: a stable string hash (FNV-1a) modulo the palette. */
export function colourFor(id: string): (typeof PALETTE)[number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return PALETTE[h % PALETTE.length];
}
