import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import App from './App.svelte';

describe('App (placeholder)', () => {
  let app: ReturnType<typeof mount> | undefined;

  afterEach(() => {
    if (app) unmount(app);
    app = undefined;
    document.body.innerHTML = '';
  });

  it('shows the Switchboard heading', () => {
    app = mount(App, { target: document.body });
    flushSync();
    expect(document.querySelector('h1')?.textContent).toBe('Switchboard');
    expect(document.body.textContent).toContain('A desktop hub for coding agents.');
  });
});
