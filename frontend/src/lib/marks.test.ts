import { describe, expect, it } from 'vitest';
import { ThreadMarks, marksKey } from './marks.svelte';
import { loadRecent, mergeRecent, rememberFolder } from './recent';
import { memoryStorage } from '../test/memoryStorage';

describe('ThreadMarks', () => {
  it('marks a turn that completed unseen as unread until seen, and keeps it over a reload', () => {
    const st = memoryStorage();
    const m = new ThreadMarks('browser-1', st);
    m.completed('th_1', 10, 'completed', false);
    m.completed('th_2', 11, 'failed', true);
    expect(m.unread('th_1')).toBe(true);
    expect(m.unread('th_2')).toBe(false);
    expect(m.last('th_2')).toBe('failed');

    // A reload: the same client's marks come back.
    const again = new ThreadMarks('browser-1', st);
    expect(again.unread('th_1')).toBe(true);
    expect(again.last('th_2')).toBe('failed');
    // Another client's are its own.
    expect(new ThreadMarks('browser-2', st).unread('th_1')).toBe(false);

    again.see('th_1');
    expect(again.unread('th_1')).toBe(false);
    expect(new ThreadMarks('browser-1', st).unread('th_1')).toBe(false);
    expect(JSON.parse(st.getItem(marksKey('browser-1'))!)).toMatchObject({ th_1: { done: 10, seen: 10 } });
  });

  it('ignores a replayed completion, clears the last status when a turn starts, learns it from history', () => {
    const m = new ThreadMarks('c', memoryStorage());
    m.completed('th_1', 10, 'interrupted', true);
    m.completed('th_1', 10, 'interrupted', false); // the same event again
    expect(m.unread('th_1')).toBe(false);
    m.started('th_1');
    expect(m.last('th_1')).toBeUndefined();
    m.learn('th_1', 'failed');
    expect(m.last('th_1')).toBe('failed');
    m.learn('th_1', 'running'); // not an end
    expect(m.last('th_1')).toBe('failed');
    m.drop('th_1');
    expect(m.marks).toEqual({});
  });

  it('forgets threads a full list no longer has; survives unreadable storage', () => {
    const st = memoryStorage();
    st.setItem(marksKey('c'), '{not json');
    const m = new ThreadMarks('c', st);
    m.completed('a', 1, 'completed', false);
    m.completed('b', 2, 'completed', false);
    m.keepOnly(new Set(['b']));
    expect(Object.keys(m.marks)).toEqual(['b']);
    expect(Object.keys(JSON.parse(st.getItem(marksKey('c'))!))).toEqual(['b']);
  });
});

describe('recent folders', () => {
  it('remembers used folders first, then the threads’, without repeats, at most 8', () => {
    const st = memoryStorage();
    expect(loadRecent(st)).toEqual([]);
    rememberFolder('/a', st);
    rememberFolder('/b', st);
    expect(rememberFolder('/a', st)).toEqual(['/a', '/b']);
    expect(loadRecent(st)).toEqual(['/a', '/b']);
    const threads = ['/c', '/b', '/d', '/e', '/f', '/g', '/h', '/i', '/j'];
    expect(mergeRecent(loadRecent(st), threads)).toEqual(['/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h']);
    st.setItem('switchboard.recentFolders', '"not a list"');
    expect(loadRecent(st)).toEqual([]);
  });
});
