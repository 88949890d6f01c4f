import { describe, expect, it } from 'vitest';
import { SseParser } from './sse';

describe('SseParser', () => {
  it('parses the hub frames: id, event, one-line data', () => {
    const p = new SseParser();
    const m = p.push('id: 812\nevent: turn_started\ndata: {"seq":812}\n\n');
    expect(m).toEqual([{ id: '812', event: 'turn_started', data: '{"seq":812}' }]);
  });

  it('joins frames split anywhere, including inside CRLF', () => {
    const text = 'id: 1\r\nevent: a\r\ndata: x\r\n\r\nid: 2\r\nevent: b\r\ndata: y\r\n\r\n';
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(got, `cut at ${cut}`).toEqual([
        { id: '1', event: 'a', data: 'x' },
        { id: '2', event: 'b', data: 'y' },
      ]);
    }
  });

  it('reads byte by byte, CR-only line ends too', () => {
    const p = new SseParser();
    const got = [];
    for (const ch of 'data: one\rdata: two\r\r') got.push(...p.push(ch));
    // The final CR may be half of a CRLF: the message completes with the next byte.
    got.push(...p.push('\n'));
    expect(got).toEqual([{ id: '', event: 'message', data: 'one\ntwo' }]);
  });

  it('skips comments (pings), keeps the last id, ignores frames without data', () => {
    const p = new SseParser();
    const got = p.push(': ping\n\nid: 7\n\nevent: x\ndata\n\nretry: 3000\nfoo: bar\ndata:no-space\n\n');
    expect(got).toEqual([
      { id: '7', event: 'x', data: '' },
      { id: '7', event: 'message', data: 'no-space' },
    ]);
    expect(p.retry).toBe(3000);
  });

  it('parses many frames in one chunk (the hub batches)', () => {
    let s = '';
    for (let i = 1; i <= 500; i++) s += `id: ${i}\nevent: message_delta\ndata: {"seq":${i}}\n\n`;
    const got = new SseParser().push(s);
    expect(got).toHaveLength(500);
    expect(got[499]).toEqual({ id: '500', event: 'message_delta', data: '{"seq":500}' });
  });
});
