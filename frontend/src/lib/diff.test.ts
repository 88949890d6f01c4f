import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './diff';
import { renderMarkdown, splitBlocks } from './markdown';
import { isAbsolute } from './paths';

describe('unifiedDiff', () => {
  it('writes hunks with context', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n') + '\n';
    const now = old.replace('b\n', 'B\n').replace('i\n', 'i\nI2\n');
    // 7 unchanged lines between the changes (> 2×3 context): two hunks, as GNU diff writes them.
    expect(unifiedDiff('/p/f.txt', old, now).split('\n')).toEqual([
      '--- a/p/f.txt',
      '+++ b/p/f.txt',
      '@@ -1,5 +1,5 @@',
      ' a',
      '-b',
      '+B',
      ' c',
      ' d',
      ' e',
      '@@ -7,4 +7,5 @@',
      ' g',
      ' h',
      ' i',
      '+I2',
      ' j',
    ]);
    const close = old.replace('b\n', 'B\n').replace('g\n', 'G\n');
    expect(unifiedDiff('f', old, close).split('\n')[2]).toBe('@@ -1,10 +1,10 @@');
  });

  it('treats a missing old text as a new file', () => {
    expect(unifiedDiff('x.go', null, 'package x\n')).toBe('--- /dev/null\n+++ b/x.go\n@@ -0,0 +1,1 @@\n+package x');
  });

  it('splits far-apart changes into separate hunks', () => {
    const old = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n');
    const now = old.replace('l2', 'X').replace('l25', 'Y');
    const hunks = unifiedDiff('f', old, now).split('\n').filter((l) => l.startsWith('@@'));
    expect(hunks).toEqual(['@@ -1,6 +1,6 @@', '@@ -23,7 +23,7 @@']);
  });
});

describe('renderMarkdown', () => {
  it('renders GFM and strips scripts and handlers', () => {
    const html = renderMarkdown('# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) [ok](https://e.x) <b onclick="x()">b</b>');
    expect(html).toContain('<h1>T</h1>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('onclick');
    expect(html).toContain('<a href="https://e.x" target="_blank" rel="noopener noreferrer">ok</a>');
  });
});

describe('isAbsolute', () => {
  it('accepts Unix, Windows and UNC absolute paths only', () => {
    expect(['/home/me', 'C:\\src', 'd:/x', '\\\\srv\\share'].map(isAbsolute)).toEqual([true, true, true, true]);
    expect(['src', './x', '~/x', 'C:x', ''].map(isAbsolute)).toEqual([false, false, false, false, false]);
  });
});

describe('splitBlocks', () => {
  it('splits at blank lines, never inside a code fence', () => {
    const text = 'para one\nstill one\n\n\n```\ncode\n\nmore code\n```\n\n- a\n- b\n\ntail';
    expect(splitBlocks(text)).toEqual(['para one\nstill one\n', '```\ncode\n\nmore code\n```\n', '- a\n- b\n', 'tail']);
  });
  it('keeps an open fence (still streaming) in one block', () => {
    expect(splitBlocks('a\n\n~~~js\nx\n\ny')).toEqual(['a\n', '~~~js\nx\n\ny']);
  });
  it('renders the same as a whole for plain paragraphs', () => {
    const text = 'one **b**\n\ntwo\n\n```\nc\n\nd\n```';
    expect(splitBlocks(text).map((b) => renderMarkdown(b)).join('')).toBe(renderMarkdown(text));
  });
});
