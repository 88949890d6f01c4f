import { describe, expect, it } from 'vitest';
import { normalizeEvent, normalizePermission, normalizeToolCall } from './shapes';
import { toolParts, locations } from './toolcall';
import type { HubEvent } from './types';

describe('normalizeToolCall', () => {
  const cases: { name: string; in: unknown; want: unknown }[] = [
    { name: 'a numeric status becomes its text', in: { toolCallId: 't', status: 5 }, want: { toolCallId: 't', status: '5' } },
    { name: 'an object title is left out', in: { toolCallId: 't', title: { a: 1 }, kind: ['x'] }, want: { toolCallId: 't' } },
    { name: 'content that is not an array is left out', in: { toolCallId: 't', content: { type: 'diff' } }, want: { toolCallId: 't' } },
    { name: 'content as a string is left out', in: { toolCallId: 't', content: 'hello' }, want: { toolCallId: 't' } },
    { name: 'locations that are not an array are left out', in: { toolCallId: 't', locations: { path: '/x' } }, want: { toolCallId: 't' } },
    {
      name: 'items that are not objects are dropped, the others shaped',
      in: {
        toolCallId: 't',
        content: [null, 7, 'x', [], { type: 'diff', path: 3, oldText: 4, newText: { a: 1 } }, { type: 'terminal', terminalId: null }, { type: 'content', content: 'text' }, { type: 9 }],
        locations: [null, { path: 5, line: 'x' }, { path: '/a', line: 2 }, { line: 3 }, 'p'],
      },
      want: {
        toolCallId: 't',
        content: [
          { type: 'diff', path: '3', oldText: null, newText: '' },
          { type: 'terminal', terminalId: '' },
          { type: 'content', content: { type: '' } },
          { type: '9' },
        ],
        locations: [
          { path: '5', line: null },
          { path: '/a', line: 2 },
        ],
      },
    },
    { name: 'no toolCallId: no tool call', in: { status: 'completed' }, want: undefined },
    { name: 'not an object', in: [1, 2], want: undefined },
    { name: 'raw input and output stay as sent', in: { toolCallId: 't', rawInput: 5, rawOutput: null }, want: { toolCallId: 't', rawInput: 5, rawOutput: null } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const tc = normalizeToolCall(c.in);
      expect(tc).toEqual(c.want);
      // And what the card reads from it does not throw.
      if (tc) {
        expect(() => toolParts(tc)).not.toThrow();
        expect(() => locations(tc)).not.toThrow();
      }
    });
  }

  it('the same shapes throw in the views without it (the fixture is hostile)', () => {
    expect(() => toolParts({ toolCallId: 't', content: { type: 'diff' } } as never)).toThrow();
    expect(() => locations({ toolCallId: 't', locations: { path: '/x' } } as never)).toThrow();
  });
});

describe('normalizePermission', () => {
  it('shapes its tool call, options and fields', () => {
    expect(
      normalizePermission({
        id: 'p1',
        threadId: 'th',
        turnId: 5,
        status: 'nonsense',
        toolCall: { toolCallId: 'c', locations: 'everywhere', status: 3 },
        options: [{ optionId: 'a', name: 7, kind: 'allow_once' }, null, 'x'],
        deadline: null,
        decidedBy: { who: 'me' },
      }),
    ).toEqual({
      id: 'p1',
      threadId: 'th',
      turnId: '5',
      status: 'pending',
      toolCall: { toolCallId: 'c', status: '3' },
      options: [{ optionId: 'a', name: '7', kind: 'allow_once' }],
      deadline: '',
    });
    expect(normalizePermission({ id: 'p', toolCall: 'x', options: 'y' })?.toolCall).toEqual({ toolCallId: '' });
    expect(normalizePermission({ toolCall: {} })).toBeUndefined();
  });

  it('keeps the host a permission of another machine carries (issue 30)', () => {
    expect(normalizePermission({ id: 'p1@box', host: 'box' })?.host).toBe('box');
    expect(normalizePermission({ id: 'p1', host: 7 })?.host).toBe('7');
    expect(normalizePermission({ id: 'p1' })).not.toHaveProperty('host');
  });

  it('keeps the hub kind and request, shaped', () => {
    const p = normalizePermission({
      id: 'p1',
      kind: 'terminal',
      request: {
        kind: 'execute',
        title: 7,
        argv: ['touch', 3, 'X'],
        cwd: '/w',
        env: [{ name: 'PATH', value: '/x' }, { name: 'TOKEN', hidden: true, value: 5 }, { value: 'nameless' }, 'x'],
        paths: 'nope',
        flags: ['shell'],
      },
    });
    expect(p?.kind).toBe('terminal');
    expect(p?.request).toEqual({
      kind: 'execute',
      argv: ['touch', 'X'],
      cwd: '/w',
      env: [{ name: 'PATH', value: '/x' }, { name: 'TOKEN', hidden: true }],
      flags: ['shell'],
    });
    expect(normalizePermission({ id: 'p', request: 'x', kind: 3 })).not.toHaveProperty('request');
    expect(normalizePermission({ id: 'p', request: 'x', kind: 3 })).not.toHaveProperty('kind');
  });
});

describe('normalizeEvent', () => {
  const e = (type: string, payload: Record<string, unknown>): HubEvent => ({ seq: 1, type, threadId: 'th', turnId: 'tu', at: '', ...payload });
  it('shapes tool calls, permissions and plans, and leaves other events alone', () => {
    expect(normalizeEvent(e('tool_call_update', { toolCall: { toolCallId: 'c', content: 3 } })).toolCall).toEqual({ toolCallId: 'c' });
    expect(normalizeEvent(e('plan', { entries: [{ content: 1, status: 2 }, 'x'] })).entries).toEqual([{ content: '1', priority: '', status: '2' }]);
    expect(normalizeEvent(e('plan', { entries: 'x' })).entries).toEqual([]);
    const other = e('message_delta', { text: 'hi' });
    expect(normalizeEvent(other)).toBe(other);
  });
});
