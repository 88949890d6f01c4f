// Agent text as sanitized HTML: marked (GFM, fenced code highlighted by
// lib/highlight) then DOMPurify over the whole result, highlighting
// included. Agent text is untrusted (prompt injection makes any agent
// hostile), so what it renders to is held to an allowlist: no element may
// fetch anything when it is shown, cover the app, or move the window away
// from the app. docs/SECURITY.md ("What the window and the browser page
// load") lists the rules; markdown.test.ts tries each attack.
import { Marked, type Tokens } from 'marked';
import DOMPurify, { type DOMPurify as Purifier } from 'dompurify';
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

/**
 * The elements agent markdown may produce: text structure only. Gone, with
 * what they would do: img stays but only with a data: source (a remote one
 * becomes a link, below); audio, video, picture, source, track (load and
 * play media); iframe, object, embed, frame (other documents); map, area
 * (links outside the link rule); dialog (covers the window); form, input,
 * button, select, textarea (submit or take input); style, link, meta, base
 * (restyle the app, fetch, refresh, redirect relative URLs); svg and math.
 */
const allowedTags = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'cite', 'code', 'col', 'colgroup', 'dd', 'del', 'details',
  'dfn', 'div', 'dl', 'dt', 'em', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img',
  'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strong',
  'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'time', 'tr', 'u', 'ul', 'var', 'wbr',
];

/**
 * The attributes kept. Gone: id, name (clobber the app's DOM, target its
 * CSS), style, srcset, poster, background, ping, download, usemap, target
 * (set below), popover, every on* handler. class is kept only for the
 * highlighter's own names (hljs…, language-…, its sub-scopes title_,
 * function_): the app's classes
 * (.backdrop covers the window) are taken off.
 */
const allowedAttrs = ['href', 'src', 'alt', 'title', 'class', 'colspan', 'rowspan', 'start', 'reversed', 'open', 'align', 'datetime', 'lang'];

/** Link targets agent text may have: the user's browser opens them. */
const linkSchemes = new Set(['http:', 'https:', 'mailto:']);

/** href when it is an absolute http(s) or mailto URL (as written, trimmed), else undefined (relative, javascript:, data:, …). */
export function safeLink(href: string): string | undefined {
  const h = href.trim();
  let u: URL;
  try {
    u = new URL(h);
  } catch {
    return undefined; // relative: it would resolve against the app (wails:// or the hub)
  }
  return linkSchemes.has(u.protocol) ? h : undefined;
}

/** A data: image, which loads nothing; everything else an img could load from. */
const dataImage = /^data:image\/[a-z0-9.+-]+[;,]/i;

let purifier: Purifier | undefined;
function purify(): Purifier {
  if (purifier) return purifier;
  // An instance of its own: the hooks apply to agent text only.
  const p = DOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element;
    if (!el.getAttribute) return;
    const cls = el.getAttribute('class');
    if (cls !== null) {
      const kept = cls.split(/\s+/).filter((c) => /^(hljs(-[\w-]+)?|language-[\w+#.-]+|[a-z]+_+)$/.test(c));
      if (kept.length) el.setAttribute('class', kept.join(' '));
      else el.removeAttribute('class');
    }
    // The link rule, for every href: only <a>, only http(s)/mailto, always
    // in a new browsing context without opener or referrer.
    const href = el.getAttribute('href');
    if (href !== null) {
      const ok = el.tagName === 'A' ? safeLink(href) : undefined;
      if (ok) {
        el.setAttribute('href', ok);
        el.setAttribute('target', '_blank');
        el.setAttribute('rel', 'noopener noreferrer');
      } else {
        el.removeAttribute('href');
      }
    }
    if (el.hasAttribute('src') && !(el.tagName === 'IMG' && dataImage.test(el.getAttribute('src') ?? ''))) {
      // Turned into a link after sanitizing (imagesToLinks); nothing loads it meanwhile: the document is inert.
      if (el.tagName !== 'IMG') el.removeAttribute('src');
    }
  });
  purifier = p;
  return p;
}

/**
 * Replaces every img whose source is not a data: URL by what the user may
 * click: a link to the image (http/https) labelled with its alt text, or
 * the alt text alone. Rendering then fetches nothing: a hostile message
 * cannot send data out in an image URL the moment it is shown.
 */
function imagesToLinks(body: HTMLElement): void {
  for (const img of Array.from(body.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (dataImage.test(src)) continue;
    const alt = img.getAttribute('alt') ?? '';
    const doc = img.ownerDocument;
    const href = src ? safeLink(src) : undefined;
    if (href) {
      const a = doc.createElement('a');
      a.setAttribute('href', href);
      a.setAttribute('target', '_blank');
      a.setAttribute('rel', 'noopener noreferrer');
      a.setAttribute('title', href);
      a.textContent = `Image: ${alt || href}`;
      img.replaceWith(a);
    } else {
      img.replaceWith(doc.createTextNode(alt ? `[Image: ${alt}]` : '[Image]'));
    }
  }
}

/**
 * One block of agent markdown as sanitized HTML. Throws what marked throws
 * (a stack overflow on deep nesting): MarkdownBlock catches it and shows
 * the text plain. Call markdownLimit first for text of unknown size.
 */
export function renderMarkdown(text: string, remember = true): string {
  const hit = rendered.get(text);
  if (hit !== undefined) {
    // Most recently used last: the first entry is the one to drop.
    rendered.delete(text);
    rendered.set(text, hit);
    return hit;
  }
  const html = sanitized(text);
  if (!remember) return html;
  rendered.set(text, html);
  renderedChars += text.length + html.length;
  for (const [k, v] of rendered) {
    if (renderedChars <= markdownCache.cap) break;
    rendered.delete(k);
    renderedChars -= k.length + v.length;
  }
  return html;
}

/**
 * Blocks already rendered, by their text, least recently used first: a
 * thread opened again, a turn shown again after "Show earlier turns" or a
 * remount costs a lookup instead of marked and DOMPurify (a third of the
 * time of opening a long thread). The result depends on the text alone
 * (no option or hook changes between calls), so an entry never goes
 * stale. Bounded by markdownCache.cap characters of text and HTML
 * together; a block still streaming is not kept (remember false: each
 * chunk would add an entry that is never asked for again).
 */
const rendered = new Map<string, string>();
let renderedChars = 0;
export const markdownCache = {
  cap: 8 * 1024 * 1024,
  /** Blocks kept, and their characters (text and HTML). */
  size: () => ({ blocks: rendered.size, chars: renderedChars }),
};

function sanitized(text: string): string {
  const html = md.parse(text) as string;
  const body = purify().sanitize(html, {
    ALLOWED_TAGS: allowedTags,
    ALLOWED_ATTR: allowedAttrs,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM: true,
  }) as HTMLElement;
  imagesToLinks(body);
  return body.innerHTML;
}

/**
 * The bounds past which a block is shown as plain text instead of markdown
 * (MarkdownBlock offers "Render anyway"): marked's inline parsing is
 * quadratic or worse on runs of emphasis delimiters (200 KB of "*a" froze
 * the page for 15 s; 32 KB of "_a" takes 4 s) and recursive on nesting (2 KB
 * of ">" overflows the stack). Measured on this machine's Chromium/Node:
 * a block at every bound renders in well under 100 ms.
 */
export const markdownLimits = {
  /** Characters in the block, code included. */
  chars: 256 * 1024,
  /** Characters outside fenced code (where inline parsing runs). */
  prose: 32 * 1024,
  /** Emphasis delimiters (* _ ~) outside fenced code. */
  delimiters: 1000,
  /** Nesting: blockquote and list markers at a line's start, plus their indentation in steps of 2. */
  depth: 16,
};

/**
 * Why block is not rendered as markdown ("too long", …), or '' when it is
 * within markdownLimits. One pass over the text, linear.
 */
export function markdownLimit(block: string, limits = markdownLimits): string {
  if (block.length > limits.chars) return `longer than ${Math.round(limits.chars / 1024)} KB`;
  let prose = 0;
  let delims = 0;
  let fence = '';
  let pos = 0;
  while (pos <= block.length) {
    let nl = block.indexOf('\n', pos);
    if (nl < 0) nl = block.length;
    const line = block.slice(pos, nl);
    pos = nl + 1;
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1];
      else if (m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = '';
      continue;
    }
    if (fence) continue;
    prose += line.length;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c === 42 || c === 95 || c === 126) delims++; // * _ ~
    }
    if (lineDepth(line) > limits.depth) return `nested deeper than ${limits.depth} levels`;
  }
  if (prose > limits.prose) return `more than ${Math.round(limits.prose / 1024)} KB of text outside code`;
  if (delims > limits.delimiters) return `more than ${limits.delimiters} emphasis marks`;
  return '';
}

/**
 * How deep a line nests: its leading > and list markers, plus, when it has
 * any, its indentation in steps of 2 (a list nests by indenting its
 * markers). Indented text without a marker (code) does not nest.
 */
function lineDepth(line: string): number {
  let depth = 0;
  let indent = 0;
  let i = 0;
  for (;;) {
    const c = line[i];
    if (c === ' ') indent++;
    else if (c === '\t') indent += 4;
    else if (c === '>') depth++;
    else if ((c === '-' || c === '*' || c === '+') && (line[i + 1] === ' ' || line[i + 1] === '\t')) depth++;
    else if (c >= '0' && c <= '9') {
      let j = i;
      while (j < line.length && j - i < 9 && line[j] >= '0' && line[j] <= '9') j++;
      if ((line[j] === '.' || line[j] === ')') && (line[j + 1] === ' ' || line[j + 1] === '\t')) {
        depth++;
        i = j;
      } else break;
    } else break;
    i++;
    if (depth > 1000) break; // deep enough to refuse; stop counting
  }
  return depth ? depth + (indent >> 1) : 0;
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
