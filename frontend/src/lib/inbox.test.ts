import { describe, expect, it } from 'vitest';
import { batchTargets, commandOf, duration, inboxOrder, requestText, secondsLeft } from './inbox';
import { inboxAction } from './keymap';
import { permission } from '../test/fakeTransport';

describe('inboxOrder', () => {
  it('puts escalated requests first, then the least time left, then the oldest', () => {
    const ps = [
      permission('a', { deadline: '2026-11-21T06:20:00Z' }),
      permission('b', { deadline: '2026-11-21T06:10:00Z' }),
      permission('c', { deadline: '2026-11-21T06:30:00Z', escalatedAt: '2026-11-21T06:12:00Z' }),
      permission('d', { deadline: '2026-11-21T06:25:00Z', escalatedAt: '2026-11-21T06:11:00Z' }),
      permission('e', { deadline: '2026-11-21T06:10:00Z', createdAt: '2026-11-21T06:00:00Z' }),
    ];
    expect(inboxOrder(ps).map((p) => p.id)).toEqual(['d', 'c', 'e', 'b', 'a']);
    expect(ps.map((p) => p.id)).toEqual(['a', 'b', 'c', 'd', 'e']); // not changed
  });
});

describe('request text', () => {
  it('is the command (string, cmd or argv), else the title', () => {
    expect(commandOf({ command: 'go test ./...' })).toBe('go test ./...');
    expect(commandOf({ cmd: ['ls', '-la'] })).toBe('ls -la');
    expect(commandOf({ argv: ['rm', '-rf', 'x'] })).toBe('rm -rf x');
    expect(commandOf('nope')).toBe('');
    expect(requestText(permission('p', { toolCall: { toolCallId: 'c', title: 'Read a.go', rawInput: { path: 'a.go' } } }))).toBe('Read a.go');
    expect(requestText(permission('p'))).toBe('rm -rf build');
  });

  it("is what the hub says runs, not the agent's title, when the hub described the request", () => {
    const p = permission('p', {
      toolCall: { toolCallId: 'c', title: 'npm test', rawInput: { command: 'npm test' } },
      request: { title: 'npm test', command: 'touch X', argv: ['touch', 'X'] },
    });
    expect(requestText(p)).toBe('touch X');
    expect(requestText(permission('p', { request: { paths: ['/a', '/b'] } }))).toBe('/a, /b');
  });

  it('says the time left', () => {
    expect(duration(65)).toBe('1:05');
    expect(duration(3725)).toBe('1:02:05');
    expect(secondsLeft('2026-11-21T06:15:00Z', Date.parse('2026-11-21T06:14:00.5Z'))).toBe(60);
    expect(secondsLeft('2026-11-21T06:15:00Z', Date.parse('2026-11-21T07:00:00Z'))).toBe(0);
    expect(secondsLeft('', 0)).toBeNaN();
  });
});

describe('inbox keys', () => {
  const k = (key: string, mods: Partial<KeyboardEvent> = {}) =>
    inboxAction({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
  it('maps the keys the panel shows', () => {
    expect(k('ArrowUp')).toBe('up');
    expect(k('ArrowDown')).toBe('down');
    expect(k('Home')).toBe('first');
    expect(k('End')).toBe('last');
    expect(k(' ')).toBe('toggle');
    expect(k('a', { ctrlKey: true })).toBe('all');
    expect(k('A', { metaKey: true })).toBe('all');
    expect(k('Enter')).toBe('approve');
    expect(k('Delete')).toBe('deny');
    expect(k('Escape')).toBe('close');
  });
  it('leaves other keys and chords alone', () => {
    expect(k('a')).toBeUndefined();
    expect(k('Enter', { shiftKey: true })).toBeUndefined();
    expect(k('Enter', { ctrlKey: true })).toBeUndefined();
    expect(k('ArrowDown', { altKey: true })).toBeUndefined();
    expect(k('Tab')).toBeUndefined();
  });
});

describe('batchTargets', () => {
  it('is the selection in list order, else the current row, only ids still listed', () => {
    const order = ['a', 'b', 'c'];
    expect(batchTargets(order, new Set(['c', 'a', 'gone']), 'b')).toEqual(['a', 'c']);
    expect(batchTargets(order, new Set(), 'b')).toEqual(['b']);
    expect(batchTargets(order, new Set(['gone']), 'gone')).toEqual([]);
    expect(batchTargets(order, new Set(), undefined)).toEqual([]);
  });
});
