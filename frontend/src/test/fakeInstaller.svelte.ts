// An installer as the hub store is one (lib/installer.ts): install state
// that agent_install events change, and the calls made, in order.
import type { AgentInstaller } from '../lib/installer';
import type { AgentInstallProgress, NodeStatus } from '../lib/types';
import type { HubError } from '../lib/transport';

export class FakeInstaller implements AgentInstaller {
  installs = $state<Record<string, AgentInstallProgress>>({});
  node = $state<NodeStatus | undefined>({ path: '/usr/bin/node', version: '22.3.0', major: 22, required: 22, ok: true });
  calls: string[] = [];
  /** The next install is refused with it. */
  refuse: HubError | undefined;
  async installAgent(id: string, version?: string) {
    this.calls.push(`install ${id}${version ? '@' + version : ''}`);
    if (this.refuse) throw this.refuse;
    this.installs = { ...this.installs, [id]: { agent: id, phase: 'queued', fraction: 0 } };
  }
  async removeAgent(id: string) {
    this.calls.push(`remove ${id}`);
  }
  async installNode() {
    this.calls.push('install node');
    this.installs = { ...this.installs, node: { agent: 'node', phase: 'queued', fraction: 0 } };
  }
  async loadNode() {}
  /** An agent_install event. */
  event(p: AgentInstallProgress) {
    this.installs = { ...this.installs, [p.agent]: p };
  }
}
