import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { HubError } from '../lib/transport';
import SignIn from './SignIn.svelte';
import { FakeTransport } from '../test/fakeTransport';
import type { Agent, SettingsPatch } from '../lib/types';

// xterm.js draws on a canvas-measured grid jsdom does not have: a fake
// terminal records what the page gives it (the real one runs in Chromium:
// e2e/agents.mjs).
const term = vi.hoisted(() => ({
  written: [] as string[],
  options: undefined as Record<string, unknown> | undefined,
  onData: undefined as ((d: string) => void) | undefined,
  keys: undefined as ((e: KeyboardEvent) => boolean) | undefined,
  disposed: false,
}));
vi.mock('@xterm/xterm', () => ({
  Terminal: class {
    constructor(o: Record<string, unknown>) {
      term.options = o;
      term.written = [];
      term.disposed = false;
    }
    write(s: string) {
      term.written.push(s);
    }
    onData(cb: (d: string) => void) {
      term.onData = cb;
      return { dispose() {} };
    }
    attachCustomKeyEventHandler(h: (e: KeyboardEvent) => boolean) {
      term.keys = h;
    }
    open() {}
    focus() {}
    dispose() {
      term.disposed = true;
    }
  },
}));
vi.mock('@xterm/xterm/css/xterm.css', () => ({}));

const codex: Agent = {
  id: 'codex',
  name: 'Codex',
  status: 'available',
  command: 'codex-acp',
  authMethods: [
    { id: 'chatgpt', name: 'Sign in with ChatGPT' },
    { id: 'login', name: 'Log in in a terminal', type: 'terminal', args: ['login'] },
    { id: 'apikey', name: 'API key', type: 'env_var', varName: 'OPENAI_API_KEY' },
  ],
};

describe('Sign in to an agent', () => {
  it('runs an agent method', async () => {
    const t = new FakeTransport();
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {} } });
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in to Codex' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in with ChatGPT' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Signed in to Codex'));
    expect(t.calls.find((c) => c.method === 'signInAgent')?.args).toEqual(['codex', 'chatgpt']);
  });

  it('runs a terminal method in a terminal that gets every keystroke raw, and says when it succeeded', async () => {
    const t = new FakeTransport();
    t.signInResult = { authSessionId: 'auth_1' };
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {} } });
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in to Codex' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Log in in a terminal' }));
    await waitFor(() => expect(t.authFrames).toBeTruthy());
    expect(screen.getByRole('group', { name: 'Codex sign-in terminal' })).toBeTruthy();
    expect(term.options).toMatchObject({ cols: 80, rows: 24 });
    expect(t.calls.find((c) => c.method === 'authResize')?.args).toEqual(['auth_1', 80, 24]);
    // What the program draws reaches the terminal as it is: colours and
    // cursor moves are the terminal's to render.
    const drawn = '\x1b[2J\x1b[1;1H\x1b[1mOpen https://example.test/device\x1b[0m\r\nEnter the code: ';
    t.authFrames!({ output: drawn });
    expect(term.written).toEqual([drawn]);
    // Keys as the terminal encodes them: an arrow, then Enter, no line editing.
    term.onData!('\x1b[B');
    term.onData!('\r');
    expect(t.calls.filter((c) => c.method === 'authInput').map((c) => c.args)).toEqual([
      ['auth_1', '\x1b[B'],
      ['auth_1', '\r'],
    ]);
    // Ctrl+] gives the keyboard back: Cancel takes the focus.
    expect(term.keys!(new KeyboardEvent('keydown', { key: ']', ctrlKey: true }))).toBe(false);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    expect(term.keys!(new KeyboardEvent('keydown', { key: 'Escape' }))).toBe(true);
    t.authFrames!({ exit: 0 });
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Signed in to Codex'));
    await fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(term.disposed).toBe(true);
  });

  it('"Use an API key" opens the key field in place, saves it in the agent env, then signs in with it once', async () => {
    const t = new FakeTransport();
    const saved: SettingsPatch[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    render(SignIn, {
      props: {
        agent: codex,
        auth: t,
        entry: undefined,
        onsave: async (p: SettingsPatch) => {
          saved.push(p);
          await gate;
        },
        expanded: true,
      },
    });
    const cards = within(screen.getByRole('list', { name: 'Ways to sign in to Codex' })).getAllByRole('listitem');
    // One card per method, each with a plain title.
    expect(cards.map((c) => c.querySelector('.title')?.textContent)).toEqual(['Sign in with your Codex account', 'Sign in in a terminal', 'Use an API key']);
    expect(screen.queryByLabelText('OPENAI_API_KEY for Codex')).toBeNull();
    await fireEvent.click(within(cards[2]).getByRole('button', { name: 'Use an API key' }));
    const key = within(cards[2]).getByLabelText('OPENAI_API_KEY for Codex') as HTMLInputElement;
    expect(key.type).toBe('password');
    await fireEvent.input(key, { target: { value: 'sk-test' } });
    const save = within(cards[2]).getByRole('button', { name: 'Save and sign in' });
    await fireEvent.click(save);
    await fireEvent.click(save); // busy: not twice
    release();
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Signed in to Codex. Your message is sent again.'));
    expect(saved).toEqual([{ agents: { codex: { env: { OPENAI_API_KEY: 'sk-test' } } } }]);
    expect(t.calls.filter((c) => c.method === 'signInAgent').map((c) => c.args)).toEqual([['codex', 'apikey']]);
    // The key is neither kept in the page nor shown back.
    expect(screen.queryByLabelText('OPENAI_API_KEY for Codex')).toBeNull();
    expect(document.body.textContent).not.toContain('sk-test');
  });

  it('an empty key is refused in words; the hub refusing the key says why once', async () => {
    const t = new FakeTransport();
    t.signInError = new HubError('INVALID_ARGUMENT', "Codex's key is not set (OPENAI_API_KEY): enter it first");
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {}, expanded: true } });
    await fireEvent.click(screen.getByRole('button', { name: 'Use an API key' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save and sign in' }));
    expect((await screen.findByRole('alert')).querySelector('.title')?.textContent).toBe('Enter the key first.');
    await fireEvent.input(screen.getByLabelText('OPENAI_API_KEY for Codex'), { target: { value: 'sk-x' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save and sign in' }));
    await waitFor(() =>
      expect(screen.getByRole('alert').querySelector('.title')?.textContent).toBe("Codex's key is not set (OPENAI_API_KEY): enter it first."),
    );
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('Sign in, expanded (the thread view)', () => {
  it('shows the methods at once; a failed terminal sign-in says nothing is sent again', async () => {
    const t = new FakeTransport();
    t.signInResult = { authSessionId: 'auth_2' };
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {}, expanded: true } });
    // A heading, not a toggle: the methods are the point here.
    expect(screen.queryByRole('button', { name: 'Sign in to Codex' })).toBeNull();
    expect(screen.getByText('Sign in to Codex')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Log in in a terminal' }));
    await waitFor(() => expect(t.authFrames).toBeTruthy());
    t.authFrames!({ exit: 1 });
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('nothing is sent again'));
  });
});
