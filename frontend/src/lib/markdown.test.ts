import { describe, expect, it } from 'vitest';
import { renderMarkdown, splitBlocks } from './markdown';
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
