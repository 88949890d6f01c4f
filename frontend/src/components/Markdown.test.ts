import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
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
});

