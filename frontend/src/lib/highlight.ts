// Syntax highlighting for fenced code in agent messages: highlight.js core
// with a fixed set of languages registered by hand (the full bundle is
// ~1 MB). Only a fence that names a known language is highlighted; there is
// no auto-detection, so plain output is never dressed up as code.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = {
  bash, c, cpp, csharp, css, diff, dockerfile, go, ini, java, javascript, json, kotlin,
  makefile, markdown, php, python, ruby, rust, shell, sql, swift, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.configure({ ignoreUnescapedHTML: true });

/** Code longer than this is shown plain: highlighting it would stall a frame. */
export const maxHighlight = 200_000;

export function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * The code as HTML: highlight.js spans (class "hljs-…") when lang names a
 * registered language (or one of its aliases: ts, sh, py, yml, html, …),
 * else the escaped text. Either way every character of code is escaped.
 */
export function highlight(code: string, lang: string | undefined): { html: string; language?: string } {
  const name = (lang ?? '').trim().split(/\s/)[0].toLowerCase();
  const known = name ? hljs.getLanguage(name) : undefined;
  if (!known || code.length > maxHighlight) return { html: escapeHTML(code) };
  try {
    const r = hljs.highlight(code, { language: name, ignoreIllegals: true });
    return { html: r.value, language: r.language ?? name };
  } catch {
    return { html: escapeHTML(code) };
  }
}

/** Extensions and file names highlight.js does not know by itself, and the language they are. */
const pathLanguages: Record<string, string> = {
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  tsx: 'typescript',
  mts: 'typescript',
  svelte: 'xml',
  vue: 'xml',
  htm: 'xml',
  svg: 'xml',
  toml: 'ini',
  mod: 'go',
  makefile: 'makefile',
  dockerfile: 'dockerfile',
};

/** The language to highlight a file in, from its extension (or its name: Makefile, Dockerfile); undefined: plain. */
export function languageOfPath(path: string): string | undefined {
  const name = path.split('/').pop()?.toLowerCase() ?? '';
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  const lang = pathLanguages[ext] ?? ext;
  return hljs.getLanguage(lang) ? lang : undefined;
}
