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
