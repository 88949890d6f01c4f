import { describe, expect, it, vi } from 'vitest';
import { HttpTransport } from './transport';
import { wailsHostPolicy, type HostPolicyBindings } from './hostpolicy';

describe('a hub’s policy routes (ADR 0048)', () => {
  it('asks this hub under /v1 and a host under /v1/hosts/{name}, the same routes', async () => {
    const urls: string[] = [];
    const fetch = vi.fn(async (u: string, init?: RequestInit) => {
      urls.push(`${init?.method ?? 'GET'} ${u}`);
      const body = u.includes('/settings') ? { settings: { configFile: '/c.yaml', permissions: { timeout: '1m' } } } : u.includes('/rules') ? { rules: [] } : u.endsWith('/agents') ? { agents: [] } : {};
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
    });
    {
      const t = new HttpTransport({ base: 'http://hub', storage: undefined, fetch: fetch as unknown as typeof globalThis.fetch });
      const here = await t.getSettings();
      expect(here.agents).toEqual([]);
      const box = t.hostPolicy('gpu-1');
      await box.getSettings();
      await box.updateSettings({ permissions: { timeout: '2m' } });
      await box.listRules();
      await box.deleteRule('r1');
      await box.listAgents();
      await box.getUsage({ by: 'day', from: '2026-01-01', tz: 'UTC' });
      await box.overrideBudget('daily');
      await t.listRules();
      // (scope=all: this page's scope, on every request as before.)
      expect(urls.map((u) => u.replace('http://hub', '').replace(/[?&]scope=all$/, ''))).toEqual([
        'GET /v1/settings',
        'GET /v1/hosts/gpu-1/settings',
        'PATCH /v1/hosts/gpu-1/settings',
        'GET /v1/hosts/gpu-1/rules',
        'DELETE /v1/hosts/gpu-1/rules/r1',
        'GET /v1/hosts/gpu-1/agents',
        'GET /v1/hosts/gpu-1/usage?by=day&from=2026-01-01&tz=UTC',
        'POST /v1/hosts/gpu-1/budgets/override',
        'GET /v1/rules',
      ]);
    }
  });

  it('calls the host’s bindings in the window, with the host named', async () => {
    const b: HostPolicyBindings = {
      HostAgents: vi.fn(async () => null),
      HostSettings: vi.fn(async () => ({ configFile: '/c.yaml' })),
      UpdateHostSettings: vi.fn(async () => ({ configFile: '/c.yaml', agents: null })),
      HostRules: vi.fn(async () => null),
      DeleteHostRule: vi.fn(async () => {}),
      HostUsage: vi.fn(async () => ({ buckets: [] })),
      OverrideHostBudget: vi.fn(async () => ({})),
    } as unknown as HostPolicyBindings;
    const p = wailsHostPolicy(b, (f) => f() as never, 'box');
    expect(await p.listAgents()).toEqual([]);
    expect((await p.updateSettings({ permissions: { timeout: '2m' } })).agents).toEqual([]);
    expect(await p.listRules()).toEqual([]);
    await p.deleteRule('r1');
    await p.getUsage({ by: 'thread', tz: 'UTC' });
    expect(b.UpdateHostSettings).toHaveBeenCalledWith('box', { permissions: { timeout: '2m' } });
    expect(b.DeleteHostRule).toHaveBeenCalledWith('box', 'r1');
    expect(b.HostUsage).toHaveBeenCalledWith('box', { by: 'thread', tz: 'UTC' });
    await p.overrideBudget('perThread', 't1@box');
    expect(b.OverrideHostBudget).toHaveBeenCalledWith('box', { budget: 'perThread', threadId: 't1@box' });
  });
});
