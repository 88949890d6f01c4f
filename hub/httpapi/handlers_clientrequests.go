package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// answerClientRequest is POST /v1/threads/{id}/client-requests/{requestId}
// (extension) with exactly one of {"result": …} and {"error": {"code",
// "message", "data"?}}: the thread's owner answers a client_request event,
// and the agent gets the answer verbatim. 204 on success; another client
// (scope=all included) or an unknown request 404; an answer to a request
// already answered, timed out or dropped 409.
func (s *Server) answerClientRequest(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var a hub.ClientAnswer
	if err := decodeJSON(r, &a); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := a.Check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.svc.AnswerClientRequest(r.Context(), c, r.PathValue("id"), r.PathValue("requestId"), a); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// getClientRequest is GET /v1/threads/{id}/client-requests/{requestId}
// (extension): 200 {"clientRequest": {requestId, method, params}} with the
// params as the agent sent them (the event's are redacted), for the
// thread's owner while the request is pending; another client or an
// unknown request 404, one no longer pending 409.
func (s *Server) getClientRequest(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	cr, err := s.svc.ClientRequestParams(r.Context(), c, r.PathValue("id"), r.PathValue("requestId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, map[string]any{"clientRequest": cr})
}
