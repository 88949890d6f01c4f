import { describe, expect, it } from 'vitest';
import { pageTitle, topmost } from './title';

describe('pageTitle', () => {
  it('is the plain app name when nothing is open', () => {
    expect(pageTitle('')).toBe('Switchboard');
    expect(pageTitle('   ')).toBe('Switchboard');
  });
  it('names what is shown, then the app', () => {
    expect(pageTitle('Fix the build')).toBe('Fix the build — Switchboard');
  });
  it('puts a pending count first, only when positive', () => {
    expect(pageTitle('Fix the build', 2)).toBe('(2) Fix the build — Switchboard');
    expect(pageTitle('', 1)).toBe('(1) Switchboard');
    expect(pageTitle('x', 0)).toBe('x — Switchboard');
  });
});

describe('topmost', () => {
  it('is empty with no panel open', () => {
    expect(topmost({})).toBe('');
  });
  it('names the panel Escape closes first', () => {
    expect(topmost({ approvals: true })).toBe('Approvals');
    expect(topmost({ approvals: true, help: true })).toBe('Keyboard shortcuts');
    expect(topmost({ approvals: true, usage: true })).toBe('Usage');
    expect(topmost({ approvals: true, history: true })).toBe('Decision history');
    expect(topmost({ search: true, help: true })).toBe('Search');
  });
});
