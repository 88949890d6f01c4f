// A permission option as the user reads it: by its kind, which decides
// what choosing it does, never by the agent's name for it. An option of
// kind allow_once named "Deny" reads "Allow once", with "Deny" beside it in
// smaller text (the PermissionCard, in a thread and in Approvals).
import type { PermissionOption } from './types';

const labels: Record<string, string> = {
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  reject_once: 'Deny',
  reject_always: 'Always deny',
};

/** Names that say the same as the kind's label: not repeated as the agent's wording. */
const same: Record<string, string[]> = {
  allow_once: ['allow once', 'allow'],
  allow_always: ['always allow', 'allow always', 'always'],
  reject_once: ['deny', 'reject', 'deny once', 'reject once'],
  reject_always: ['never', 'always deny', 'always reject', 'deny always', 'reject always'],
};

/** The label of an option's kind, or undefined for a kind ACP does not define. */
export function kindLabel(kind: string): string | undefined {
  return labels[kind];
}

/**
 * How the option is shown: label, its kind's (the agent's name when the
 * kind is unknown), and wording, the agent's name for it when that says
 * something else ('' otherwise).
 */
export function optionText(o: PermissionOption): { label: string; wording: string } {
  const label = kindLabel(o.kind);
  if (!label) return { label: o.name || o.optionId || 'Option', wording: '' };
  const name = o.name.trim();
  return { label, wording: name && !same[o.kind].includes(name.toLowerCase()) ? name : '' };
}

/** One button of a card's answer row. */
export interface AnswerButton {
  optionId: string;
  /** Unique on the card: the kind's label, numbered when two options share it. */
  label: string;
  /** The agent's name for it when that says something else ('' otherwise). */
  wording: string;
  /** allow: the filled primary; deny: plain; other: an option of a kind ACP does not define, plain. */
  role: 'allow' | 'deny' | 'other';
}

/**
 * A card's answer buttons in Switchboard's order, whatever order the
 * agent sent its options in: "Allow once" first (the primary), then
 * "Deny", then any option of a kind ACP does not define. The agent's
 * "always" options are not among them: the card's "Always…" menu offers
 * them (alwaysOptions). Labels are unique: a second option of one kind is
 * numbered ("Allow once (2)"). The hub's own options (named: a spending
 * limit's "Allow 200 tokens more for this turn", "Stop now") keep their
 * names as labels: they are the hub's words, not the agent's.
 */
export function answerButtons(options: PermissionOption[], named = false): AnswerButton[] {
  const rank = (k: string) => (k === 'allow_once' ? 0 : k === 'reject_once' ? 1 : 2);
  const shown = options.filter((o) => !o.kind.endsWith('_always')).sort((a, b) => rank(a.kind) - rank(b.kind));
  const count: Record<string, number> = {};
  return shown.map((o) => {
    const t = named && o.name ? { label: o.name, wording: '' } : optionText(o);
    const n = (count[t.label] = (count[t.label] ?? 0) + 1);
    return {
      optionId: o.optionId,
      label: n > 1 ? `${t.label} (${n})` : t.label,
      wording: t.wording,
      role: o.kind === 'allow_once' ? 'allow' : o.kind === 'reject_once' ? 'deny' : 'other',
    };
  });
}

/** The agent's own "always" options (allow_always, reject_always), allow first. */
export function alwaysOptions(options: PermissionOption[]): PermissionOption[] {
  return options
    .filter((o) => o.kind === 'allow_always' || o.kind === 'reject_always')
    .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'allow_always' ? -1 : 1));
}
