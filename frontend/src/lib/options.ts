// A permission option as the user reads it: by its kind, which decides
// what choosing it does, never by the agent's name for it. An option of
// kind allow_once named "Deny" reads "Allow once", with "Deny" beside it in
// smaller text (the PermissionCard, in a thread and in Approvals).
import type { PermissionOption } from './types';

const labels: Record<string, string> = {
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  reject_once: 'Reject',
  reject_always: 'Always reject',
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
  return { label, wording: name && name.toLowerCase() !== label.toLowerCase() ? name : '' };
}
