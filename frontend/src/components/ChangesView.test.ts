import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ChangesView from './ChangesView.svelte';
import type { Changes, FileChange, WorkApi } from '../lib/work';
import type { Thread } from '../lib/types';

const thread: Thread = {
  id: 'th_1',
  agent: 'sdk',
  cwd: '/home/me/app',
  title: 'Fix',
  clientId: 'window',
  status: 'idle',
  createdAt: '2026-11-25T00:00:00Z',
  updatedAt: '2026-11-25T00:00:00Z',
};

const goDiff = `diff --git a/cmd/main.go b/cmd/main.go
index 3b18e51..a9c4d2f 100644
--- a/cmd/main.go
+++ b/cmd/main.go
@@ -1,4 +1,5 @@ package main
 package main
-func old() {}
+func main() {}
+// added
 var x = 1
 var y = 2
`;
const hostile = `diff --git a/page.html b/page.html
index 1..2 100644
--- a/page.html
+++ b/page.html
@@ -1 +1 @@
-<p>hi</p>
+<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>
\\ No newline at end of file
`;

function view(files: FileChange[], source: Changes['source'] = 'git') {
  const work = {
    changes: vi.fn(async () => ({ source, files })),
    revert: vi.fn(async () => []),
    restore: vi.fn(async () => []),
  } as unknown as WorkApi;
  render(ChangesView, { thread, work, turnIds: [] });
  return work;
}

const rowsOf = (table: HTMLElement) =>
  [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

describe('ChangesView', () => {
  it('lists the files with status and +/− counts, and a click jumps to the file', async () => {
    view([
      { path: 'cmd/main.go', status: 'modified', diff: goDiff },
      { path: 'page.html', status: 'added', diff: hostile },
    ]);
    const list = await screen.findByRole('navigation', { name: 'Changed files' });
    const entries = within(list).getAllByRole('button');
    expect(entries.map((b) => b.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['M cmd/main.go +2 −1', 'A page.html +1 −1']);
    await fireEvent.click(entries[1]);
    expect(document.activeElement?.textContent).toContain('page.html');
    expect(document.activeElement?.closest('section')?.getAttribute('aria-labelledby')).toBe('change-1-name');
  });

  it('shows old and new line numbers, no diff --git/index/---/+++ lines, and the hunk header as a separator', async () => {
    view([{ path: 'cmd/main.go', status: 'modified', diff: goDiff }]);
    const table = await screen.findByRole('table', { name: 'Changes to cmd/main.go' });
    expect(rowsOf(table)).toEqual([
      ['@@ -1,4 +1,5 @@package main'],
      ['1', '1', ' package main'],
      ['2', '', '-func old() {}'],
      ['', '2', '+func main() {}'],
      ['', '3', '+// added'],
      ['3', '4', ' var x = 1'],
      ['4', '5', ' var y = 2'],
    ]);
    expect(table.querySelector('tr.hunk')).toBeTruthy();
    expect(table.textContent).not.toMatch(/diff --git|index 3b18e51|--- a\/|\+\+\+ b\//);
    // Syntax colours by the file's extension.
    expect(table.querySelector('.add .hljs-keyword')?.textContent).toBe('func');
    expect(table.querySelector('.add .hljs-comment')?.textContent).toBe('// added');
  });

  it('aligns old beside new side by side, blanks where a side has no line', async () => {
    view([{ path: 'cmd/main.go', status: 'modified', diff: goDiff }]);
    await screen.findByRole('table', { name: 'Changes to cmd/main.go' });
    // Narrow (jsdom measures 0): unified until asked.
    expect(screen.getByRole('button', { name: 'Unified' }).getAttribute('aria-pressed')).toBe('true');
    await fireEvent.click(screen.getByRole('button', { name: 'Side by side' }));
    expect(screen.getByRole('button', { name: 'Side by side' }).getAttribute('aria-pressed')).toBe('true');
    const table = screen.getByRole('table', { name: 'Changes to cmd/main.go' });
    expect(rowsOf(table)).toEqual([
      ['@@ -1,4 +1,5 @@package main'],
      ['1', ' package main', '1', ' package main'],
      ['2', '-func old() {}', '2', '+func main() {}'],
      ['', '', '3', '+// added'],
      ['3', ' var x = 1', '4', ' var x = 1'],
      ['4', ' var y = 2', '5', ' var y = 2'],
    ]);
    expect(table.querySelectorAll('td.blank')).toHaveLength(2);
  });

  it('shows a hostile line as text, never as markup, in both layouts', async () => {
    view([{ path: 'page.html', status: 'modified', diff: hostile }]);
    for (const layout of ['Unified', 'Side by side']) {
      await fireEvent.click(await screen.findByRole('button', { name: layout }));
      const table = screen.getByRole('table', { name: 'Changes to page.html' });
      expect(table.querySelector('img, script')).toBeNull();
      expect(table.textContent).toContain('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>');
      expect(table.textContent).toContain('no newline at end of file');
      expect(table.textContent).not.toContain('\\ No newline');
    }
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('says a binary file, a rename with the same contents, and a mode change in words', async () => {
    view([
      { path: 'logo.png', status: 'modified', diff: 'diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n' },
      { path: 'b.md', oldPath: 'a.md', status: 'renamed', diff: 'diff --git a/a.md b/b.md\nsimilarity index 100%\nrename from a.md\nrename to b.md\n' },
      { path: 'run.sh', status: 'modified', diff: 'diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n' },
    ]);
    expect(await screen.findByText('A binary file: its contents are not shown.')).toBeTruthy();
    expect(screen.getByText('Renamed; the contents are the same.')).toBeTruthy();
    expect(screen.getByText('Mode changed: 100644 → 100755.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'a.md → b.md' })).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a huge file in steps: the first 500 lines, then Show more', async () => {
    const n = 1200;
    const body = Array.from({ length: n }, (_, i) => `+line ${i + 1}`).join('\n');
    view([{ path: 'big.txt', status: 'added', diff: `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${n} @@\n${body}\n` }]);
    const table = await screen.findByRole('table', { name: 'Changes to big.txt' });
    expect(table.querySelectorAll('tr.add')).toHaveLength(500);
    expect(screen.getByText(/Showing 500 of 1,200 lines/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Show 700 more' }));
    expect(table.querySelectorAll('tr.add')).toHaveLength(1200);
    expect(table.querySelector('tr.add:last-child')?.textContent).toBe('1200+line 1200');
    expect(screen.queryByText(/Showing/)).toBeNull();
  });
});
