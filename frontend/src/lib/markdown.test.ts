import { describe, expect, it } from 'vitest';
import { StreamSplitter, markdownCache, renderMarkdown, splitBlocks, streamPieces } from './markdown';
import { highlight } from './highlight';

describe('renderMarkdown', () => {
  it('highlights a fenced block that names a language', () => {
    const html = renderMarkdown('```go\nfunc main() { return "x" }\n```');
    const div = document.createElement('div');
    div.innerHTML = html;
    const code = div.querySelector('pre > code')!;
    expect(code.className).toBe('hljs language-go');
    expect(code.querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(code.querySelector('.hljs-string')?.textContent).toBe('"x"');
    expect(code.textContent).toBe('func main() { return "x" }\n');
  });

  it('knows aliases and leaves unnamed or unknown fences plain (no auto-detection)', () => {
    expect(renderMarkdown('```ts\nconst a: number = 1\n```')).toContain('<span class="hljs-keyword">const</span>');
    for (const src of ['```\nfunc main() {}\n```', '```klingon\nfunc main() {}\n```', '    func main() {}']) {
      const html = renderMarkdown(src);
      expect(html).not.toContain('hljs');
      expect(html).toContain('func main() {}');
    }
  });

  it('never lets markup from agent text or code blocks through', () => {
    const cases = [
      'Hello <script>window.pwned = 1</script> there',
      '<img src=x onerror="window.pwned=1">',
      '[click](javascript:window.pwned=1)',
      '```html\n<script>window.pwned = 1</script><img src=x onerror=alert(1)>\n```',
      '```go\n</code></pre><img src=x onerror=alert(1)>\n```',
      '```"><img src=x onerror=alert(1)>\nx\n```',
    ];
    for (const src of cases) {
      const div = document.createElement('div');
      div.innerHTML = renderMarkdown(src);
      expect(div.querySelector('script'), src).toBeNull();
      for (const el of div.querySelectorAll('*')) {
        for (const a of el.attributes) expect(a.name.startsWith('on'), `${src}: ${a.name}`).toBe(false);
        expect(el.getAttribute('href') ?? '', src).not.toMatch(/^javascript:/i);
      }
    }
    // The code is still shown, as text.
    const div = document.createElement('div');
    div.innerHTML = renderMarkdown(cases[3]);
    expect(div.querySelector('code')?.textContent).toContain('<script>window.pwned = 1</script>');
  });

  it('opens links outside without a referrer', () => {
    const div = document.createElement('div');
    div.innerHTML = renderMarkdown('[docs](https://example.com)');
    const a = div.querySelector('a')!;
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
  });
});

describe('the rendered-block cache', () => {
  it('renders a block once, keeps at most its cap, drops the least recently used first, and keeps no live block', () => {
    const cap = markdownCache.cap;
    try {
      markdownCache.cap = 400;
      const a = 'cache **a** ' + 'x'.repeat(60);
      const html = renderMarkdown(a);
      expect(renderMarkdown(a)).toBe(html);
      const before = markdownCache.size();
      renderMarkdown(a);
      expect(markdownCache.size()).toEqual(before); // a hit adds nothing
      renderMarkdown('cache b ' + 'y'.repeat(60));
      renderMarkdown(a); // a is now the most recent
      for (let i = 0; i < 5; i++) renderMarkdown(`cache c${i} ` + 'z'.repeat(60));
      expect(markdownCache.size().chars).toBeLessThanOrEqual(400);
      const kept = markdownCache.size().blocks;
      renderMarkdown('still streaming ' + 'w'.repeat(60), false);
      expect(markdownCache.size().blocks).toBe(kept);
      // The same html, whether cached or not: the cache never changes what is shown.
      expect(renderMarkdown('cache **a** ' + 'x'.repeat(60), false)).toBe(html);
    } finally {
      markdownCache.cap = cap;
    }
  });
});

describe('highlight', () => {
  it('escapes code it does not highlight', () => {
    expect(highlight('<b>&', 'nope')).toEqual({ html: '&#60;b&#62;&#38;' });
    expect(highlight('<b>', 'xml').html).not.toContain('<b>');
  });
});

describe('splitBlocks', () => {
  it('splits at blank lines outside fences only', () => {
    expect(splitBlocks('a\n\nb\n\n```\nc\n\nd\n```\n\ne')).toEqual(['a\n', 'b\n', '```\nc\n\nd\n```\n', 'e']);
  });
});

describe('streamPieces', () => {
  // The pieces with the fence openers they repeat taken off: the block again.
  const rejoin = (pieces: string[], openers: string[]) => pieces.map((p, i) => p.slice(openers[i] ? openers[i].length + 1 : 0)).join('');
  const ticks = Array.from({ length: 400 }, (_, i) => `${1_700_000_000_000 + i}`.padEnd(61)).join('');
  const lines = Array.from({ length: 300 }, (_, i) => `line ${i} of a paragraph that goes on`).join('\n');
  const code = '```go\n' + Array.from({ length: 300 }, (_, i) => `x := ${i} // step`).join('\n') + '\n```\nafter';
  const word = 'w'.repeat(10_000);

  const cases: { name: string; block: string; cutAt: RegExp; fenced: boolean }[] = [
    { name: 'one line of words (cut after a run of blanks)', block: ticks, cutAt: / $/, fenced: false },
    { name: 'soft-wrapped lines (cut at line ends)', block: lines, cutAt: /\n$/, fenced: false },
    { name: 'a code block (cut at line ends, fence reopened)', block: code, cutAt: /\n$/, fenced: true },
    { name: 'one long word (cut at the limit)', block: word, cutAt: /w$/, fenced: false },
  ];
  for (const c of cases) {
    it(`${c.name}: pieces within the limit that rejoin to the block and stay put as it grows`, () => {
      const pieces = streamPieces(c.block, 1024);
      expect(pieces.length).toBeGreaterThan(2);
      const openers = pieces.map((p, i) => (i > 0 && c.fenced && p.startsWith('```go\n') ? '```go' : ''));
      expect(rejoin(pieces, openers)).toBe(c.block);
      for (const [i, p] of pieces.entries()) {
        expect(p.length - (openers[i] ? 6 : 0), `piece ${i}`).toBeLessThanOrEqual(1024 + 64);
        if (i < pieces.length - 1) expect(p, `piece ${i}`).toMatch(c.cutAt);
        expect(p, `piece ${i} starts with blanks`).not.toMatch(/^[ \t]/);
      }
      if (c.fenced) {
        // Every piece but the first is inside the fence, except after it closed.
        expect(openers.slice(1, -1).every(Boolean)).toBe(true);
        expect(pieces[pieces.length - 1]).toMatch(/```\nafter$/);
      }
      // Growing the block changes only the last pieces.
      const shorter = streamPieces(c.block.slice(0, Math.floor(c.block.length * 0.7)), 1024);
      expect(pieces.slice(0, shorter.length - 1)).toEqual(shorter.slice(0, -1));
    });
  }

  it('leaves a block within the limit whole', () => {
    expect(streamPieces('short *text*', 1024)).toEqual(['short *text*']);
    expect(streamPieces('', 1024)).toEqual(['']);
  });

  it('renders the same text as the whole block', () => {
    const text = (html: string) => {
      const div = document.createElement('div');
      div.innerHTML = html;
      return (div.textContent ?? '').replace(/\s+/g, '');
    };
    for (const c of cases) {
      expect(text(streamPieces(c.block, 1024).map((b) => renderMarkdown(b)).join('')), c.name).toBe(text(renderMarkdown(c.block)));
    }
  }, 20_000); // ~3 s alone, more when the whole suite shares two cores
});

describe('StreamSplitter', () => {
  it('returns the blocks cut in pieces; as the text grows, all but the last stay the same', () => {
    const s = new StreamSplitter(64);
    let text = 'Intro\n\n';
    for (let i = 0; i < 40; i++) text += `word${i} `;
    const first = s.split(text);
    expect(first[0]).toBe('Intro\n');
    expect(first.length).toBeGreaterThan(4);
    expect(first.slice(1).join('')).toBe(text.slice('Intro\n\n'.length));
    const second = s.split(text + 'more words ');
    expect(second.length).toBeGreaterThanOrEqual(first.length);
    // What keyed rendering compares: an unchanged piece is not rendered again.
    const same = first.slice(0, -1).map((p, i) => Object.is(p, second[i]));
    expect(same.every(Boolean)).toBe(true);
    expect(second.slice(1).join('')).toBe(text.slice('Intro\n\n'.length) + 'more words ');
  });
});
