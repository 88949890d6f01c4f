import { describe, expect, it } from 'vitest';
import { hashOfThread, Router, threadOfHash, type RouterHost } from './router';

function fakeHost(start = '') {
  const entries = [start];
  let at = 0;
  let cb: (() => void) | undefined;
  const host: RouterHost = {
    hash: () => entries[at],
    go(hash, replace) {
      if (replace) entries[at] = hash;
      else {
        entries.splice(at + 1, entries.length, hash);
        at++;
      }
    },
    listen(f) {
      cb = f;
      return () => (cb = undefined);
    },
  };
  return {
    host,
    entries,
    back() {
      at--;
      cb?.();
    },
    forward() {
      at++;
      cb?.();
    },
  };
}

describe('router', () => {
  it('reads and writes thread hashes', () => {
    expect(threadOfHash('#/t/th_1')).toBe('th_1');
    expect(threadOfHash('#/t/a%20b')).toBe('a b');
    expect(threadOfHash('#/t/')).toBeNull();
    expect(threadOfHash('#/t/x/y')).toBeNull();
    expect(threadOfHash('#/t/%E0')).toBeNull();
    expect(threadOfHash('')).toBeNull();
    expect(hashOfThread('th_1')).toBe('#/t/th_1');
    expect(hashOfThread(null)).toBe('#/');
  });

  it('opens the URL at start, pushes selections, follows back and forward', () => {
    const f = fakeHost('#/t/th_1');
    const opened: (string | null)[] = [];
    const r = new Router((id) => opened.push(id), f.host);
    r.start();
    expect(opened).toEqual(['th_1']);
    r.shown('th_1'); // already there: no new entry
    r.shown('th_2');
    r.shown('th_3');
    expect(f.entries).toEqual(['#/t/th_1', '#/t/th_2', '#/t/th_3']);
    f.back();
    expect(opened.at(-1)).toBe('th_2');
    r.shown('th_2'); // the app follows: nothing pushed
    f.back();
    expect(opened.at(-1)).toBe('th_1');
    f.forward();
    expect(opened.at(-1)).toBe('th_2');
    expect(f.entries.length).toBe(3);
    r.shown(null); // deleted: replaced
    expect(f.entries).toEqual(['#/t/th_1', '#/', '#/t/th_3']);
    r.close();
  });
});
