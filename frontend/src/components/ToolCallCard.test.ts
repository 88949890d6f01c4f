import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ToolCallCard from './ToolCallCard.svelte';
import { toolParts } from '../lib/toolcall';
import type { ToolCall } from '../lib/types';

describe('ToolCallCard', () => {
  it('shows kind, status, title and path:line locations', () => {
    render(ToolCallCard, {
      toolCall: { toolCallId: 'c1', title: 'Read main.go', kind: 'read', status: 'in_progress', locations: [{ path: '/src/main.go', line: 12 }, { path: '/src/go.mod' }] },
    });
    expect(screen.getByText('read')).toBeTruthy();
    expect(screen.getByText('in progress').className).toContain('running');
    expect(screen.getByText('Read main.go')).toBeTruthy();
    const locs = screen.getByRole('list', { name: 'Locations' });
    expect(Array.from(locs.querySelectorAll('li'), (l) => l.textContent)).toEqual(['/src/main.go:12', '/src/go.mod']);
  });

  it('renders a diff as a unified diff, open', () => {
    const { container } = render(ToolCallCard, {
      toolCall: { toolCallId: 'c1', title: 'Edit', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/a.txt', oldText: 'one\ntwo\n', newText: 'one\n2\n' }] },
    });
    expect(container.querySelector('details')?.open).toBe(true);
    const diff = screen.getByLabelText('Diff of /a.txt');
    expect(Array.from(diff.querySelectorAll('.del'), (s) => s.textContent)).toEqual(['-two\n']);
    expect(Array.from(diff.querySelectorAll('.add'), (s) => s.textContent)).toEqual(['+2\n']);
  });

  it('shows text output folded with Show all, and the terminal id', async () => {
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    render(ToolCallCard, {
      toolCall: {
        toolCallId: 'c1', title: 'go test', kind: 'execute', status: 'completed',
        content: [{ type: 'terminal', terminalId: 'term_7' }, { type: 'content', content: { type: 'text', text: long } }],
      },
    });
    expect(screen.getByText('term_7').tagName).toBe('CODE');
    const out = screen.getByLabelText('Output');
    expect(out.textContent).toContain('line 29');
    expect(out.textContent).not.toContain('line 30');
    const more = screen.getByRole('button', { name: 'Show all (100 lines)' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    await fireEvent.click(more);
    expect(out.textContent).toContain('line 99');
    expect(screen.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
  });

  it('shows rawOutput as a string or its stdout/stderr fields, never twice', () => {
    const cases: [ToolCall['rawOutput'], unknown[]][] = [
      ['plain out', [{ kind: 'output', label: 'Output', text: 'plain out' }]],
      [{ stdout: 'ok\n', stderr: 'warn\n', exitCode: 1 }, [
        { kind: 'output', label: 'stdout', text: 'ok\n' },
        { kind: 'output', label: 'stderr', text: 'warn\n' },
        { kind: 'note', text: 'exit code 1' },
      ]],
      [{ output: 'all' }, [{ kind: 'output', label: 'Output', text: 'all' }]],
      [{ files: ['a'] }, []],
      [42, []],
    ];
    for (const [raw, want] of cases) expect(toolParts({ toolCallId: 'x', rawOutput: raw }), JSON.stringify(raw)).toEqual(want);
    // The same text in content and rawOutput shows once.
    expect(toolParts({ toolCallId: 'x', content: [{ type: 'content', content: { type: 'text', text: 'same' } }], rawOutput: 'same\n' })).toEqual([
      { kind: 'output', label: 'Output', text: 'same' },
    ]);
  });

  it('shows a hub-hosted terminal’s output live, then its exit status', async () => {
    const toolCall: ToolCall = { toolCallId: 'c1', title: 'make', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_7' }] };
    const { container, rerender } = render(ToolCallCard, { toolCall, terminals: { term_7: { text: 'building\n', dropped: false } } });
    expect(screen.getByLabelText('Terminal output').textContent).toBe('building\n');
    expect(screen.getByText('running').className).toContain('running');
    expect(container.querySelector('details')?.open).toBe(true); // live: open
    expect(screen.queryByText('term_7')).toBeNull();

    const long = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    await rerender({ toolCall: { ...toolCall, status: 'failed' }, terminals: { term_7: { text: long, dropped: false, exit: { exitCode: 2, signal: null } } } });
    const out = screen.getByLabelText('Terminal output');
    // A terminal shows its last lines, where the latest output and the errors are.
    expect(out.textContent).toContain('line 49');
    expect(out.textContent).toContain('line 20');
    expect(out.textContent).not.toContain('line 19');
    expect(screen.getByText('exit 2').className).toContain('failed');
    expect(screen.queryByText('running')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Show all (50 lines)' }));
    expect(out.textContent).toContain('line 0\n');

    await rerender({ toolCall: { ...toolCall, status: 'completed' }, terminals: { term_7: { text: 'ok', dropped: true, exit: { exitCode: null, signal: 'SIGTERM' } } } });
    expect(screen.getByText('signal SIGTERM')).toBeTruthy();
    expect(screen.getByText('Output past 1 MiB is not shown here.')).toBeTruthy();
    await rerender({ toolCall: { ...toolCall, status: 'completed' }, terminals: { term_7: { text: 'ok', dropped: false, exit: { exitCode: 0, signal: null } } } });
    expect(screen.getByText('exit 0').className).toContain('completed');
    expect(container.querySelector('details')?.open).toBe(false); // done, not failed: folded away
  });

  it('leaves out the agent’s copy of output a terminal already shows', () => {
    const terminals = { term_7: { text: 'ok\n', dropped: false, exit: { exitCode: 0, signal: null } } };
    const tc: ToolCall = { toolCallId: 'x', content: [{ type: 'terminal', terminalId: 'term_7' }, { type: 'content', content: { type: 'text', text: 'ok' } }], rawOutput: { stdout: 'ok\n' } };
    expect(toolParts(tc, terminals)).toEqual([{ kind: 'terminal', terminalId: 'term_7' }]);
    // Without the hub's output (an editor's terminal) the agent's copy shows.
    expect(toolParts(tc).map((p) => p.kind)).toEqual(['terminal', 'output']);
  });

  it('names content it does not render', () => {
    render(ToolCallCard, {
      toolCall: { toolCallId: 'c1', content: [{ type: 'content', content: { type: 'image', mimeType: 'image/png', data: 'AA' } }, { type: 'content', content: { type: 'resource_link', uri: 'file:///x', name: 'x.go' } }] },
    });
    expect(screen.getByText('[image image/png]')).toBeTruthy();
    expect(screen.getByText('Link: x.go')).toBeTruthy();
    expect(screen.getByText('c1')).toBeTruthy(); // no title: the id
  });
});
