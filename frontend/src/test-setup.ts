import { afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/svelte';

// findBy*/waitFor wait for a condition, never for a time: give them room
// on a loaded 2-core CI machine (the default 1 s failed there while the
// same test passed alone in a fraction of it).
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
  // A thread's URL (lib/router) and the drafts and scroll positions kept
  // for a reload must not carry over to the next test.
  history.replaceState(null, '', '/');
  sessionStorage.clear();
});
