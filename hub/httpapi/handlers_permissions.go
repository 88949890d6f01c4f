package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

type (
	permissionsAnswer struct {
		Permissions []hub.Permission `json:"permissions"`
	}
	permissionAnswer struct {
		Permission hub.Permission `json:"permission"`
	}
)

// listPermissions is GET /v1/permissions?status=<status>; no status lists
// every status.
func (s *Server) listPermissions(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	status := r.URL.Query().Get("status")
	switch status {
	case "", hub.PermissionPending, hub.PermissionApproved, hub.PermissionDeclined, hub.PermissionCancelled, hub.PermissionExpired:
	default:
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "status must be pending, approved, declined, cancelled or expired"))
		return
	}
	perms, err := s.svc.ListPermissions(r.Context(), c, status)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, permissionsAnswer{Permissions: nonNil(perms)})
}

// decidePermission is POST /v1/permissions/{id} with exactly one of
// {"outcome":"approved"|"declined"} or {"optionId":"…"}. The decision is
// recorded as hub.DecidedByOf the caller (its proved surface, else
// "client:<X-Client-ID>").
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
	p, err := s.svc.DecidePermission(r.Context(), c, r.PathValue("id"), d)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, permissionAnswer{Permission: p})
}
