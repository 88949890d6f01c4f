// What a permission allows, as every surface of the window and the browser
// shows it: the card, the inbox's rows and the decision history. It reads
// the hub's own description (Permission.request) first — what runs, where,
// with which environment, on which files — and the agent's title only as
// the agent's words. A permission stored before the hub described requests
// falls back to the tool call. The Go surfaces (tray, notification, editor
// bridge) use hub/permission_text.go, which keeps the same words.
import type { Permission, PermissionKind } from './types';

/** One variable the agent sets for the command. */
export interface EnvShown {
  name: string;
  /** Shown as NAME=value; undefined when the hub hides it (name only). */
  value?: string;
  /** It changes which program runs (its value is given, and the request has env_changes_program). */
  program: boolean;
}

/** One warning: the flag, and what it means in plain words. */
export interface Warning {
  flag: string;
  text: string;
}

/** A permission as the window shows it. */
export interface PermissionView {
  /** What it is about, in product words ("Run a command", "Spending limit"). */
  kindLabel: string;
  /** What it does in one line: the command line, else the paths, else the agent's title in quotes. */
  headline: string;
  /** The command line, each argument quoted as a shell would read it back ("" when none). */
  commandLine: string;
  /** The arguments as they run (empty when unknown). */
  argv: string[];
  /** The folder the command runs in ("" when not known). */
  cwd: string;
  env: EnvShown[];
  paths: string[];
  /** The agent's title: its words, never what runs ("" when none). */
  agentWords: string;
  /** The hub's own words for it: a spending limit's title, with its amounts ("" for any other). */
  hubWords: string;
  /** Plain lines, in reading order: "Runs: …", "In: …", "Sets: …", "File: …". */
  details: string[];
  warnings: Warning[];
  /** The agent's sub-agent that asked, by its title (or session id); "" when the agent itself asked. */
  subagent: string;
  /** Whether the hub described the request (false: only the agent's tool call was there). */
  described: boolean;
  /** Whether a decision on it may be remembered ("Always…"): never for git's settings or a spending limit. */
  rememberable: boolean;
}

const kindWords: Record<PermissionKind, string> = {
  agent: 'Agent request',
  terminal: 'Run a command',
  file: 'Read a file outside the folder',
  git: "Change git's own settings",
  budget: 'Spending limit',
};

const acpKindWords: Record<string, string> = {
  read: 'read files',
  edit: 'edit files',
  delete: 'delete files',
  move: 'move files',
  search: 'search',
  execute: 'run a command',
  think: 'think',
  fetch: 'fetch from the web',
};

/** The hub kind and the tool call's ACP kind in product words (hub.KindWords). */
export function kindLabel(kind: string | undefined, acpKind: string | undefined): string {
  if (kind === 'file' && (acpKind === 'edit' || acpKind === 'delete' || acpKind === 'move')) {
    return 'Write a file outside the folder';
  }
  if (kind && kind !== 'agent' && kind in kindWords) return kindWords[kind as PermissionKind];
  const w = acpKind ? acpKindWords[acpKind] : undefined;
  return w ? `Agent request: ${w}` : 'Agent request';
}

const flagWords: Record<string, string> = {
  shell: 'Runs through a shell: the exact program is not known in advance',
  conflicting_command: 'The agent named two different commands',
  title_differs: "The agent's title is not the command that runs",
  malformed: 'Part of the request could not be read: check it closely',
  dot_dot: 'A path goes up with “..”: where it lands depends on links',
  outside_folder: "Reaches outside the thread's folder",
  git_settings: "Changes git's own settings — git may run commands from these files",
  env_changes_program: 'Sets variables that change which program runs',
  overlap: 'Another agent changed this file too: their work may collide',
};

/** A flag as a short warning in plain words (hub.FlagWords); an unknown flag still warns. */
export function flagText(flag: string): string {
  return Object.hasOwn(flagWords, flag) ? flagWords[flag] : 'Unusual request: check it closely';
}

// Control and invisible characters (C0, C1, bidi and other format
// characters, line and paragraph separators).
// eslint-disable-next-line no-control-regex
const invisible = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;
const invisibleAll = new RegExp(invisible.source, 'g');

/** s with its control and invisible characters escaped (\n, \u202e), so one line cannot hide its parts. */
export function visible(s: string): string {
  return s.replace(invisibleAll, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * One argument as a POSIX shell reads it back (hub.ShellQuote): plain when
 * it is only letters, digits and _@%+=:,./-; else single-quoted; with
 * control or invisible characters, $'…' with them escaped.
 */
export function shellQuote(s: string): string {
  if (s === '') return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  if (!invisible.test(s)) return `'${s.replaceAll("'", `'\\''`)}'`;
  return `$'${visible(s.replaceAll('\\', '\\\\')).replaceAll("'", "\\'")}'`;
}

/** The program and arguments as one command line, each argument quoted. */
export function commandLine(argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * The command a tool call's rawInput carries (command or cmd, a string or
 * an argv joined with spaces), or "": the agent's account, for permissions
 * stored before the hub described requests.
 */
export function commandOf(raw: unknown): string {
  if (!raw || typeof raw !== 'object') return '';
  const r = raw as Record<string, unknown>;
  const c = r.command ?? r.cmd ?? r.argv;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(String).join(' ');
  return '';
}

/** The names of the variables a tool call's rawInput.env sets (the old terminal permissions). */
function envNamesOf(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object') return [];
  const e = (raw as Record<string, unknown>).env;
  return Array.isArray(e) ? e.filter((n): n is string => typeof n === 'string') : [];
}

/** Turns a permission into what the window shows of it. */
export function describePermission(p: Permission): PermissionView {
  const tc = p.toolCall ?? { toolCallId: '' };
  const r = p.request;
  // Only an agent's request (or one stored before kinds) carries the
  // agent's title; the hub's own permissions carry the hub's words: a
  // spending limit's amounts, shown as they are; the others restate the
  // kind and the paths, and are left out (hub.Permission.Lines).
  // The description's title, else (one the hub could not read) the tool
  // call's: either way the agent's words, labelled as such.
  const title = (r?.title || tc.title)?.trim() ?? '';
  const agentTitled = !p.kind || p.kind === 'agent';
  const agentWords = agentTitled ? title : '';
  const hubWords = p.kind === 'budget' ? title : '';
  let argv: string[] = [];
  let cmd = '';
  let cwd = '';
  let env: EnvShown[] = [];
  let paths: string[] = [];
  let flags: string[] = [];
  if (r) {
    argv = r.argv ?? [];
    cmd = argv.length ? commandLine(argv) : visible(r.command ?? '');
    cwd = r.cwd ?? '';
    flags = r.flags ?? [];
    const program = flags.includes('env_changes_program');
    env = (r.env ?? []).map((e) =>
      e.hidden ? { name: e.name, program: false } : { name: e.name, value: e.value ?? '', program: program && !!e.value },
    );
    paths = r.paths ?? [];
  } else {
    cmd = visible(commandOf(tc.rawInput));
    env = envNamesOf(tc.rawInput).map((name) => ({ name, program: false }));
    paths = (tc.locations ?? []).map((l) => l.path).filter(Boolean);
  }
  const subagent = r?.subagent ? visible(r.subagent.title || r.subagent.sessionId) : '';
  const details: string[] = [];
  if (subagent) details.push(`Asked by sub-agent: ${subagent}`);
  if (hubWords) details.push(visible(hubWords));
  if (cmd) details.push(`Runs: ${cmd}`);
  if (cwd) details.push(`In: ${visible(cwd)}`);
  if (env.length) {
    const parts = env.map((e) => (e.value === undefined ? `${visible(e.name)} (value not shown)` : `${visible(e.name)}=${shellQuote(e.value)}`));
    details.push(`Sets: ${parts.join(' ')}`);
  }
  for (const path of paths) details.push(`File: ${visible(path)}`);
  const headline =
    cmd ||
    paths.map(visible).join(', ') ||
    visible(hubWords) ||
    (agentWords ? `“${visible(agentWords)}”` : 'The agent asks for permission');
  return {
    kindLabel: kindLabel(p.kind, r?.kind ?? tc.kind),
    headline,
    commandLine: cmd,
    argv,
    cwd,
    env,
    paths,
    agentWords,
    hubWords,
    details,
    warnings: flags.map((flag) => ({ flag, text: flagText(flag) })),
    subagent,
    described: !!r,
    rememberable: p.kind !== 'git' && p.kind !== 'budget',
  };
}

/**
 * What a permission's card is called (its region's name, before the
 * thread and ordinal): when the hub described it, the command line, else
 * the paths, else the title (the hub's or the agent's; the card says
 * whose), else its kind; otherwise the tool call's title as before.
 */
export function cardName(p: Permission): string {
  if (!p.request) return p.toolCall?.title ?? 'tool call';
  const v = describePermission(p);
  return v.commandLine || v.paths.map(visible).join(', ') || visible(v.hubWords || v.agentWords) || v.kindLabel;
}
