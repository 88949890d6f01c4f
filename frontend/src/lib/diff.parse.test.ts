import { describe, expect, it } from 'vitest';
import { capHunks, lineCount, parseDiff, sideRows, unifiedDiff } from './diff';

const modified = `diff --git a/src/app.ts b/src/app.ts
index 3b18e51..a9c4d2f 100644
--- a/src/app.ts
+++ b/src/app.ts
@@ -1,4 +1,5 @@ export function main() {
 const a = 1;
-const b = 2;
+const b = 3;
+const c = 4;
 const d = 5;
 const e = 6;
@@ -10,2 +11,2 @@
 x
--- not a header: a deleted line
+++ nor this: an added one
`;

describe('parseDiff', () => {
  it('reads a modified file: no header lines kept, numbers on both sides, counts, hunk sections', () => {
    const [f, ...rest] = parseDiff(modified);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ path: 'src/app.ts', status: 'modified', binary: false, additions: 3, deletions: 2 });
    expect(f.oldPath).toBeUndefined();
    expect(f.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines, h.section])).toEqual([
      [1, 4, 1, 5, 'export function main() {'],
      [10, 2, 11, 2, ''],
    ]);
    expect(f.hunks[0].lines).toEqual([
      { kind: 'ctx', text: 'const a = 1;', old: 1, new: 1 },
      { kind: 'del', text: 'const b = 2;', old: 2 },
      { kind: 'add', text: 'const b = 3;', new: 2 },
      { kind: 'add', text: 'const c = 4;', new: 3 },
      { kind: 'ctx', text: 'const d = 5;', old: 3, new: 4 },
      { kind: 'ctx', text: 'const e = 6;', old: 4, new: 5 },
    ]);
    // Lines that look like headers inside a hunk are lines.
    expect(f.hunks[1].lines.map((l) => [l.kind, l.text, l.old, l.new])).toEqual([
      ['ctx', 'x', 10, 11],
      ['del', '-- not a header: a deleted line', 11, undefined],
      ['add', '++ nor this: an added one', undefined, 12],
    ]);
    const all = f.hunks.flatMap((h) => h.lines.map((l) => l.text)).join('\n');
    expect(all).not.toMatch(/diff --git|^index /m);
  });

  it('reads added, deleted, renamed, binary and mode-changed files of one git diff', () => {
    const files = parseDiff(`diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+one
+two
diff --git a/old.txt b/old.txt
deleted file mode 100644
index e69de29..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/a.go b/b.go
similarity index 90%
rename from a.go
rename to b.go
index 1111111..2222222 100644
--- a/a.go
+++ b/b.go
@@ -1 +1 @@
-package a
+package b
diff --git a/same.md b/moved/same.md
similarity index 100%
rename from same.md
rename to moved/same.md
diff --git a/logo.png b/logo.png
index 1111111..2222222 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
`);
    expect(files.map((f) => [f.path, f.status, f.oldPath, f.binary, f.additions, f.deletions])).toEqual([
      ['new.txt', 'added', undefined, false, 2, 0],
      ['old.txt', 'deleted', undefined, false, 0, 1],
      ['b.go', 'renamed', 'a.go', false, 1, 1],
      ['moved/same.md', 'renamed', 'same.md', false, 0, 0],
      ['logo.png', 'modified', undefined, true, 0, 0],
      ['run.sh', 'modified', undefined, false, 0, 0],
    ]);
    expect(files[0].hunks[0].lines.map((l) => l.new)).toEqual([1, 2]);
    expect(files[1].hunks[0].lines.map((l) => l.old)).toEqual([1]);
    expect(files[5].mode).toBe('100644 → 100755');
  });

  it('marks a line followed by "\\ No newline at end of file" and keeps the marker out of the lines', () => {
    const [f] = parseDiff(`--- a/x
+++ b/x
@@ -1,2 +1,2 @@
 a
-b
\\ No newline at end of file
+b
`);
    expect(f.hunks[0].lines).toEqual([
      { kind: 'ctx', text: 'a', old: 1, new: 1 },
      { kind: 'del', text: 'b', old: 2, noNewline: true },
      { kind: 'add', text: 'b', new: 2 },
    ]);
  });

  it('reads the plain diffs unifiedDiff writes, one file each, and quoted git paths', () => {
    const text = unifiedDiff('/p/f.txt', 'a\nb\n', 'a\nB\n') + '\n' + unifiedDiff('g.txt', null, 'new\n');
    const files = parseDiff(text);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['p/f.txt', 'modified', 1, 1],
      ['g.txt', 'added', 1, 0],
    ]);
    const [q] = parseDiff('diff --git "a/with space\\303\\251.txt" "b/with space\\303\\251.txt"\nindex 1..2 100644\n');
    expect(q.path).toBe('with spaceé.txt');
    expect(q.oldPath).toBeUndefined();
  });

  it('pairs deletions with the additions after them side by side, context on both sides', () => {
    const [f] = parseDiff(modified);
    const rows = sideRows(f.hunks[0]);
    expect(rows.map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['const a = 1;', 'const a = 1;'],
      ['const b = 2;', 'const b = 3;'],
      [null, 'const c = 4;'],
      ['const d = 5;', 'const d = 5;'],
      ['const e = 6;', 'const e = 6;'],
    ]);
  });

  it('parses a huge file quickly and caps what is shown', () => {
    const n = 50_000;
    const body = Array.from({ length: n }, (_, i) => `+line ${i}`).join('\n');
    const t0 = performance.now();
    const [f] = parseDiff(`--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${n} @@\n${body}\n`);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(f.additions).toBe(n);
    expect(lineCount(f)).toBe(n);
    const capped = capHunks(f, 400);
    expect(capped.reduce((k, h) => k + h.lines.length, 0)).toBe(400);
    expect(capped[0].lines.at(-1)?.new).toBe(400);
    expect(capHunks(f, n + 1)[0]).toBe(f.hunks[0]);
  });
});
