package app

import "github.com/switchboard-hub/switchboard/hub"

// The window's bindings for the hosts' hubs (issue 30): what New thread
// reads of a host. The hosts' list and states are the hosts registry's.

// HostFolders is HostHubs.HostFolders (GET /v1/hosts/{name}/folders?path=).
func (b *Bindings) HostFolders(host, path string) (hub.FolderList, error) {
	if b.svcs.HostHubs == nil {
		return hub.FolderList{}, hub.ErrNoHostHubs
	}
	return b.svcs.HostHubs.HostFolders(b.ctx, host, path)
}

// HostAgents is HostHubs.HostAgents (GET /v1/hosts/{name}/agents); "local"
// is ListAgents'.
func (b *Bindings) HostAgents(host string) ([]hub.Agent, error) {
	if host == hub.LocalHost {
		return b.svcs.Service.ListAgents(b.ctx)
	}
	if b.svcs.HostHubs == nil {
		return nil, hub.ErrNoHostHubs
	}
	return b.svcs.HostHubs.HostAgents(b.ctx, host)
}
