import { describe, expect, it } from 'vitest';
import { fireEvent, render, within } from '@testing-library/svelte';
import Markdown from './Markdown.svelte';

describe('Markdown', () => {
  it('renders highlighted code and no script or handler from agent text', () => {
    const text = 'Run this:\n\n```go\npackage main\n```\n\n<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>\n\n```html\n<script>alert(1)</script>\n```';
    const { container } = render(Markdown, { text });
    expect(container.querySelector('code.language-go .hljs-keyword')?.textContent).toBe('package');
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
    expect(container.querySelector('code.language-html')?.textContent).toBe('<script>alert(1)</script>\n');
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it('renders a long block in pieces while streaming, then whole', async () => {
    const para = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
    const { container, rerender } = render(Markdown, { text: `Intro\n\n${para}`, streaming: true });
    const ps = () => [...container.querySelectorAll('p')].map((p) => p.textContent ?? '');
    expect(ps().length).toBeGreaterThan(3);
    expect(ps()[0]).toBe('Intro');
    expect(ps().slice(1).join(' ').replace(/\s+/g, ' ')).toBe(para);
    await rerender({ text: `Intro\n\n${para}`, streaming: false });
    expect(ps()).toEqual(['Intro', para]);
  });

  it('shows 200 KB of "*a" as plain text at once, and renders it only when asked', async () => {
    const text = '*a'.repeat(100_000);
    const t = performance.now();
    const { container } = render(Markdown, { text });
    expect(performance.now() - t).toBeLessThan(1000); // marked takes 15 s on it
    expect(container.querySelector('.raw pre')?.textContent).toBe(text);
    expect(container.querySelector('.raw .note')?.textContent).toContain('Shown as plain text: more than 32 KB of text outside code.');
    expect(container.querySelector('em')).toBeNull();
    // The other blocks of the message render as usual.
    const mixed = render(Markdown, { text: `**bold**\n\n${text}\n\n_after_` });
    expect(mixed.container.querySelector('strong')?.textContent).toBe('bold');
    expect(mixed.container.querySelector('em')?.textContent).toBe('after');
    // "Render anyway" does (a small one here, to keep the test fast).
    const small = render(Markdown, { text: '*a* '.repeat(600) });
    expect(small.container.querySelector('em')).toBeNull();
    await fireEvent.click(within(small.container).getByRole('button', { name: 'Render anyway' }));
    expect(small.container.querySelectorAll('em').length).toBe(600);
    expect(small.container.querySelector('.raw')).toBeNull();
    expect(within(container).getByRole('button', { name: 'Render anyway' })).toBeTruthy();
  });

  it('shows 2 KB of nested ">" as plain text, and a renderer error as plain text too', async () => {
    const text = '>'.repeat(2048) + ' deep';
    const t = performance.now();
    const { container } = render(Markdown, { text });
    expect(performance.now() - t).toBeLessThan(1000);
    expect(container.querySelector('.raw pre')?.textContent).toBe(text);
    expect(container.querySelector('blockquote')).toBeNull();
    // Rendered anyway, marked overflows its stack: caught, the text stays plain.
    await fireEvent.click(within(container).getByRole('button', { name: 'Render anyway' }));
    expect(container.querySelector('.raw pre')?.textContent).toBe(text);
    expect(container.querySelector('.raw .note')?.textContent).toMatch(/^\s*Shown as plain text: it could not be rendered \(.+\)\.\s*$/);
  });
});
