// What Settings → Agents needs to install agents: the hub store's install
// state and actions (HubStore implements it).
import type { AgentInstallProgress, NodeStatus } from './types';
import type { Transport } from './transport';

export interface AgentInstaller {
  /** The last agent_install event by agent id ("node" for Node). */
  readonly installs: Record<string, AgentInstallProgress>;
  readonly node: NodeStatus | undefined;
  installAgent(id: string, version?: string): Promise<void>;
  removeAgent(id: string): Promise<void>;
  installNode(): Promise<void>;
  loadNode(): Promise<void>;
}

/** What "Sign in to <agent>" needs of the transport. */
export type AgentAuthTransport = Pick<Transport, 'signInAgent' | 'signOutAgent' | 'watchAuth' | 'authInput' | 'authResize' | 'closeAuth'>;
