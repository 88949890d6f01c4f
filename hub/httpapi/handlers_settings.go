package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// settingsAnswer is the answer of GET and PATCH /v1/settings.
type settingsAnswer struct {
	Settings hub.Settings `json:"settings"`
}

// getSettings is GET /v1/settings (extension), and GET
// /v1/hosts/{name}/settings: that host's (hostpolicy.go).
func (s *Server) getSettings(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	p := s.policy(w, r)
	if p == nil {
		return
	}
	st, err := p.Settings(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, settingsAnswer{Settings: nonNilAgents(st)})
}

// updateSettings is PATCH /v1/settings (extension) with a hub.SettingsPatch:
// only the fields present change. 200 with the settings now in force; 400
// naming the field (details.field) for an invalid patch, which changes
// nothing. PATCH /v1/hosts/{name}/settings edits that host's config file.
func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	pol := s.policy(w, r)
	if pol == nil {
		return
	}
	var p hub.SettingsPatch
	if err := decodeJSON(r, &p); err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := pol.UpdateSettings(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, settingsAnswer{Settings: nonNilAgents(st)})
}

// nonNilAgents makes st.Agents [] rather than null on the wire.
func nonNilAgents(st hub.Settings) hub.Settings {
	st.Agents = nonNil(st.Agents)
	return st
}
