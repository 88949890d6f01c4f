// What each agent last announced for a session: its modes and config
// options, as the threads this window saw carried them (a thread's modes
// and configOptions). Settings → Agents → Session defaults offers them as
// choices. Kept in localStorage, so it survives a reload; unknown for an
// agent no thread of which has opened a session here (the defaults are
// then typed).
import type { ConfigOption, Thread } from './types';

/** One agent's last announced session state. */
export interface Announced {
  modes?: NonNullable<Thread['modes']>['availableModes'];
  configOptions?: ConfigOption[];
}

const key = 'switchboard.announced';

function load(): Record<string, Announced> {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** By agent id. */
export const announced = $state<Record<string, Announced>>(load());

/** Notes what thread t says its agent offers (nothing when it says nothing new). */
export function noteAnnounced(t: Pick<Thread, 'agent' | 'modes' | 'configOptions'>): void {
  if (!t.agent) return;
  const have = announced[t.agent] ?? {};
  const next: Announced = {
    modes: t.modes?.availableModes?.length ? t.modes.availableModes : have.modes,
    configOptions: t.configOptions?.length ? t.configOptions : have.configOptions,
  };
  if (JSON.stringify(next) === JSON.stringify(have)) return;
  announced[t.agent] = next;
  try {
    localStorage.setItem(key, JSON.stringify(announced));
  } catch {
    // storage full or off: known for this page only
  }
}
