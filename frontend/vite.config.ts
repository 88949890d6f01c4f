/// <reference types="vitest/config" />
import { defaultClientConditions, defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The window (Wails) and the hub's browser UI both load dist/.
// public/.gitkeep is copied into dist/ on every build: it is the one file
// of dist/ that git keeps, so `go build` can embed frontend/dist from a
// fresh clone (the Go side refuses to open a window without index.html).
export default defineConfig(({ mode }) => ({
  plugins: [svelte()],
  // Vitest runs in Node: without the browser condition Svelte resolves to
  // its server build, where mount() throws lifecycle_function_unavailable.
  resolve: mode === 'test' ? { conditions: ['browser', ...defaultClientConditions] } : undefined,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    // A test that waits for conditions (asyncUtilTimeout) needs more than
    // the default 5 s in all on a loaded machine.
    testTimeout: 30_000,
  },
}));
