import { describe, expect, it } from 'vitest';
import { DraftMap } from './drafts';
import { exportFileName } from './download';
import { memoryStorage } from '../test/memoryStorage';

describe('drafts', () => {
  it('keeps the text across a reload (a new map over the same storage), not the attachments', () => {
    const s = memoryStorage();
    const a = new DraftMap(s);
    a.set('th_1', { text: 'half a thought', attachments: [{ name: 'x' } as never] });
    a.saveText('th_2', 'typed');
    const b = new DraftMap(s); // the page reloaded
    expect(b.get('th_1')).toEqual({ text: 'half a thought', attachments: [] });
    expect(b.get('th_2')?.text).toBe('typed');
    b.delete('th_1');
    b.saveText('th_2', '');
    expect(new DraftMap(s).get('th_1')).toBeUndefined();
    expect(new DraftMap(s).get('th_2')).toBeUndefined();
  });

  it('works without storage', () => {
    const m = new DraftMap(undefined);
    m.set('th_1', { text: 'x', attachments: [] });
    expect(m.get('th_1')?.text).toBe('x');
  });
});

describe('exportFileName', () => {
  it('keeps names to safe characters', () => {
    expect(exportFileName('Fix the build', 'md')).toBe('switchboard-Fix_the_build.md');
    expect(exportFileName('../../etc/passwd', 'jsonl')).toBe('switchboard-etc_passwd.jsonl');
    expect(exportFileName('…', 'md')).toBe('switchboard-threads.md');
  });
});
