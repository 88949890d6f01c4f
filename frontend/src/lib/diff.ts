// A unified diff of two texts (line based), for tool call "diff" content.

type Op = [' ' | '-' | '+', string];

function lines(s: string): string[] {
  if (s === '') return [];
  const l = s.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

function ops(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) {
    // Too big to align: everything out, everything in.
    return [...a.map((l): Op => ['-', l]), ...b.map((l): Op => ['+', l])];
  }
  // LCS table from the end.
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push([' ', a[i]]);
      i++;
      j++;
    } else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) out.push(['-', a[i++]]);
    else out.push(['+', b[j++]]);
  }
  while (i < n) out.push(['-', a[i++]]);
  while (j < m) out.push(['+', b[j++]]);
  return out;
}

/** The diff as text, with ---/+++ headers and @@ hunks of 3 context lines. */
export function unifiedDiff(path: string, oldText: string | null | undefined, newText: string, context = 3): string {
  const a = lines(oldText ?? '');
  const b = lines(newText);
  const o = ops(a, b);
  const head = [`--- ${oldText == null ? '/dev/null' : 'a/' + path.replace(/^\//, '')}`, `+++ b/${path.replace(/^\//, '')}`];
  const changed = o.map((x) => x[0] !== ' ');
  const out: string[] = [];
  let k = 0;
  // Line numbers before each op.
  const ai: number[] = [];
  const bi: number[] = [];
  let x = 0;
  let y = 0;
  for (const [c] of o) {
    ai.push(x);
    bi.push(y);
    if (c !== '+') x++;
    if (c !== '-') y++;
  }
  while (k < o.length) {
    if (!changed[k]) {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    // Extend while the next change is within 2*context lines.
    for (;;) {
      while (end < o.length && changed[end]) end++;
      let next = end;
      while (next < o.length && !changed[next]) next++;
      if (next < o.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(o.length, end + context);
    const slice = o.slice(start, stop);
    const al = slice.filter((s) => s[0] !== '+').length;
    const bl = slice.filter((s) => s[0] !== '-').length;
    out.push(`@@ -${al ? ai[start] + 1 : ai[start]},${al} +${bl ? bi[start] + 1 : bi[start]},${bl} @@`);
    for (const [c, l] of slice) out.push(c + l);
    k = stop;
  }
  return [...head, ...out].join('\n');
}

// ---- Reading a unified diff (git's format, or the one above) into a model
// the Changes view shows: files, hunks, lines with their old and new
// numbers, and side-by-side rows.

export type DiffLineKind = 'add' | 'del' | 'ctx';

/** One line of a hunk: its text without the marker, and its numbers in the old and new file. */
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** Line number in the old file (context and deletions). */
  old?: number;
  /** Line number in the new file (context and additions). */
  new?: number;
  /** "\ No newline at end of file" followed this line. */
  noNewline?: boolean;
}

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What follows the second @@: git's enclosing function or section, often "". */
  section: string;
  lines: DiffLine[];
}

export type DiffStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'copied';

export interface DiffFile {
  /** The path in the new tree (the old one for a deleted file). */
  path: string;
  /** The path in the old tree when it differs (a rename or copy). */
  oldPath?: string;
  status: DiffStatus;
  /** A binary file: git says only that it differs, no lines. */
  binary: boolean;
  /** A mode change ("100644 → 100755"), when there is one. */
  mode?: string;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

const escapes: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };

/** The text of a C-quoted git path (without its quotes): escapes, and octal bytes read as UTF-8. */
function unquote(q: string): string {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < q.length; i++) {
    const ch = q[i];
    if (ch !== '\\' || i + 1 >= q.length) {
      bytes.push(...enc.encode(ch));
      continue;
    }
    const oct = /^[0-7]{3}/.exec(q.slice(i + 1));
    if (oct) {
      bytes.push(parseInt(oct[0], 8));
      i += 3;
    } else {
      const e = q[++i];
      bytes.push(...(escapes[e] !== undefined ? [escapes[e]] : enc.encode(e)));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** A path of a header line: C-quoted by git when it holds odd characters, then without its a/ or b/. */
function headerPath(raw: string): string {
  let p = raw.replace(/\t.*$/, ''); // GNU diff puts a date after a tab
  if (p.length > 1 && p.startsWith('"') && p.endsWith('"')) p = unquote(p.slice(1, -1));
  return p.replace(/^[ab]\//, '');
}

/** The two paths of "diff --git a/x b/y" (ambiguous with spaces: split where both halves agree, else in the middle). */
function gitHeaderPaths(rest: string): [string, string] {
  const q = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
  if (q) return [headerPath(q[1]), headerPath(q[2])];
  const half = rest.indexOf(' b/');
  if (half > 0) return [headerPath(rest.slice(0, half)), headerPath(rest.slice(half + 1))];
  return [headerPath(rest), headerPath(rest)];
}

function newFile(path = ''): DiffFile {
  return { path, status: 'modified', binary: false, hunks: [], additions: 0, deletions: 0 };
}

/**
 * The files of a unified diff: git's ("diff --git" with its extended
 * headers: new, deleted, rename, copy, mode, index, binary) or a plain one
 * ("---"/"+++" then hunks). Header lines become the file's fields and are
 * not kept as lines; "\ No newline at end of file" marks the line before
 * it. Lines outside any file or hunk are skipped.
 */
export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: DiffHunk | undefined;
  let oldNo = 0;
  let newNo = 0;
  let last: DiffLine | undefined;
  let oldMode = '';
  /** Between "diff --git" and its first hunk: "---"/"+++" belong to that file. */
  let gitHeader = false;
  const start = (path = '') => {
    file = newFile(path);
    files.push(file);
    hunk = undefined;
    last = undefined;
    oldMode = '';
  };
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    // Inside a hunk, the counts say how many lines belong to it, so a
    // deleted line that reads "-- x" or an added "++ y" is never a header.
    if (hunk && file) {
      const c = line[0];
      const roomOld = oldNo < hunk.oldStart + hunk.oldLines;
      const roomNew = newNo < hunk.newStart + hunk.newLines;
      if (c === '\\') {
        if (last) last.noNewline = true;
        continue;
      }
      if ((c === ' ' || line === '') && roomOld && roomNew) {
        last = { kind: 'ctx', text: line.slice(1), old: oldNo++, new: newNo++ };
        hunk.lines.push(last);
        continue;
      }
      if (c === '-' && roomOld) {
        last = { kind: 'del', text: line.slice(1), old: oldNo++ };
        hunk.lines.push(last);
        file.deletions++;
        continue;
      }
      if (c === '+' && roomNew) {
        last = { kind: 'add', text: line.slice(1), new: newNo++ };
        hunk.lines.push(last);
        file.additions++;
        continue;
      }
      hunk = undefined; // the hunk is full: this line starts something else
    }
    if (line.startsWith('diff --git ')) {
      const [a, b] = gitHeaderPaths(line.slice('diff --git '.length));
      start(b);
      gitHeader = true;
      if (a !== b) file!.oldPath = a;
      continue;
    }
    const h = hunkHeader.exec(line);
    if (h) {
      if (!file) start();
      gitHeader = false;
      hunk = {
        oldStart: +h[1],
        oldLines: h[2] === undefined ? 1 : +h[2],
        newStart: +h[3],
        newLines: h[4] === undefined ? 1 : +h[4],
        section: h[5].trim(),
        lines: [],
      };
      // An empty side starts "at" line 0: its numbers are never shown.
      oldNo = hunk.oldLines ? hunk.oldStart : hunk.oldStart + 1;
      newNo = hunk.newLines ? hunk.newStart : hunk.newStart + 1;
      file!.hunks.push(hunk);
      last = undefined;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      // A plain diff has no "diff --git": its "---" starts a file.
      if (!gitHeader) start();
      gitHeader = false;
      const a = line.slice(4);
      const b = lines[++i].slice(4);
      const f = file!;
      if (a === '/dev/null') f.status = 'added';
      if (b === '/dev/null') f.status = 'deleted';
      const ap = a === '/dev/null' ? '' : headerPath(a);
      const bp = b === '/dev/null' ? '' : headerPath(b);
      f.path = bp || ap || f.path;
      if (ap && bp && ap !== bp) f.oldPath = ap;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('new file mode')) file.status = 'added';
    else if (line.startsWith('deleted file mode')) file.status = 'deleted';
    else if (line.startsWith('rename from ')) {
      file.status = 'renamed';
      file.oldPath = headerPath(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) file.path = headerPath(line.slice('rename to '.length));
    else if (line.startsWith('copy from ')) {
      file.status = 'copied';
      file.oldPath = headerPath(line.slice('copy from '.length));
    } else if (line.startsWith('copy to ')) file.path = headerPath(line.slice('copy to '.length));
    else if (line.startsWith('old mode ')) oldMode = line.slice('old mode '.length);
    else if (line.startsWith('new mode ')) file.mode = `${oldMode} → ${line.slice('new mode '.length)}`;
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
  }
  for (const f of files) if (f.status === 'modified' && f.oldPath && f.oldPath !== f.path) f.status = 'renamed';
  return files;
}

/** One row of a side-by-side view: the old line (left) beside the new one (right); undefined is blank. */
export interface SideRow {
  left?: DiffLine;
  right?: DiffLine;
}

/** A hunk as side-by-side rows: context on both sides, each run of deletions beside the additions that follow it. */
export function sideRows(h: DiffHunk): SideRow[] {
  const rows: SideRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ left: dels[i], right: adds[i] });
    dels = [];
    adds = [];
  };
  for (const l of h.lines) {
    if (l.kind === 'del') {
      if (adds.length) flush();
      dels.push(l);
    } else if (l.kind === 'add') adds.push(l);
    else {
      flush();
      rows.push({ left: l, right: l });
    }
  }
  flush();
  return rows;
}

/** The number of lines of a file's hunks (what showing it all would render). */
export function lineCount(f: DiffFile): number {
  return f.hunks.reduce((n, h) => n + h.lines.length, 0);
}

/**
 * The file's hunks cut to their first max lines (a hunk cut short keeps its
 * first lines), for a view that shows a huge diff in steps.
 */
export function capHunks(f: DiffFile, max: number): DiffHunk[] {
  const out: DiffHunk[] = [];
  let left = max;
  for (const h of f.hunks) {
    if (left <= 0) break;
    out.push(h.lines.length <= left ? h : { ...h, lines: h.lines.slice(0, left) });
    left -= h.lines.length;
  }
  return out;
}
