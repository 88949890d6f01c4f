package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// installRequest is the body of POST /v1/agents/{id}/install.
type installRequest struct {
	// Version: "" installs the version the catalogue pins; an update
	// passes the registry's latest (GET /v1/agents' update).
	Version string `json:"version,omitempty"`
}

// installAnswer is the 202 answer of the install routes.
type installAnswer struct {
	Agent string `json:"agent"`
}

// installAgent is POST /v1/agents/{id}/install (extension): 202, then
// agent_install events.
func (s *Server) installAgent(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.Installer == nil {
		s.writeError(w, r, hub.ErrNoInstaller)
		return
	}
	var req installRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	if err := s.svcs.Installer.InstallAgent(r.Context(), id, req.Version); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusAccepted, installAnswer{Agent: id})
}

// removeAgent is DELETE /v1/agents/{id}/install (extension): 204.
func (s *Server) removeAgent(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.Installer == nil {
		s.writeError(w, r, hub.ErrNoInstaller)
		return
	}
	if err := s.svcs.Installer.RemoveAgent(r.Context(), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// installNode is POST /v1/node/install (extension): 202, then
// agent_install events for agent "node".
func (s *Server) installNode(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.Installer == nil {
		s.writeError(w, r, hub.ErrNoInstaller)
		return
	}
	if err := s.svcs.Installer.InstallNode(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusAccepted, installAnswer{Agent: "node"})
}
