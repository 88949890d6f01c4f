import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import AgentIcon from './AgentIcon.svelte';
import { colourFor, initials, PALETTE } from '../lib/monogram';

describe('AgentIcon', () => {
  it("shows a data:image icon, and a monogram for a remote one (the CSP allows no remote image)", () => {
    const svg = 'data:image/svg+xml;base64,PHN2Zy8+';
    const { container, unmount } = render(AgentIcon, { agent: 'gemini', name: 'Gemini CLI', icon: svg });
    expect(container.querySelector('img')?.getAttribute('src')).toBe(svg);
    unmount();

    const remote = render(AgentIcon, { agent: 'gemini', name: 'Gemini CLI', icon: 'https://example.com/g.svg' });
    expect(remote.container.querySelector('img')).toBeNull();
    const mono = remote.container.querySelector('.monogram') as HTMLElement;
    expect(mono.textContent).toBe('GC');
    expect(mono.getAttribute('aria-hidden')).toBe('true');
    expect(mono.style.background).toBe(`var(${colourFor('gemini')})`);
  });

  it('names the agent when labelled', () => {
    const { getByRole } = render(AgentIcon, { agent: 'codex', labelled: true });
    expect(getByRole('img', { name: 'codex' }).textContent).toBe('C');
  });

  it('picks initials and a stable palette colour', () => {
    expect(initials('Claude Code')).toBe('CC');
    expect(initials('codex-acp')).toBe('CA');
    expect(initials('')).toBe('?');
    expect(colourFor('claude')).toBe(colourFor('claude'));
    const used = new Set(['claude', 'gemini', 'codex', 'goose', 'opencode', 'qwen', 'cursor', 'amp'].map(colourFor));
    expect(used.size).toBeGreaterThan(2);
    for (const c of used) expect(PALETTE).toContain(c);
  });
});
