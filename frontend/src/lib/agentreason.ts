// Why an agent cannot be started, in plain words for the first-run page
// and New thread: never the hub's raw reason with a shell command in it
// ("…; install it with: npm install -g …"), never a command to copy.
import type { Agent } from './types';

/** A shell command, not a sentence ("install Goose from https://…"). */
const command = /^(npm|npx|pip|pipx|uv|brew|cargo|go|curl|yarn|pnpm)\s/;

/**
 * Why a is unavailable, as a sentence. An agent Switchboard installs itself
 * (a.npm) is not asked about: its card has an Install button instead.
 */
export function unavailableWhy(a: Agent): string {
  const r = (a.reason ?? '').replace(/;\s*install it with:.*$/, '').trim();
  if (/not found on PATH|not installed/i.test(r)) {
    const where = a.install && !command.test(a.install) ? a.install.replace(/^install \S+ from /, '') : '';
    return where
      ? `Not on this computer. Install it from ${where}, then check again.`
      : 'Not on this computer, and Switchboard cannot install it.';
  }
  if (/disabled/i.test(r)) return 'Turned off in the config file.';
  if (!r) return 'Not available.';
  const s = `${r[0].toUpperCase()}${r.slice(1)}`;
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
