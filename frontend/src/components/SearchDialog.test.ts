import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import SearchDialog from './SearchDialog.svelte';
import { HubError } from '../lib/transport';
import type { SearchHit, SearchPage, SearchQuery } from '../lib/types';

function hit(seq: number, over: Partial<SearchHit> = {}): SearchHit {
  return {
    threadId: 'th_1',
    turnId: 'tu_1',
    seq,
    kind: 'message',
    at: '2026-11-21T07:00:00Z',
    threadTitle: 'Refactor',
    agent: 'claude',
    cwd: '/src/app',
    snippet: [{ text: '…the ' }, { text: 'hippocampus', match: true }, { text: ' of it' }],
    ...over,
  };
}

async function type(text: string) {
  const box = screen.getByRole('searchbox', { name: 'Search all threads' }) as HTMLInputElement;
  await fireEvent.input(box, { target: { value: text } });
  return box;
}

describe('SearchDialog', () => {
  it('searches as the user types, marks the match, opens a hit with Enter', async () => {
    const search = vi.fn(async (q: SearchQuery): Promise<SearchPage> => ({
      hits: q.q === 'hippo*' ? [hit(9), hit(4, { threadId: 'th_2', threadTitle: 'Other', kind: 'prompt' })] : [],
      indexing: false,
    }));
    const onopen = vi.fn();
    const onclose = vi.fn();
    render(SearchDialog, { search, onopen, onclose, debounce: 0 });
    const box = await type('hippo*');
    const list = await screen.findByRole('list', { name: 'Search results' });
    await vi.waitFor(() => expect(within(list).getAllByRole('button')).toHaveLength(2));
    expect(search).toHaveBeenLastCalledWith({ q: 'hippo*' });
    const marks = list.querySelectorAll('mark');
    expect([...marks].map((m) => m.textContent)).toEqual(['hippocampus', 'hippocampus']);
    expect(screen.getByText('2 found, newest first.')).toBeTruthy();
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onopen).toHaveBeenCalledWith(expect.objectContaining({ threadId: 'th_2', seq: 4 }));
    expect(onclose).toHaveBeenCalled();
  });

  it('is the command palette: lists the actions with their shortcuts, filters them as the user types, arrows go on into the hits', async () => {
    const ran: string[] = [];
    const actions = [
      { id: 'new', group: 'App', label: 'New thread', shortcut: 'Ctrl+N', run: () => ran.push('new') },
      { id: 'md', group: 'Thread', label: 'Export as Markdown', run: () => ran.push('md') },
      { id: 'hippo', group: 'Go to thread', label: 'Hippo notes', shortcut: 'Alt+1', run: () => ran.push('hippo') },
    ];
    const search = vi.fn(async (q: SearchQuery): Promise<SearchPage> => ({ hits: q.q === 'hippo' ? [hit(9)] : [], indexing: false }));
    const onopen = vi.fn();
    const onclose = vi.fn();
    render(SearchDialog, { search, onopen, onclose, debounce: 0, actions });
    const list = screen.getByRole('list', { name: 'Actions' });
    expect(within(list).getAllByRole('button').map((b) => b.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'App New thread Ctrl+N',
      'Thread Export as Markdown',
      'Go to thread Hippo notes Alt+1',
    ]);
    const box = await type('hippo');
    expect(within(screen.getByRole('list', { name: 'Actions' })).getAllByRole('button')).toHaveLength(1);
    await vi.waitFor(() => expect(within(screen.getByRole('list', { name: 'Search results' })).getAllByRole('button')).toHaveLength(1));
    // The action first, then the hit: ↓ moves from one to the other, Enter opens the hit.
    expect(screen.getByRole('button', { name: /Hippo notes/ }).getAttribute('aria-current')).toBe('true');
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(screen.getByRole('button', { name: /Refactor/ }).getAttribute('aria-current')).toBe('true');
    await fireEvent.keyDown(box, { key: 'ArrowDown' }); // stays on the last
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onopen).toHaveBeenCalledWith(expect.objectContaining({ seq: 9 }));
    expect(ran).toEqual([]);
  });

  it('runs the chosen action with Enter, after closing', async () => {
    const ran: string[] = [];
    const onclose = vi.fn(() => ran.push('closed'));
    const actions = [{ id: 'md', group: 'Thread', label: 'Export as Markdown', run: () => ran.push('md') }];
    render(SearchDialog, { search: async () => ({ hits: [], indexing: false }), onopen: () => {}, onclose, debounce: 0, actions });
    const box = await type('markdown');
    await fireEvent.keyDown(box, { key: 'Enter' });
    await vi.waitFor(() => expect(ran).toEqual(['closed', 'md']));
  });

  it('marks a hit of an archived thread (search includes archived threads)', async () => {
    const search = vi.fn(async (): Promise<SearchPage> => ({
      hits: [hit(9, { threadId: 'th_old', threadTitle: 'Shelved', archived: true }), hit(4, { threadTitle: 'Live' })],
      indexing: false,
    }));
    render(SearchDialog, { search, onopen: () => {}, onclose: () => {}, debounce: 0 });
    await type('hippo');
    const list = await screen.findByRole('list', { name: 'Search results' });
    await vi.waitFor(() => expect(within(list).getAllByRole('button')).toHaveLength(2));
    const [shelved, live] = within(list).getAllByRole('button');
    expect(shelved.textContent).toContain('Shelved');
    expect(within(shelved).getByText('archived')).toBeTruthy();
    expect(within(live).queryByText('archived')).toBeNull();
  });

  it("shows the hub's words for a malformed query, and nothing found", async () => {
    const search = vi.fn(async (q: SearchQuery): Promise<SearchPage> => {
      if (q.q.includes('(')) throw new HubError('INVALID_ARGUMENT', 'search: invalid query: fts5: syntax error near ""');
      return { hits: [], indexing: true };
    });
    render(SearchDialog, { search, onopen: () => {}, onclose: () => {}, debounce: 0 });
    await type('a AND (');
    expect((await screen.findByRole('alert')).textContent).toContain('fts5: syntax error');
    await type('nothing');
    expect(await screen.findByText('Nothing found for “nothing”.')).toBeTruthy();
    expect(screen.getByText(/still being indexed/)).toBeTruthy();
  });

  it('renders what an agent wrote as text, never markup', async () => {
    const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>';
    const search = async (): Promise<SearchPage> => ({
      hits: [hit(1, { threadTitle: evil, snippet: [{ text: evil, match: true }, { text: evil }] })],
      indexing: false,
    });
    const { container } = render(SearchDialog, { search, onopen: () => {}, onclose: () => {}, debounce: 0 });
    await type('img');
    await vi.waitFor(() => expect(container.querySelectorAll('.hit')).toHaveLength(1));
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('mark')?.textContent).toBe(evil);
  });

  it('pages with the cursor', async () => {
    const search = vi.fn(async (q: SearchQuery): Promise<SearchPage> =>
      q.cursor ? { hits: [hit(1)], indexing: false } : { hits: [hit(3)], nextCursor: '3', indexing: false },
    );
    const { container } = render(SearchDialog, { search, onopen: () => {}, onclose: () => {}, debounce: 0 });
    await type('word');
    await fireEvent.click(await screen.findByRole('button', { name: 'More results' }));
    await vi.waitFor(() => expect(container.querySelectorAll('.hit')).toHaveLength(2));
    expect(search).toHaveBeenLastCalledWith({ q: 'word', cursor: '3' });
    expect(screen.queryByRole('button', { name: 'More results' })).toBeNull();
  });
});
