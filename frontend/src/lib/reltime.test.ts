import { describe, expect, it } from 'vitest';
import { fullTime, relTime } from './reltime';

describe('relTime', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it('counts minutes, hours and days, then shows the date', () => {
    expect(relTime('2026-11-28T11:59:30Z', now)).toBe('now');
    expect(relTime('2026-11-28T13:00:00Z', now)).toBe('now');
    expect(relTime('2026-11-28T11:55:00Z', now)).toBe('5m');
    expect(relTime('2026-11-28T09:00:00Z', now)).toBe('3h');
    expect(relTime('2026-11-26T12:00:00Z', now)).toBe('2d');
    expect(relTime('2026-11-01T12:00:00Z', now)).toMatch(/Nov|11/);
    expect(relTime('2025-11-01T12:00:00Z', now)).toMatch(/2025/);
    expect(relTime('not a date', now)).toBe('');
  });
});

describe('fullTime', () => {
  it("is the locale's date and time, empty for none or garbage", () => {
    const iso = '2026-11-28T11:55:00Z';
    expect(fullTime(iso)).toBe(new Date(iso).toLocaleString());
    expect(fullTime(iso)).not.toBe('');
    expect(fullTime(undefined)).toBe('');
    expect(fullTime('')).toBe('');
    expect(fullTime('not a date')).toBe('');
  });
});
