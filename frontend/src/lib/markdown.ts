// Agent text as sanitized HTML: marked (GFM, fenced code highlighted by
// lib/highlight) then DOMPurify over the whole result, highlighting
// included. Links open outside the app and never carry a referrer.
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { escapeHTML, highlight } from './highlight';

const md = new Marked(
  { gfm: true, breaks: false, async: false },
  {
    renderer: {
      code({ text, lang }: Tokens.Code): string {
        const h = highlight(text.replace(/\n$/, ''), lang);
        const cls = h.language ? ` class="hljs language-${escapeHTML(h.language)}"` : '';
        // Like marked's own: the code ends with one newline.
        return `<pre><code${cls}>${h.html}\n</code></pre>\n`;
      },
    },
  },
);

let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

export function renderMarkdown(text: string): string {
  hook();
  const html = md.parse(text) as string;
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
    FORBID_ATTR: ['style'],
  });
}

/**
 * Splits markdown at blank lines outside code fences, so a streaming
 * message re-renders only its last block: the cost of a chunk stays flat
 * however long the message grows.
 */
export function splitBlocks(text: string): string[] {
  const out: string[] = [];
  let fence = '';
  let start = 0;
  let pos = 0;
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const line = text.slice(pos, nl);
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1];
      else if (m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = '';
    } else if (!fence && line.trim() === '' && nl > start && pos > start) {
      out.push(text.slice(start, pos));
      start = nl + 1;
    } else if (!fence && line.trim() === '' && pos === start) {
      start = nl + 1;
    }
    pos = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
