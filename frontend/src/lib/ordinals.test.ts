import { describe, expect, it } from 'vitest';
import { ordinalSuffix, ordinals } from './ordinals';

describe('ordinals', () => {
  it('numbers each item among those of the same name, in order, skipping items without an id', () => {
    const items = [
      { id: 'a', name: 'Run command' },
      { id: 'b', name: 'Edit file' },
      { id: undefined, name: 'Run command' },
      { id: 'c', name: 'Run command' },
      { id: 'd', name: 'Run command' },
    ];
    expect(ordinals(items, (t) => t.id, (t) => t.name)).toEqual({ a: 1, b: 1, c: 2, d: 3 });
  });

  it('says nothing for the first, " (n)" from the second on', () => {
    expect([undefined, 0, 1, 2, 10].map(ordinalSuffix)).toEqual(['', '', '', ' (2)', ' (10)']);
  });
});
