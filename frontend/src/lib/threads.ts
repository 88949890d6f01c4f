// Small facts about threads that several components show.
import type { Thread } from './types';

/**
 * The editor a thread came from: threads created through the editor bridge
 * (`switchboard acp`) belong to the client "acp-<editor>". "" for others.
 */
export function editorName(t: Pick<Thread, 'clientId'>): string {
  return t.clientId.startsWith('acp-') ? t.clientId.slice(4) || 'editor' : '';
}
