// The slash-command palette's matching: the agent's available_commands
// whose name starts with what follows "/", then those that contain it.
import type { AvailableCommand } from './types';

/** What follows "/" while the message is a slash command being typed (no space yet), else undefined. */
export function slashQuery(text: string): string | undefined {
  return /^\/(\S*)$/.exec(text)?.[1];
}

export function filterCommands(commands: AvailableCommand[], query: string): AvailableCommand[] {
  const q = query.toLowerCase();
  const starts: AvailableCommand[] = [];
  const contains: AvailableCommand[] = [];
  for (const c of commands) {
    const n = c.name.toLowerCase();
    if (n.startsWith(q)) starts.push(c);
    else if (q && n.includes(q)) contains.push(c);
  }
  return [...starts, ...contains];
}
