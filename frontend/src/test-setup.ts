import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/svelte';

afterEach(() => {
  cleanup();
  // A thread's URL (lib/router) and the drafts and scroll positions kept
  // for a reload must not carry over to the next test.
  history.replaceState(null, '', '/');
  sessionStorage.clear();
});
