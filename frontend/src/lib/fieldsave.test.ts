import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { FieldSave } from './fieldsave.svelte';
import { HubError } from './transport';
import { languageOfPath } from './highlight';

describe('FieldSave', () => {
  it('runs a field’s saves in order, so the last value committed is the one saved, and says Saved once both are done', async () => {
    const s = new FieldSave();
    const saved: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = s.run(async () => {
      await gate;
      saved.push('2m');
    });
    const second = s.run(async () => saved.push('2s'));
    flushSync();
    expect(s.state).toBe('saving');
    expect(saved).toEqual([]);
    release();
    expect(await first).toBe(true);
    expect(await second).toBe(true);
    expect(saved).toEqual(['2m', '2s']);
    expect(s.state).toBe('saved');
  });

  it('keeps the hub’s refusal with its code, and reset clears it', async () => {
    const s = new FieldSave();
    expect(await s.run(async () => Promise.reject(new HubError('INVALID_ARGUMENT', 'too long')))).toBe(false);
    expect([s.state, s.error]).toEqual(['error', 'too long (INVALID_ARGUMENT)']);
    s.reset();
    expect([s.state, s.error]).toEqual(['idle', '']);
    s.refuse('Give a whole number greater than 0.');
    expect([s.state, s.error]).toEqual(['error', 'Give a whole number greater than 0.']);
  });
});

describe('languageOfPath', () => {
  it('names the language of a file by its extension or name, and none for an unknown one', () => {
    expect(['a/b/main.go', 'x.ts', 'x.tsx', 'App.svelte', 'Makefile', 'Dockerfile', 'c.toml', 'notes.txt', 'README'].map(languageOfPath)).toEqual([
      'go',
      'ts',
      'typescript',
      'xml',
      'makefile',
      'dockerfile',
      'ini',
      undefined,
      undefined,
    ]);
  });
});
