import { describe, expect, it } from 'vitest';
import { filterActions, type PaletteAction } from './palette';

const a = (id: string, group: string, label: string): PaletteAction => ({ id, group, label, run: () => {} });
const list = [
  a('new', 'App', 'New thread'),
  a('md', 'Thread', 'Export as Markdown'),
  a('jsonl', 'Thread', 'Export as JSON lines'),
  a('go', 'Go to thread', 'Résumé parser'),
  a('settings', 'App', 'Settings'),
];

describe('filterActions', () => {
  it('keeps the actions whose group and label hold every typed word, in any order and case', () => {
    expect(filterActions(list, 'EXPORT mark').map((x) => x.id)).toEqual(['md']);
    expect(filterActions(list, 'lines export').map((x) => x.id)).toEqual(['jsonl']);
    expect(filterActions(list, 'thread export').map((x) => x.id)).toEqual(['md', 'jsonl']); // the group counts
    expect(filterActions(list, 'wombat')).toEqual([]);
  });

  it('ignores accents and puts labels that start with the first word first', () => {
    expect(filterActions(list, 'resume').map((x) => x.id)).toEqual(['go']);
    expect(filterActions(list, 'thread').map((x) => x.id)).toEqual(['new', 'md', 'jsonl', 'go']);
    expect(filterActions(list, 'se').map((x) => x.id)).toEqual(['settings', 'go']); // "Settings" starts with it, "parser" only holds it
  });

  it('lists everything for an empty query, up to the limit', () => {
    expect(filterActions(list, '  ').map((x) => x.id)).toEqual(['new', 'md', 'jsonl', 'go', 'settings']);
    expect(filterActions(list, '', 2)).toHaveLength(2);
  });
});
