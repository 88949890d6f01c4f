// A hub's policy over the HTTP API (ADR 0048, docs/API.md "Hosts"): its
// agents, settings, remembered rules and usage. This hub's are under /v1; a host's
// the same routes under /v1/hosts/{name}, forwarded over its link (502
// HOST_UNREACHABLE while the link is down). One piece serves both, so a
// host's settings screen edits a host exactly as Settings edits this hub.
import type { Agent, RememberedRule, Settings, SettingsPatch } from './types';
import { localZone, type UsageQuery, type UsageReport } from './ledger';
import type { WailsBindings } from './bindings';

export interface HubPolicy {
  /** GET …/agents: the agents that hub runs. */
  listAgents(): Promise<Agent[]>;
  /** GET …/settings. */
  getSettings(): Promise<Settings>;
  /** PATCH …/settings: the settings now in force. */
  updateSettings(patch: SettingsPatch): Promise<Settings>;
  /** GET …/rules: the remembered decisions. */
  listRules(): Promise<RememberedRule[]>;
  /** DELETE …/rules/{id}. */
  deleteRule(id: string): Promise<void>;
  /** GET …/usage, grouped; days in the browser's or window's time zone unless q.tz. */
  getUsage(q: UsageQuery): Promise<UsageReport>;
  /** POST …/budgets/override: one more turn past that hub's spent budget (threadId for perThread). */
  overrideBudget(budget: string, threadId?: string): Promise<unknown>;
}

type Request = <T>(method: string, url: string, body?: unknown) => Promise<T>;
type Url = (path: string, params?: Record<string, string | number | boolean | undefined>) => string;

/** Settings with agents always a list (the hub may omit an empty one). */
export function withAgents(s: Settings): Settings {
  return { ...s, agents: s.agents ?? [] };
}

/** The path a policy's routes hang under: "/v1" for this hub, "/v1/hosts/{name}" for a host. */
export function policyBase(host?: string): string {
  return host ? `/v1/hosts/${encodeURIComponent(host)}` : '/v1';
}

/** HubPolicy over the HTTP API at base (policyBase). */
export function httpPolicy(request: Request, url: Url, base: string): HubPolicy {
  return {
    listAgents: async () => (await request<{ agents?: Agent[] }>('GET', url(`${base}/agents`))).agents ?? [],
    getSettings: async () => withAgents((await request<{ settings: Settings }>('GET', url(`${base}/settings`))).settings),
    updateSettings: async (patch) =>
      withAgents((await request<{ settings: Settings }>('PATCH', url(`${base}/settings`), patch)).settings),
    listRules: async () => (await request<{ rules?: RememberedRule[] }>('GET', url(`${base}/rules`))).rules ?? [],
    deleteRule: async (id) => {
      await request('DELETE', url(`${base}/rules/${encodeURIComponent(id)}`));
    },
    getUsage: (q) =>
      request<UsageReport>(
        'GET',
        url(`${base}/usage`, {
          by: q.by,
          from: q.from,
          to: q.to,
          tz: q.tz ?? localZone(),
          threadId: q.threadId,
          limit: q.limit,
          cursor: q.cursor,
        }),
      ),
    overrideBudget: (budget, threadId) => request<unknown>('POST', url(`${base}/budgets/override`), { budget, threadId }),
  };
}

/** The bindings a host's policy calls in the window (app/bindings_hosts.go), as generated. */
export type HostPolicyBindings = Pick<
  WailsBindings,
  'HostAgents' | 'HostSettings' | 'UpdateHostSettings' | 'HostRules' | 'DeleteHostRule' | 'HostUsage' | 'OverrideHostBudget'
>;

/** A host's HubPolicy over the window's bindings; call maps a rejection to a HubError. */
export function wailsHostPolicy(
  b: HostPolicyBindings,
  call: <T>(f: () => Promise<unknown>) => Promise<T>,
  host: string,
): HubPolicy {
  return {
    listAgents: async () => (await call<Agent[] | null>(() => b.HostAgents(host))) ?? [],
    getSettings: async () => withAgents(await call<Settings>(() => b.HostSettings(host))),
    updateSettings: async (patch) =>
      withAgents(await call<Settings>(() => b.UpdateHostSettings(host, patch))),
    listRules: async () => (await call<RememberedRule[] | null>(() => b.HostRules(host))) ?? [],
    deleteRule: async (id) => {
      await call(() => b.DeleteHostRule(host, id));
    },
    getUsage: (q) => call<UsageReport>(() => b.HostUsage(host, { ...q, tz: q.tz ?? localZone() })),
    overrideBudget: (budget, threadId) => call(() => b.OverrideHostBudget(host, { budget, threadId })),
  };
}
