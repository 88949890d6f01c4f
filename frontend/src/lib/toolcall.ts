// What a tool call card shows, from the ACP tool call as the agent sent it
// (merged over its updates): diffs, text output, terminals, other content.
import { unifiedDiff } from './diff';
import type { TerminalExitStatus, ToolCall } from './types';

export type ToolPart =
  | { kind: 'diff'; path: string; text: string }
  | { kind: 'output'; label: string; text: string }
  | { kind: 'terminal'; terminalId: string }
  | { kind: 'note'; text: string };

/**
 * What a terminal the hub hosts has printed so far (its `terminal_output`
 * events), kept per turn by terminal id. `exit` is set once the command
 * has ended; `dropped` once the hub stopped streaming it (past 1 MiB).
 */
export interface TerminalView {
  text: string;
  exit?: TerminalExitStatus;
  dropped: boolean;
}

/** A terminal's exit status as shown: "exit 0", "exit 2", "signal SIGTERM". */
export function exitLabel(st: TerminalExitStatus): string {
  if (st.signal) return `signal ${st.signal}`;
  return `exit ${st.exitCode ?? '?'}`;
}

/** Output longer than this many lines (or 160 characters a line on average) starts folded. */
export const foldLines = 30;

/** Where the tool call acts: "path:line" or "path". */
export function locations(tc: ToolCall): string[] {
  return (tc.locations ?? []).filter((l) => l && typeof l.path === 'string').map((l) => (l.line ? `${l.path}:${l.line}` : l.path));
}

/**
 * The parts of the card, in the agent's order: its `content` items, then
 * `rawOutput` when it holds text that no content item already shows.
 *
 * Terminals: the hub serves terminal/create, /output, /wait_for_exit itself
 * (acp/terminal.go) and streams what each command prints as
 * `terminal_output` events; the Conversation keeps them per turn by
 * terminal id (TerminalView) and the card shows them under the
 * `{type:"terminal", terminalId}` item, live. Terminals an editor hosts
 * have no such events: the card then names the terminal, and what the
 * command printed shows only when the agent also puts it in `content` or
 * `rawOutput`. When it does for a terminal the card already shows (given in
 * `terminals`), that copy is left out.
 */
export function toolParts(tc: ToolCall, terminals?: Record<string, TerminalView>): ToolPart[] {
  const out: ToolPart[] = [];
  const seen = new Set<string>();
  const shown = new Set<string>();
  for (const c of tc.content ?? []) {
    if (c?.type === 'terminal') {
      const t = terminals?.[String((c as { terminalId?: unknown }).terminalId ?? '')];
      if (t?.text.trim()) shown.add(t.text.trim());
    }
  }
  for (const c of tc.content ?? []) {
    if (!c || typeof c !== 'object') continue;
    if (c.type === 'diff') {
      const d = c as { path?: string; oldText?: string | null; newText?: string };
      const path = String(d.path ?? '');
      out.push({ kind: 'diff', path, text: unifiedDiff(path, d.oldText, d.newText ?? '') });
    } else if (c.type === 'terminal') {
      out.push({ kind: 'terminal', terminalId: String((c as { terminalId?: unknown }).terminalId ?? '') });
    } else if (c.type === 'content') {
      const inner = (c as { content?: Record<string, unknown> }).content ?? {};
      if (inner.type === 'text' && typeof inner.text === 'string') {
        if (inner.text !== '' && !shown.has(inner.text.trim())) out.push({ kind: 'output', label: 'Output', text: inner.text });
        seen.add(inner.text.trim());
      } else if (inner.type === 'resource_link') {
        out.push({ kind: 'note', text: `Link: ${String(inner.name ?? inner.uri ?? '')}` });
      } else if (inner.type === 'resource') {
        const r = (inner.resource ?? {}) as { uri?: string; text?: string };
        if (typeof r.text === 'string') out.push({ kind: 'output', label: r.uri ?? 'Resource', text: r.text });
        else out.push({ kind: 'note', text: `Resource: ${r.uri ?? ''}` });
      } else {
        const mime = typeof inner.mimeType === 'string' ? ` ${inner.mimeType}` : '';
        out.push({ kind: 'note', text: `[${String(inner.type ?? 'content')}${mime}]` });
      }
    } else {
      out.push({ kind: 'note', text: `[${String(c.type)}]` });
    }
  }
  for (const p of rawOutputParts(tc.rawOutput)) {
    if (p.kind !== 'output' || !(seen.has(p.text.trim()) || shown.has(p.text.trim()))) out.push(p);
  }
  return out;
}

/** rawOutput as text: a string, or an object's stdout / stderr / output fields. */
function rawOutputParts(raw: unknown): (ToolPart & { kind: 'output' | 'note' })[] {
  if (typeof raw === 'string') return raw.trim() ? [{ kind: 'output', label: 'Output', text: raw }] : [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const r = raw as Record<string, unknown>;
  const out: (ToolPart & { kind: 'output' | 'note' })[] = [];
  for (const [field, label] of [
    ['output', 'Output'],
    ['stdout', 'stdout'],
    ['stderr', 'stderr'],
  ] as const) {
    const v = r[field];
    if (typeof v === 'string' && v.trim()) out.push({ kind: 'output', label, text: v });
  }
  const code = r.exitCode ?? r.exit_code;
  if (out.length && (typeof code === 'number' || typeof code === 'string')) out.push({ kind: 'note', text: `exit code ${code}` });
  return out;
}

/**
 * The first `lines` lines of text (at most 160 characters a line) — or, with
 * tail, the last ones, as a terminal shows them — whether that cut anything,
 * and the line count.
 */
export function fold(text: string, lines = foldLines, tail = false): { head: string; folded: boolean; total: number } {
  const all = text.split('\n');
  const total = all.length;
  const max = lines * 160;
  let head = total <= lines ? text : (tail ? all.slice(-lines) : all.slice(0, lines)).join('\n');
  if (head.length > max) head = tail ? head.slice(-max) : head.slice(0, max);
  return { head, folded: head.length < text.length, total };
}
