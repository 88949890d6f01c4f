package httpapi

import (
	"net/http"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

type (
	rulesAnswer struct {
		Rules []hub.RememberedRule `json:"rules"`
	}
)

// listPermissions is GET /v1/permissions, the audit:
// ?status&decidedBy&agent&threadId&from&to&limit&cursor, newest first,
// nextCursor when more follow (without limit, at most 500). A bad
// parameter is 400 INVALID_ARGUMENT.
func (s *Server) listPermissions(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	v := r.URL.Query()
	q := hub.PermissionQuery{Status: v.Get("status"), DecidedBy: v.Get("decidedBy"), Agent: v.Get("agent"),
		ThreadID: v.Get("threadId"), From: v.Get("from"), To: v.Get("to"), Cursor: v.Get("cursor")}
	switch q.Status {
	case "", hub.PermissionPending, hub.PermissionApproved, hub.PermissionDeclined, hub.PermissionCancelled, hub.PermissionExpired:
	default:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "status must be pending, approved, declined, cancelled or expired"))
		return
	}
	for name, t := range map[string]string{"from": q.From, "to": q.To} {
		if _, err := time.Parse(time.RFC3339Nano, t); t != "" && err != nil {
			s.writeError(w, r, errorf(hub.CodeInvalidArgument, "%s must be an RFC 3339 time", name))
			return
		}
	}
	limit, err := auditLimit(v)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q.Limit = limit
	page, err := s.svc.QueryPermissions(r.Context(), c, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page.Permissions = nonNil(page.Permissions)
	s.writeJSON(w, r, http.StatusOK, page)
}

// decidePermission is POST /v1/permissions/{id} with exactly one of
// {"outcome":"approved"|"declined"} or {"optionId":"…"}, and optionally
// "remember": "thread" | "folder" | "agent". The decision is recorded as
// hub.DecidedByOf the caller (its proved surface, else
// "client:<X-Client-ID>"). It answers {"permission","rule"?,"shadowedBy"?}.
func (s *Server) decidePermission(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var d hub.Decision
	if err := decodeJSON(r, &d); err != nil {
		s.writeError(w, r, err)
		return
	}
	switch {
	case d.Outcome == "" && d.OptionID == "":
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "outcome or optionId is required"))
		return
	case d.Outcome != "" && d.OptionID != "":
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "give outcome or optionId, not both"))
		return
	case d.Outcome != "" && d.Outcome != hub.PermissionApproved && d.Outcome != hub.PermissionDeclined:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "outcome must be approved or declined"))
		return
	}
	if err := checkRemember(d.Remember); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.DecidePermission(r.Context(), c, r.PathValue("id"), d)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// decidePermissions is POST /v1/permissions/decide
// {"ids","outcome","remember"?}: 200 {"results"} in the order given, each
// {"id","permission"} or {"id","error":{code,message}}.
func (s *Server) decidePermissions(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var b hub.BatchDecision
	if err := decodeJSON(r, &b); err != nil {
		s.writeError(w, r, err)
		return
	}
	switch {
	case len(b.IDs) == 0:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "ids is required"))
		return
	case len(b.IDs) > hub.MaxBatch:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "at most %d ids at once", hub.MaxBatch))
		return
	case b.Outcome != hub.PermissionApproved && b.Outcome != hub.PermissionDeclined:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "outcome must be approved or declined"))
		return
	}
	if err := checkRemember(b.Remember); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.DecidePermissions(r.Context(), c, b)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// checkRemember refuses a remember scope other than "", thread, folder
// and agent.
func checkRemember(scope string) error {
	switch scope {
	case "", hub.RememberThread, hub.RememberFolder, hub.RememberAgent:
		return nil
	}
	return errorf(hub.CodeInvalidArgument, "remember must be thread, folder or agent")
}

// listRules is GET /v1/rules: {"rules":[RememberedRule]}, oldest first;
// GET /v1/hosts/{name}/rules: that host's (hostpolicy.go).
func (s *Server) listRules(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	p := s.policy(w, r)
	if p == nil {
		return
	}
	rules, err := p.ListRules(r.Context(), c)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, rulesAnswer{Rules: nonNil(rules)})
}

// deleteRule is DELETE /v1/rules/{id}: 204; 404 when unknown. DELETE
// /v1/hosts/{name}/rules/{id}: one of that host's.
func (s *Server) deleteRule(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	p := s.policy(w, r)
	if p == nil {
		return
	}
	if err := p.DeleteRule(r.Context(), c, r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
