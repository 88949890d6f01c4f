// The design system's checks (src/styles/tokens.test.ts runs them; the
// page docs/DESIGN-SYSTEM.md explains them): rawValues finds a raw colour
// or pixel value in a component's styles, tokenColours and contrast read
// tokens.css's light-dark() pairs and measure WCAG contrast.

/** A raw value found where a token belongs: where, and what. */
export interface Finding {
  file: string;
  line: number;
  /** The declaration or attribute, as written (trimmed). */
  text: string;
  /** What is wrong with it: "hex colour", "rgb()", "named colour red", "px value". */
  why: string;
}

/** CSS named colours, lower case (transparent and currentColor are allowed). */
const NAMED = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown ' +
    'burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan ' +
    'darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid ' +
    'darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet ' +
    'deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ' +
    'ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki ' +
    'lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow ' +
    'lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine ' +
    'mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise ' +
    'mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab ' +
    'orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru ' +
    'pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown ' +
    'seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan ' +
    'teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen'
  ).split(' '),
);

/** What is raw in one CSS value, or "" when it uses tokens only. */
export function rawIn(value: string): string {
  const v = value.replace(/\/\*[\s\S]*?\*\//g, '');
  const hex = v.match(/#[0-9a-f]{3,8}\b/i);
  if (hex) return `hex colour ${hex[0]}`;
  const fn = v.match(/\b(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(/i);
  if (fn) return `${fn[1].toLowerCase()}()`;
  // Custom property names (--warn-soft) and quoted strings hold words, not colours.
  const words = v.replace(/--[\w-]+/g, ' ').replace(/(['"]).*?\1/g, ' ');
  const px = words.match(/(?<![\w.-])-?\d*\.?\d+px\b/);
  if (px) return `px value ${px[0]}`;
  for (const w of words.toLowerCase().match(/[a-z][a-z-]*/g) ?? []) {
    if (NAMED.has(w)) return `named colour ${w}`;
  }
  return '';
}

/** The line (1-based) of offset i in text. */
function lineAt(text: string, i: number): number {
  let n = 1;
  for (let k = 0; k < i; k++) if (text.charCodeAt(k) === 10) n++;
  return n;
}

/**
 * The declarations of a style sheet whose value is raw, at their line in
 * the file (offset is where the sheet starts in it). Media queries may
 * hold px (var() cannot be used there): they are not declarations.
 */
export function rawInSheet(file: string, whole: string, sheet: string, offset: number): Finding[] {
  const out: Finding[] = [];
  // Blank comments out, keeping offsets, so a commented-out value is not a finding.
  const css = sheet.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  const decl = /(^|[;{])(\s*)(-{0,2}[a-zA-Z][\w-]*)\s*:\s*([^;{}]*)(?=[;}])/g;
  for (let m = decl.exec(css); m; m = decl.exec(css)) {
    const why = rawIn(m[4]);
    if (!why) continue;
    const at = offset + m.index + m[1].length + m[2].length;
    out.push({ file, line: lineAt(whole, at), text: `${m[3]}: ${m[4].trim()}`, why });
  }
  return out;
}

/**
 * The raw values of one .svelte file: in its <style> blocks and in the
 * style attributes (style="…", style={…}, style:prop="…") of its markup.
 */
export function rawValues(file: string, source: string): Finding[] {
  const out: Finding[] = [];
  const style = /<style[^>]*>([\s\S]*?)<\/style>/g;
  for (let m = style.exec(source); m; m = style.exec(source)) {
    out.push(...rawInSheet(file, source, m[1], m.index + m[0].indexOf('>') + 1));
  }
  // Markup: the file without its script and style blocks (same offsets).
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  const markup = source.replace(/<script[\s\S]*?<\/script>/g, blank).replace(/<style[\s\S]*?<\/style>/g, blank);
  const attr = /\sstyle(:[\w-]+)?=("[^"]*"|'[^']*'|\{(?:[^{}]|\{[^{}]*\})*\})/g;
  for (let m = attr.exec(markup); m; m = attr.exec(markup)) {
    const quoted = /^["']/.test(m[2]);
    const why = rawIn(quoted ? m[2].slice(1, -1) : m[2]);
    if (why) out.push({ file, line: lineAt(source, m.index + 1), text: m[0].trim(), why });
  }
  return out.sort((a, b) => a.line - b.line);
}

/** One finding per line, as the test prints it: file:line  why  (text). */
export function report(findings: Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}  ${f.why}  (${f.text})`).join('\n');
}

/** A token's colour in the light and the dark scheme, as #rrggbb. */
export type Pair = { light: string; dark: string };

/**
 * The colour tokens of tokens.css's :root: each light-dark(a, b) or plain
 * hex value, var(--x) resolved. Tokens that are not colours are left out.
 */
export function tokenColours(css: string): Map<string, Pair> {
  const raw = new Map<string, string>();
  const root = css.slice(0, css.indexOf('}'));
  for (const m of root.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) raw.set(m[1], m[2].trim());
  const out = new Map<string, Pair>();
  const resolve = (name: string, depth = 0): Pair | undefined => {
    const v = raw.get(name);
    if (!v || depth > 8) return undefined;
    const ref = v.match(/^var\((--[\w-]+)\)$/);
    if (ref) return resolve(ref[1], depth + 1);
    const ld = v.match(/^light-dark\(\s*(#[0-9a-f]{3,8})\s*,\s*(#[0-9a-f]{3,8})\s*\)$/i);
    if (ld) return { light: ld[1], dark: ld[2] };
    if (/^#[0-9a-f]{3,8}$/i.test(v)) return { light: v, dark: v };
    return undefined;
  };
  for (const name of raw.keys()) {
    const p = resolve(name);
    if (p) out.set(name, p);
  }
  return out;
}

/** The relative luminance of a #rgb or #rrggbb colour (WCAG 2.x). */
export function luminance(hex: string): number {
  let h = hex.slice(1);
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
