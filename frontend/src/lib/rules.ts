// Permission rules as the UI reads and edits them: the config rules'
// editor form (lists typed as comma-separated text), its checks, where a
// hub's refusal belongs, and remembered decisions in words. The hub
// validates everything again (regular expressions are Go's, so they are
// left to it).
import { HubError } from './transport';
import type { PermissionRule, RememberedRule, RememberScope, RuleDecision } from './types';
import { toolKinds } from './types';

export const ruleDecisions: { value: RuleDecision; label: string }[] = [
  { value: 'allow', label: 'Allow once' },
  { value: 'allow_always', label: "Allow always (the agent's option)" },
  { value: 'deny', label: 'Deny' },
  { value: 'ask', label: 'Ask me' },
];

/** A config rule as its form holds it. */
export interface RuleForm {
  name: string;
  agents: string;
  folders: string;
  kinds: string[];
  match: string;
  inside: boolean;
  decision: RuleDecision;
}

export type RuleField = 'name' | 'agents' | 'folders' | 'kinds' | 'match' | 'inside' | 'decision';
export type RuleFormErrors = Partial<Record<RuleField, string>>;

export function emptyRuleForm(): RuleForm {
  return { name: '', agents: '', folders: '', kinds: [], match: '', inside: false, decision: 'allow' };
}

/** "a, b , c" → ["a","b","c"]: empty items dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function ruleToForm(r: PermissionRule): RuleForm {
  return {
    name: r.name,
    agents: (r.agents ?? []).join(', '),
    folders: (r.folders ?? []).join(', '),
    kinds: [...(r.kinds ?? [])],
    match: r.match ?? '',
    inside: r.inside === 'folder',
    decision: r.decision,
  };
}

/** The rule a form stands for: empty lists and fields left out; the name trimmed, the match exactly as typed. */
export function formToRule(f: RuleForm): PermissionRule {
  const r: PermissionRule = { name: f.name.trim(), decision: f.decision };
  const agents = splitList(f.agents);
  const folders = splitList(f.folders);
  if (agents.length) r.agents = agents;
  if (folders.length) r.folders = folders;
  if (f.kinds.length) r.kinds = toolKinds.filter((k) => f.kinds.includes(k));
  // As typed: white space is part of a regular expression.
  if (f.match) r.match = f.match;
  if (f.inside) r.inside = 'folder';
  return r;
}

/**
 * The form's problems before a round trip: a name (unique among the
 * other rules: it is what decidedBy "rule:<name>" names), a decision.
 */
export function ruleFormErrors(f: RuleForm, otherNames: string[]): RuleFormErrors {
  const e: RuleFormErrors = {};
  const name = f.name.trim();
  if (!name) e.name = 'Give the rule a name, such as reads-in-project.';
  else if (/\s/.test(name)) e.name = 'Use a name without spaces, such as reads-in-project.';
  else if (otherNames.includes(name)) e.name = `“${name}” is the name of another rule.`;
  if (!ruleDecisions.some((d) => d.value === f.decision)) e.decision = 'Pick what the rule decides.';
  return e;
}

const fieldWords: [RegExp, RuleField][] = [
  [/\bmatch\b|\bregexp?\b|regular expression/i, 'match'],
  [/\bkinds?\b/i, 'kinds'],
  [/\bfolders?\b/i, 'folders'],
  [/\bagents?\b/i, 'agents'],
  [/\binside\b/i, 'inside'],
  [/\bdecision\b/i, 'decision'],
  [/\bname\b/i, 'name'],
];

/**
 * Where the hub's refusal of a rules list belongs: the field of rule index
 * (details.rule / details.field when the hub gives them, else hub/policy's
 * message "permissions.rules[i] ("name"): field: why", else the rule's
 * index or name in the message and the first field word after it), or
 * undefined when it is not about that rule's field.
 */
export function ruleErrorField(err: unknown, index: number, name: string): RuleField | undefined {
  if (!(err instanceof HubError) || err.code !== 'INVALID_ARGUMENT') return undefined;
  const d = err.details ?? {};
  const msg = err.message;
  const ruleOf = d.rule ?? d.index;
  let mine: boolean;
  if (typeof ruleOf === 'number') mine = ruleOf === index;
  else if (typeof ruleOf === 'string') mine = ruleOf === name;
  else mine = msg.includes(`rules[${index}]`) || (!!name && (msg.includes(`"${name}"`) || msg.includes(`rule ${name}`)));
  if (!mine) return undefined;
  // The hub's own form: permissions.rules[<i>] ("<name>"): <field>: <why>.
  const exact = /rules\[(\d+)\](?: \("(?:[^"\\]|\\.)*"\))?: (\w+):/.exec(msg);
  if (exact && typeof ruleOf !== 'number' && typeof ruleOf !== 'string') {
    if (Number(exact[1]) !== index) return undefined;
    const f = exact[2] === 'kind' ? 'kinds' : exact[2];
    if (['name', 'agents', 'folders', 'kinds', 'match', 'inside', 'decision'].includes(f)) return f as RuleField;
  }
  if (typeof d.field === 'string') {
    const f = d.field.replace(/^.*\./, '');
    if (f === 'kind') return 'kinds';
    if (['name', 'agents', 'folders', 'kinds', 'match', 'inside', 'decision'].includes(f)) return f as RuleField;
  }
  // After the rule's own name, so a name like "kind-reads" does not mislead.
  const rest = name ? msg.split(name).slice(1).join(name) || msg : msg;
  for (const [re, f] of fieldWords) if (re.test(rest)) return f;
  return undefined;
}

/** A config rule in one line: what it matches and decides. */
export function ruleSummary(r: PermissionRule): string {
  const parts: string[] = [];
  parts.push(r.kinds?.length ? r.kinds.join(', ') : 'any kind');
  if (r.match) parts.push(`matching /${r.match}/`);
  if (r.inside === 'folder') parts.push('inside the folder');
  if (r.agents?.length) parts.push(`agents ${r.agents.join(', ')}`);
  if (r.folders?.length) parts.push(`in ${r.folders.join(', ')}`);
  const decision = ruleDecisions.find((d) => d.value === r.decision)?.label ?? r.decision;
  return `${parts.join(' · ')} → ${decision}`;
}

export const scopeLabels: Record<RememberScope, string> = {
  thread: 'this thread',
  folder: 'this folder',
  agent: 'this agent',
};

/** Where a remembered decision applies, in words: "thread <title>", "folder <cwd>", "agent <id>". */
export function scopeWords(r: Pick<RememberedRule, 'scope' | 'threadId' | 'cwd' | 'agent'>, threadTitle?: string): string {
  switch (r.scope) {
    case 'thread':
      return `thread ${threadTitle || r.threadId || ''}`.trim();
    case 'folder':
      return `folder ${r.cwd ?? ''}`.trim();
    case 'agent':
      return `agent ${r.agent}`;
  }
  return String(r.scope);
}

/** What a remembered decision does, in one sentence: "Always allow execute “go test ./...” in thread Fix the build." */
export function rememberedWords(r: RememberedRule, threadTitle?: string): string {
  const verb = r.decision === 'deny' ? 'Always deny' : 'Always allow';
  const what = r.kind === 'execute' && r.command ? `${r.kind} “${r.command}”` : `${r.kind || 'requests'} inside the folder`;
  return `${verb} ${what} in ${scopeWords(r, threadTitle)}.`;
}
