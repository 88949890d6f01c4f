import { describe, expect, it } from 'vitest';
import { acceptFor, attach, fileURI, maxFileBytes, promptCapabilities, turnContent, type Attachment } from './attachments';

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' });
const txt = () => new File(['package main\n'], 'main.go', { type: '' });
const withPath = (f: File, path: string) => Object.assign(f, { path });

describe('attachments', () => {
  it('reads promptCapabilities from the agent, flat or nested', () => {
    const agent = { id: 'a', name: 'A', status: 'available' as const, command: 'a' };
    expect(promptCapabilities({ ...agent, capabilities: { promptCapabilities: { image: true, embeddedContext: true } } })).toEqual({ image: true, audio: false, embeddedContext: true });
    expect(promptCapabilities({ ...agent, capabilities: { agentCapabilities: { promptCapabilities: { audio: true } } } })).toEqual({ image: false, audio: true, embeddedContext: false });
    expect(promptCapabilities(agent)).toEqual({ image: false, audio: false, embeddedContext: false });
    expect(acceptFor({ image: true })).toBe('image/*');
    expect(acceptFor({ image: true, embeddedContext: true })).toBe('');
  });

  it('sends an image as an image block when the agent takes images', async () => {
    const a = (await attach(png(), { image: true })) as Attachment;
    expect(a.kind).toBe('image');
    expect(a.block).toEqual({ type: 'image', data: 'iVBORw==', mimeType: 'image/png' });
  });

  it('embeds a text file as a resource with its text when the agent takes embedded context', async () => {
    const a = (await attach(txt(), { embeddedContext: true })) as Attachment;
    expect(a.block).toEqual({ type: 'resource', resource: { uri: 'attachment:main.go', text: 'package main\n', mimeType: 'text/plain' } });
    const b = (await attach(withPath(txt(), '/home/me/my app/main.go'), { embeddedContext: true })) as Attachment;
    expect((b.block.resource as { uri: string }).uri).toBe('file:///home/me/my%20app/main.go');
    // Binary: a blob.
    const bin = (await attach(new File([new Uint8Array([0, 1, 2])], 'x.bin'), { embeddedContext: true })) as Attachment;
    expect(bin.block).toEqual({ type: 'resource', resource: { uri: 'attachment:x.bin', blob: 'AAEC', mimeType: 'application/octet-stream' } });
  });

  it('links a file by its real path, and refuses when no path is known', async () => {
    const a = (await attach(withPath(txt(), '/src/main.go'), {})) as Attachment;
    expect(a.block).toEqual({ type: 'resource_link', uri: 'file:///src/main.go', name: 'main.go', mimeType: 'application/octet-stream', size: 13 });
    const why = await attach(txt(), {}, 0, 'Codex');
    expect(why).toMatch(/^main.go: Codex does not accept file contents, and the file's location on disk is not known here/);
    expect(await attach(png(), { embeddedContext: false }, 0, 'Codex')).toMatch(/Codex does not accept images/);
    expect(fileURI('C:\\Users\\me\\a b.txt')).toBe('file:///C:/Users/me/a%20b.txt');
  });

  it('refuses a file over the size cap, and a total over the body limit', async () => {
    const big = new File([new Uint8Array(maxFileBytes + 1)], 'big.png', { type: 'image/png' });
    expect(await attach(big, { image: true })).toBe('big.png (5.0 MiB) is larger than 5.0 MiB, the limit for one file.');
    const four = new File([new Uint8Array(4 * 1024 * 1024)], 'four.png', { type: 'image/png' });
    const first = (await attach(four, { image: true })) as Attachment;
    expect(first.cost).toBeGreaterThan(5 * 1024 * 1024); // base64
    expect(await attach(four, { image: true }, first.cost)).toMatch(/^four.png: the attachments would add up to more than 9.0 MiB/);
  }, 30_000); // base64 of 4 MiB in jsdom: ~2 s alone, past vitest's 5 s default on a loaded machine

  it('builds the turn input: text alone, or text then blocks', async () => {
    expect(turnContent('hi', [])).toEqual({ input: 'hi' });
    const a = (await attach(png(), { image: true })) as Attachment;
    expect(turnContent('look', [a])).toEqual({ content: [{ type: 'text', text: 'look' }, a.block] });
    expect(turnContent('  ', [a])).toEqual({ content: [a.block] });
  });
});
