// Helpers of the settings page: the permission timeout as a number and a
// unit, the add-agent form's checks, and an agent's environment. The hub
// validates everything again; these catch the obvious mistakes before a
// round trip.
import { HubError } from './transport';
import type { Agent, AgentPatch, AgentSettings, SettingsPatch } from './types';

/** An error as the settings page shows it: the hub's message and code. */
export function describeError(err: unknown): string {
  if (err instanceof HubError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

export type TimeUnit = 's' | 'm' | 'h';
export const unitSeconds: Record<TimeUnit, number> = { s: 1, m: 60, h: 3600 };
/** The hub's bounds of permissions.timeout, in seconds. */
export const minTimeout = 1;
export const maxTimeout = 24 * 3600;

const durationPart = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
const partSeconds: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds in a Go duration string ("10m", "1h30m", "90s"); NaN when it is not one. */
export function parseDuration(s: string): number {
  const t = s.trim();
  if (!t) return NaN;
  let total = 0;
  let consumed = 0;
  for (const m of t.matchAll(durationPart)) {
    if (m.index !== consumed) return NaN;
    consumed += m[0].length;
    total += Number(m[1]) * partSeconds[m[2]];
  }
  return consumed === t.length ? total : NaN;
}

/** A duration in seconds as a whole number of the largest unit that fits exactly. */
export function splitDuration(seconds: number): { value: number; unit: TimeUnit } {
  if (!(seconds > 0)) return { value: 10, unit: 'm' };
  if (seconds % 3600 === 0) return { value: seconds / 3600, unit: 'h' };
  if (seconds % 60 === 0) return { value: seconds / 60, unit: 'm' };
  return { value: Math.round(seconds), unit: 's' };
}

/** Why value·unit is not an acceptable timeout, or "". */
export function timeoutError(value: number, unit: TimeUnit): string {
  if (!Number.isFinite(value) || !Number.isInteger(value) || value <= 0) return 'Give a whole number greater than 0.';
  const secs = value * unitSeconds[unit];
  if (secs < minTimeout || secs > maxTimeout) return 'Give a time from 1 second to 24 hours.';
  return '';
}

/**
 * Splits a command line's arguments on spaces; "double" or 'single'
 * quotes keep spaces inside one argument. Throws on an unclosed quote.
 */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let have = false;
  let quote = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      have = true;
    } else if (/\s/.test(ch)) {
      if (have) out.push(cur);
      cur = '';
      have = false;
    } else {
      cur += ch;
      have = true;
    }
  }
  if (quote) throw new Error(`an unclosed ${quote} quote`);
  if (have) out.push(cur);
  return out;
}

export const agentIdPattern = /^[a-z0-9][a-z0-9._-]*$/;

export interface AgentForm {
  id: string;
  name: string;
  command: string;
  args: string;
}

/** The add-agent form's problems, by field ("" when none). */
export function agentFormErrors(
  f: AgentForm,
  agents: Agent[],
  configured: AgentSettings[],
): { id: string; command: string; args: string } {
  const id = f.id.trim();
  let idErr = '';
  if (!id) idErr = 'Give the agent an id, such as my-agent.';
  else if (id.length > 64 || !agentIdPattern.test(id))
    idErr = 'Use lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.';
  else if (agents.some((a) => a.id === id) && !configured.some((c) => c.id === id && !c.builtin))
    idErr = `“${id}” is already an agent: pick another id.`;
  let argsErr = '';
  try {
    splitArgs(f.args);
  } catch (e) {
    argsErr = `The arguments have ${e instanceof Error ? e.message : String(e)}.`;
  }
  return {
    id: idErr,
    command: f.command.trim() ? '' : 'Give the command that starts the agent (it speaks ACP on stdio).',
    args: argsErr,
  };
}

/** The hub's rule for an environment variable's name. */
export const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why name (trimmed) is not a variable name the hub takes, or "". */
export function envNameError(name: string): string {
  const n = name.trim();
  if (!n) return 'Give the variable a name, such as ANTHROPIC_API_KEY.';
  if (!envNamePattern.test(n)) return 'Use letters, digits and "_", not starting with a digit.';
  return '';
}

/**
 * The patch that sets (a string) or removes (null) the variable key of
 * agent id's environment. The hub replaces an entry's name, command, args
 * and enabled with the ones given and merges only env, so the entry's
 * fields in force (entry, from GET /v1/settings) go along unchanged; an
 * agent without an entry (a built-in one) gets one holding env alone.
 */
export function envPatch(id: string, entry: AgentSettings | undefined, key: string, value: string | null): SettingsPatch {
  const a: AgentPatch = {};
  if (entry?.name) a.name = entry.name;
  if (entry?.command) a.command = entry.command;
  if (entry?.args) a.args = [...entry.args];
  if (entry?.enabled !== undefined) a.enabled = entry.enabled;
  a.env = { [key]: value };
  return { agents: { [id]: a } };
}

/**
 * Whether the hub looked for agent a's command on PATH and did not find it
 * (acp.Detect's reason "<command> not found on PATH[; install it with: …]").
 * Settings says that once for all such agents, not once per agent.
 */
export function notOnPath(a: Agent): boolean {
  return a.status !== 'available' && /\bnot found on PATH\b/.test(a.reason ?? '');
}
