import type { WailsBindings } from './bindings';
import type { Agent, FolderList, Thread } from './types';

/** This machine among the hosts (issue 30). */
export const LOCAL_HOST = 'local';

/** The host a thread runs on: its `host`, or this machine. */
export function hostOf(t: { host?: string }): string {
  return t.host || LOCAL_HOST;
}

/** A host's ids are `<id>@<host>`: the id as the host knows it. */
export function hostLocalID(id: string): string {
  const i = id.lastIndexOf('@');
  return i < 0 ? id : id.slice(0, i);
}

export interface FolderGroup {
  /** The folder's key: host and cwd (the same path on two hosts is two folders). */
  key: string;
  cwd: string;
  name: string;
  list: Thread[];
}

export interface HostGroup {
  host: string;
  folders: FolderGroup[];
}

/**
 * The thread list's groups: by host, then by folder, each in the order of
 * its first thread (threads come newest first). This machine comes first
 * when it has threads. byHost says whether to show the hosts at all: only
 * when there are hosts (listed, or a thread on one), else one group. With
 * allHosts, a listed host without threads has a group of its own, after
 * the others (no folders): its heading still shows its state — a host
 * that needs attention before its first thread is seen.
 */
export function hostGroups(threads: Thread[], hosts: string[] = [], allHosts = false): { byHost: boolean; groups: HostGroup[] } {
  const byHost = hosts.some((h) => h !== LOCAL_HOST) || threads.some((t) => hostOf(t) !== LOCAL_HOST);
  const by = new Map<string, Map<string, Thread[]>>();
  for (const t of threads) {
    const h = byHost ? hostOf(t) : LOCAL_HOST;
    let folders = by.get(h);
    if (!folders) by.set(h, (folders = new Map()));
    const g = folders.get(t.cwd);
    if (g) g.push(t);
    else folders.set(t.cwd, [t]);
  }
  const groups = [...by.entries()].map(([host, folders]) => ({
    host,
    folders: [...folders.entries()].map(([cwd, list]) => ({ key: `${host}\u0000${cwd}`, cwd, name: folderName(cwd), list })),
  }));
  groups.sort((a, b) => Number(b.host === LOCAL_HOST) - Number(a.host === LOCAL_HOST));
  if (allHosts && byHost) {
    for (const h of hosts) if (h !== LOCAL_HOST && !by.has(h)) groups.push({ host: h, folders: [] });
  }
  return { byHost, groups };
}

/** A folder's last path element (the whole path for a root). */
export function folderName(cwd: string): string {
  const parts = cwd.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? cwd;
}

/**
 * What the new-thread dialog reads of the hosts (issue 30): the other
 * hosts' names (GET /v1/hosts, the hosts part's route; none when the hub
 * has no such route), a host's agents and its folders.
 */
export interface HostsApi {
  /** The hosts besides this machine, by name. */
  list(): Promise<string[]>;
  agents(host: string): Promise<Agent[]>;
  /** A host's folder's subfolders ("" path: its home folder). */
  folders(host: string, path: string): Promise<FolderList>;
}

type Request = <T>(method: string, url: string, body?: unknown) => Promise<T>;
type Url = (path: string, params?: Record<string, string | number | boolean | undefined>) => string;

/** HostsApi over the HTTP API. */
export function httpHosts(request: Request, url: Url): HostsApi {
  return {
    list: async () => {
      try {
        const r = await request<{ hosts?: { name: string }[] }>('GET', url('/v1/hosts'));
        return (r.hosts ?? []).map((h) => h.name).filter((n) => n !== LOCAL_HOST);
      } catch (err) {
        if ((err as { code?: string }).code === 'NOT_FOUND') return [];
        throw err;
      }
    },
    agents: async (host) =>
      (await request<{ agents?: Agent[] }>('GET', url(`/v1/hosts/${encodeURIComponent(host)}/agents`))).agents ?? [],
    folders: async (host, path) => {
      const l = await request<FolderList>('GET', url(`/v1/hosts/${encodeURIComponent(host)}/folders`, { path: path || undefined }));
      return { ...l, folders: l.folders ?? [] };
    },
  };
}

/** The folders of each other host's threads, most recent first (threads come newest first), at most 5 each. */
export function recentOnHosts(threads: Thread[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of threads) {
    if (!t.host) continue;
    const list = (out[t.host] ??= []);
    if (list.length < 5 && !list.includes(t.cwd)) list.push(t.cwd);
  }
  return out;
}

/** The bindings HostsApi calls in the window (app/bindings_hosts.go), as generated. */
export type HostsBindings = Pick<WailsBindings, 'HostFolders' | 'HostAgents'>;

/**
 * HostsApi over the window's bindings; call maps a rejection to a
 * HubError. The hosts' list is the hosts registry's (its own binding):
 * until it has one, list answers none, and the window offers the hosts its
 * threads run on (knownHosts).
 */
export function wailsHosts(b: HostsBindings, call: <T>(f: () => Promise<unknown>) => Promise<T>): HostsApi {
  return {
    list: async () => [],
    agents: async (host) => (await call<Agent[] | null>(() => b.HostAgents(host))) ?? [],
    folders: async (host, path) => {
      const l = await call<FolderList>(() => b.HostFolders(host, path));
      return { ...l, folders: l?.folders ?? [] };
    },
  };
}

/** The hosts to offer: those listed and those threads run on, by name. */
export function knownHosts(listed: string[], threads: { host?: string }[]): string[] {
  const all = new Set(listed.filter((h) => h !== LOCAL_HOST));
  for (const t of threads) if (t.host) all.add(t.host);
  return [...all].sort();
}

/**
 * The agents a thread on host may start or move its queue to: this
 * machine's for a local thread, the host's as read from it (none while
 * unread or unreadable) — available ones only, never another machine's.
 */
export function availableOn(host: string | undefined, local: Agent[], byHost: Record<string, Agent[]>): Agent[] {
  const list = host && host !== LOCAL_HOST ? (byHost[host] ?? []) : local;
  return list.filter((a) => a.status === 'available');
}
