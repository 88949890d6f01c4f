package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// getUsage is GET /v1/usage?by=day|agent|thread|model|turn&from=&to=&tz=&threadId=&limit=&cursor=
// (extension): the ledger of the caller's threads (scope=all: all),
// grouped. from and to are RFC 3339 times or local dates (YYYY-MM-DD, in
// tz, an IANA zone, default the hub's); days are in tz. GET
// /v1/hosts/{name}/usage: that host's ledger (hostpolicy.go).
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	us := s.policy(w, r)
	if us == nil {
		return
	}
	q := r.URL.Query()
	limit, err := limitParam(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	uq, err := hub.ParseUsageQuery(hub.UsageParams{By: q.Get("by"), From: q.Get("from"), To: q.Get("to"), TZ: q.Get("tz"),
		ThreadID: q.Get("threadId"), Limit: limit, Cursor: q.Get("cursor")})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rep, err := us.Usage(r.Context(), c, uq)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, rep)
}

// overrideAnswer is the answer of POST /v1/budgets/override.
type overrideAnswer struct {
	Override hub.BudgetOverride `json:"override"`
}

// overrideBudget is POST /v1/budgets/override {budget, threadId?}
// (extension): one more turn past a spent budget; decidedBy is the
// caller's, never the body's. POST /v1/hosts/{name}/budgets/override:
// one of that host's budgets.
func (s *Server) overrideBudget(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	us := s.policy(w, r)
	if us == nil {
		return
	}
	var req hub.OverrideRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	o, err := us.OverrideBudget(r.Context(), c, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, overrideAnswer{Override: o})
}
