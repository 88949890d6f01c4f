// A Server-Sent-Events parser for streams read with fetch (the browser's
// EventSource cannot send X-Client-ID). Follows the WHATWG event-stream
// rules: lines end in CRLF, LF or CR; ':' starts a comment; a blank line
// dispatches; "data" lines join with '\n'; an "id" is kept across messages.

export interface SseMessage {
  /** The last event id seen (the stream's, not only this message's). */
  id: string;
  event: string;
  data: string;
}

export class SseParser {
  private buf = '';
  private data: string[] = [];
  private event = '';
  private hasData = false;
  lastId = '';
  /** The server's "retry:" in milliseconds, when it sent one. */
  retry: number | undefined;

  /** Feeds decoded text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.buf += chunk;
    const out: SseMessage[] = [];
    let start = 0;
    for (;;) {
      let end = -1;
      let next = -1;
      for (let i = start; i < this.buf.length; i++) {
        const c = this.buf.charCodeAt(i);
        if (c === 10) {
          end = i;
          next = i + 1;
          break;
        }
        if (c === 13) {
          // A CR at the end of the buffer may be the first half of CRLF.
          if (i + 1 >= this.buf.length) break;
          end = i;
          next = this.buf.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
          break;
        }
      }
      if (end < 0) break;
      this.line(this.buf.slice(start, end), out);
      start = next;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.hasData) {
        out.push({ id: this.lastId, event: this.event || 'message', data: this.data.join('\n') });
      }
      this.data = [];
      this.event = '';
      this.hasData = false;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
  }
}
