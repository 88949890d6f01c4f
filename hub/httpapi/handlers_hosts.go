package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// Hosts (issue 30, docs/API.md "Hosts"): other machines' hubs, reached
// over the user's ssh (hub.HostService, Services.Hosts).

type hostsAnswer struct {
	Hosts []hub.Host `json:"hosts"`
}

type addHostRequest struct {
	Name string `json:"name"`
	SSH  string `json:"ssh"`
}

// hosts is the capability, or ErrNoHosts written and nil.
func (s *Server) hosts(w http.ResponseWriter, r *http.Request) hub.HostService {
	if s.svcs.Hosts == nil {
		s.writeError(w, r, hub.ErrNoHosts)
	}
	return s.svcs.Hosts
}

// listHosts is GET /v1/hosts: the local machine first, then each host.
func (s *Server) listHosts(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	hs := s.hosts(w, r)
	if hs == nil {
		return
	}
	list, err := hs.ListHosts(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, hostsAnswer{Hosts: nonNil(list)})
}

// getHost is GET /v1/hosts/{name}.
func (s *Server) getHost(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	hs := s.hosts(w, r)
	if hs == nil {
		return
	}
	h, err := hs.Host(r.Context(), r.PathValue("name"))
	s.writeHost(w, r, http.StatusOK, h, err)
}

// addHost is POST /v1/hosts {"name","ssh"}: 201 with the Host, connecting.
// 400 for a name that is not [a-z0-9-]{1,32} or is "local", and for an ssh
// value starting with - (ssh would read it as an option); 409 for a name
// taken.
func (s *Server) addHost(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	hs := s.hosts(w, r)
	if hs == nil {
		return
	}
	var req addHostRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := hs.AddHost(r.Context(), req.Name, req.SSH)
	s.writeHost(w, r, http.StatusCreated, h, err)
}

// removeHost is DELETE /v1/hosts/{name}: 204; the link ends and nothing
// of it stays on this machine (the remote hub keeps running).
func (s *Server) removeHost(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	hs := s.hosts(w, r)
	if hs == nil {
		return
	}
	if err := hs.RemoveHost(r.Context(), r.PathValue("name")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// connectHost is POST /v1/hosts/{name}/connect {"trustKey"?}: connect
// now, trusting the unknown host key named by its fingerprint.
func (s *Server) connectHost(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	hs := s.hosts(w, r)
	if hs == nil {
		return
	}
	var req hub.HostConnect
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := hs.ConnectHost(r.Context(), r.PathValue("name"), req)
	s.writeHost(w, r, http.StatusOK, h, err)
}

func (s *Server) writeHost(w http.ResponseWriter, r *http.Request, status int, h hub.Host, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, status, h)
}
