import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import SignIn from './SignIn.svelte';
import { FakeTransport } from '../test/fakeTransport';
import type { Agent, SettingsPatch } from '../lib/types';

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

  it('shows a terminal method as text, sends typed lines, and says when it succeeded', async () => {
    const t = new FakeTransport();
    t.signInResult = { authSessionId: 'auth_1' };
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {} } });
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in to Codex' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Log in in a terminal' }));
    await waitFor(() => expect(t.authFrames).toBeTruthy());
    t.authFrames!({ output: '\x1b[1mOpen https://example.test/device\x1b[0m\r\nEnter the code: ' });
    await waitFor(() =>
      expect(screen.getByLabelText('Codex sign-in terminal').textContent).toBe('Open https://example.test/device\nEnter the code: '),
    );
    const input = screen.getByLabelText("Type into Codex's sign-in");
    await fireEvent.input(input, { target: { value: 'ABCD' } });
    await fireEvent.submit(input.closest('form')!);
    expect(t.calls.find((c) => c.method === 'authInput')?.args).toEqual(['auth_1', 'ABCD\r']);
    t.authFrames!({ exit: 0 });
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Signed in to Codex'));
  });

  it('stores an environment-variable key in the agent env, then forgets it', async () => {
    const t = new FakeTransport();
    const saved: SettingsPatch[] = [];
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async (p: SettingsPatch) => void saved.push(p) } });
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in to Codex' }));
    const key = screen.getByLabelText('OPENAI_API_KEY for Codex') as HTMLInputElement;
    expect(key.type).toBe('password');
    await fireEvent.input(key, { target: { value: 'sk-test' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save API key' }));
    await waitFor(() => expect(saved).toEqual([{ agents: { codex: { env: { OPENAI_API_KEY: 'sk-test' } } } }]));
    expect(key.value).toBe('');
    expect(t.calls.some((c) => c.method === 'signInAgent')).toBe(false);
  });
});

describe('Sign in, expanded (the thread view)', () => {
  it('shows the methods at once; a failed terminal sign-in says nothing is sent again', async () => {
    const t = new FakeTransport();
    t.signInResult = { authSessionId: 'auth_2' };
    render(SignIn, { props: { agent: codex, auth: t, entry: undefined, onsave: async () => {}, expanded: true } });
    expect(screen.getByRole('button', { name: 'Sign in to Codex' }).getAttribute('aria-expanded')).toBe('true');
    await fireEvent.click(screen.getByRole('button', { name: 'Log in in a terminal' }));
    await waitFor(() => expect(t.authFrames).toBeTruthy());
    t.authFrames!({ exit: 1 });
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('nothing is sent again'));
  });
});
