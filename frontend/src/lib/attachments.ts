// Files attached to a prompt, as ACP content blocks the agent accepts.
//
// ACP lets every agent take text and resource_link blocks; image, audio
// and resource (embedded file contents) only when its promptCapabilities
// say so, and the hub refuses a prompt with a block the agent did not
// advertise. So a file becomes:
//   - an image (audio) block when it is one and the agent takes images (audio);
//   - a resource block with its text (or base64 blob) when the agent takes
//     embedded context;
//   - otherwise a resource_link to file://<path>, but only when the real
//     path is known: a browser (and the Wails webview) never says where a
//     picked, dropped or pasted file lives, so there it is refused with a
//     message rather than sent as a link the agent cannot open.
import type { Agent, PromptCapabilities } from './types';

/** Per file: a base64 copy of 5 MiB is ~6.7 MiB, under the hub's 10 MiB body. */
export const maxFileBytes = 5 * 1024 * 1024;
/** All attachments of one prompt, as sent (base64 included), stay under this. */
export const maxTotalBytes = 9 * 1024 * 1024;

export type ContentBlock = { type: string; [k: string]: unknown };

export interface Attachment {
  id: number;
  name: string;
  size: number;
  /** What it is sent as. */
  kind: 'image' | 'audio' | 'text' | 'file' | 'link';
  block: ContentBlock;
  /** Bytes it adds to the request body. */
  cost: number;
}

/** The agent's promptCapabilities, from Agent.capabilities (its raw agentCapabilities). */
export function promptCapabilities(agent: Agent | undefined): PromptCapabilities {
  const caps = agent?.capabilities as
    | { promptCapabilities?: PromptCapabilities; agentCapabilities?: { promptCapabilities?: PromptCapabilities } }
    | undefined;
  const p = caps?.promptCapabilities ?? caps?.agentCapabilities?.promptCapabilities;
  return { image: p?.image === true, audio: p?.audio === true, embeddedContext: p?.embeddedContext === true };
}

/** What the file input should accept; "" when anything may be attached. */
export function acceptFor(caps: PromptCapabilities): string {
  if (caps.embeddedContext) return '';
  return [caps.image ? 'image/*' : '', caps.audio ? 'audio/*' : ''].filter(Boolean).join(',');
}

/** Whether the agent takes any attachment at all from this UI. */
export function canAttach(caps: PromptCapabilities): boolean {
  return !!(caps.image || caps.audio || caps.embeddedContext);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The file's absolute path, when the platform tells it (Electron-style File.path); else "". */
export function filePath(f: File): string {
  const p = (f as File & { path?: unknown }).path;
  return typeof p === 'string' && (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p)) ? p : '';
}

export function fileURI(path: string): string {
  const posix = path.replace(/\\/g, '/');
  const enc = posix.split('/').map(encodeURIComponent).join('/').replace(/^([A-Za-z])%3A/, '$1:');
  return posix.startsWith('/') ? `file://${enc}` : `file:///${enc}`;
}

export function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** UTF-8 text with no NUL in its first 8 KiB. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

async function bytesOf(f: File): Promise<Uint8Array> {
  return new Uint8Array(await f.arrayBuffer());
}

let nextId = 1;

/**
 * Turns a file into an attachment the agent accepts, or a sentence saying
 * why it cannot be sent. used is what the prompt's attachments already cost.
 */
export async function attach(
  f: File,
  caps: PromptCapabilities,
  used = 0,
  agentName = 'This agent',
): Promise<Attachment | string> {
  const name = f.name || (f.type.startsWith('image/') ? 'pasted image' : 'file');
  if (f.size > maxFileBytes) {
    return `${name} (${formatBytes(f.size)}) is larger than ${formatBytes(maxFileBytes)}, the limit for one file.`;
  }
  const path = filePath(f);
  const mimeType = f.type || 'application/octet-stream';
  const media = f.type.startsWith('image/') ? 'image' : f.type.startsWith('audio/') ? 'audio' : '';
  let a: Omit<Attachment, 'id'> | undefined;
  if (media && caps[media as 'image' | 'audio']) {
    const data = base64(await bytesOf(f));
    a = { name, size: f.size, kind: media as 'image' | 'audio', block: { type: media, data, mimeType }, cost: data.length };
  } else if (caps.embeddedContext) {
    const bytes = await bytesOf(f);
    // Without a real path the uri only names the file.
    const uri = path ? fileURI(path) : `attachment:${encodeURIComponent(name)}`;
    const text = media ? undefined : decodeText(bytes);
    if (text !== undefined) {
      a = { name, size: f.size, kind: 'text', block: { type: 'resource', resource: { uri, text, mimeType: f.type || 'text/plain' } }, cost: JSON.stringify(text).length };
    } else {
      const blob = base64(bytes);
      a = { name, size: f.size, kind: 'file', block: { type: 'resource', resource: { uri, blob, mimeType } }, cost: blob.length };
    }
  } else if (path) {
    a = { name, size: f.size, kind: 'link', block: { type: 'resource_link', uri: fileURI(path), name, mimeType, size: f.size }, cost: path.length + name.length + 100 };
  } else {
    const what = media === 'image' ? 'images' : media === 'audio' ? 'audio' : 'file contents';
    return `${name}: ${agentName} does not accept ${what}, and the file's location on disk is not known here, so it cannot be sent as a link either. Mention its path in the message instead.`;
  }
  if (used + a.cost > maxTotalBytes) {
    return `${name}: the attachments would add up to more than ${formatBytes(maxTotalBytes)}, the most one message can carry.`;
  }
  return { id: nextId++, ...a };
}

/** The turn input: plain text alone, or content blocks (the text first) when there are attachments. */
export function turnContent(text: string, attachments: Attachment[]): { input: string } | { content: ContentBlock[] } {
  if (!attachments.length) return { input: text };
  const blocks: ContentBlock[] = text.trim() ? [{ type: 'text', text }] : [];
  return { content: [...blocks, ...attachments.map((a) => a.block)] };
}
