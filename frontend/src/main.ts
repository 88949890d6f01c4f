import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { HubStore } from './lib/hubstore.svelte';
import { createTransport } from './lib/transport';
import { restoreTheme } from './lib/theme';
import { guardLinks } from './lib/links';

// Before anything renders: the theme of the last session, until the hub's
// settings confirm or change it.
restoreTheme();
// Links open outside the app; the page itself never navigates away.
guardLinks();

const target = document.getElementById('app');
if (!target) {
  throw new Error('index.html has no #app element');
}

const store = new HubStore(createTransport());

export default mount(App, { target, props: { store } });
