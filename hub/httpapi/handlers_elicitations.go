package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// listElicitations is GET /v1/elicitations:
// ?status&decidedBy&agent&threadId&from&to&limit&cursor, newest first,
// nextCursor when more follow (without limit, at most 500), as
// GET /v1/permissions. A bad parameter is 400 INVALID_ARGUMENT.
func (s *Server) listElicitations(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	v := r.URL.Query()
	q := hub.ElicitationQuery{Status: v.Get("status"), DecidedBy: v.Get("decidedBy"), Agent: v.Get("agent"),
		ThreadID: v.Get("threadId"), From: v.Get("from"), To: v.Get("to"), Cursor: v.Get("cursor")}
	limit, err := auditLimit(v)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q.Limit = limit
	page, err := s.svc.QueryElicitations(r.Context(), c, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page.Elicitations = nonNil(page.Elicitations)
	s.writeJSON(w, r, http.StatusOK, page)
}

// answerElicitation is POST /v1/elicitations/{id} {action: accept |
// decline | cancel, content?}: content (accept only) is checked against
// the requested schema, a refusal is 400 with details.field naming the
// field; an elicitation no longer pending is 409. The answer is recorded
// as hub.DecidedByOf the caller. It answers {"elicitation"}.
func (s *Server) answerElicitation(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var a hub.ElicitationAnswer
	if err := decodeJSON(r, &a); err != nil {
		s.writeError(w, r, err)
		return
	}
	el, err := s.svc.AnswerElicitation(r.Context(), c, r.PathValue("id"), a)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, map[string]any{"elicitation": el})
}
