import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

export default {
  // TypeScript in <script lang="ts">.
  preprocess: vitePreprocess(),
};
