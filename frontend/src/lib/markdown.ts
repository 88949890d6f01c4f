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

/**
 * Cuts a block that is still growing into pieces of about limit
 * characters, so a streaming message re-renders (and the browser lays out)
 * only its last piece, however long one paragraph or code block gets.
 *
 * A cut falls after a line end, else after a run of blanks, else at limit.
 * Where a piece ends depends only on the text before limit, so the earlier
 * pieces stay the same strings as the block grows. A piece that begins
 * inside a fenced code block starts with that fence's opener line again.
 * Pieces render like the whole block except at the cuts (a paragraph or
 * code block shown in two): render the whole block once it stops growing.
 */
export function streamPieces(block: string, limit = 4096): string[] {
  if (block.length <= limit) return [block];
  const out: string[] = [];
  let pos = 0;
  let opener = ''; // the fence opener line the next piece is inside, '' outside any fence
  let lineStart = true;
  while (block.length - pos > limit) {
    const end = pos + limit;
    const half = pos + Math.floor(limit / 2);
    // Searched in the second half of the window only: lastIndexOf on the
    // whole block would scan back to its start for every piece.
    const window = block.slice(half, end);
    const nl = window.lastIndexOf('\n');
    const atLine = nl >= 0;
    let cut = half + nl + 1;
    if (!atLine) {
      const blank = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
      cut = blank >= 0 ? half + blank + 1 : end;
      // The whole run of blanks stays with this piece (four leading blanks would start indented code).
      while (cut < block.length && (block[cut] === ' ' || block[cut] === '\t')) cut++;
    }
    const text = block.slice(pos, cut);
    out.push(opener ? `${opener}\n${text}` : text);
    opener = fenceAfter(text, opener, lineStart);
    lineStart = atLine;
    pos = cut;
  }
  const rest = block.slice(pos);
  out.push(opener ? `${opener}\n${rest}` : rest);
  return out;
}

/** The fence opener line open after text, starting inside opener ('' for none). */
function fenceAfter(text: string, opener: string, lineStart: boolean): string {
  const fenceRe = /^ {0,3}(`{3,}|~{3,})/;
  let fence = opener ? (fenceRe.exec(opener)?.[1] ?? '') : '';
  let open = opener;
  let pos = 0;
  if (!lineStart) pos = text.indexOf('\n') + 1 || text.length + 1; // a line's tail is no fence
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const line = text.slice(pos, nl);
    const m = fenceRe.exec(line);
    if (m) {
      if (!fence) {
        fence = m[1];
        open = line;
      } else if (m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) {
        fence = '';
        open = '';
      }
    }
    pos = nl + 1;
  }
  return open;
}

/**
 * The pieces a streaming text renders as: its blocks (splitBlocks), each cut
 * by streamPieces. A piece unchanged since the previous call is returned as
 * the same string as then, and is a copy: a slice would keep alive the whole
 * text it was cut from, a new one every frame while the text streams in
 * (hundreds of MB for a message of a few MB).
 */
export class StreamSplitter {
  private kept: string[] = [];
  constructor(private limit = 4096) {}

  split(text: string): string[] {
    const pieces = splitBlocks(text).flatMap((b) => streamPieces(b, this.limit));
    const last = pieces.length - 1;
    // The last piece changes with every chunk: not worth a copy.
    this.kept = pieces.map((p, i) => (i === last ? p : this.kept[i] === p ? this.kept[i] : detach(p)));
    return this.kept;
  }
}

/** A copy of s that does not share the string it was sliced from (V8 flattens the concatenation into a new string). */
function detach(s: string): string {
  return (' ' + s).slice(1);
}
