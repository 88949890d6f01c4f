package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// The hosts' hubs as the window reads them (issue 30): a host's folders
// and agents, hub.Services.HostHubs; "local" is this machine.

// hostFolders is GET /v1/hosts/{name}/folders?path=: a hub.FolderList.
func (s *Server) hostFolders(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.HostHubs == nil {
		s.writeError(w, r, hub.ErrNoHostHubs)
		return
	}
	l, err := s.svcs.HostHubs.HostFolders(r.Context(), r.PathValue("name"), r.URL.Query().Get("path"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, l)
}

// hostAgents is GET /v1/hosts/{name}/agents: {"agents"} as GET /v1/agents
// answers on that host ("local": GET /v1/agents's own).
func (s *Server) hostAgents(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	name := r.PathValue("name")
	if name == hub.LocalHost {
		s.listAgents(w, r, c)
		return
	}
	if s.svcs.HostHubs == nil {
		s.writeError(w, r, hub.ErrNoHostHubs)
		return
	}
	agents, err := s.svcs.HostHubs.HostAgents(r.Context(), name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, agentsAnswer{Agents: nonNil(agents)})
}
