package httpapi

import (
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Route is one endpoint of the API. The mux is built from the same table
// that Routes returns, and a test holds docs/openapi.yaml to it.
type Route struct {
	Method string // GET, POST, PATCH or DELETE (GET also answers HEAD)
	Path   string // a net/http pattern path, e.g. /v1/threads/{id}
	// Body: the route reads a JSON body (Content-Type application/json,
	// at most MaxBodyBytes).
	Body bool
	// RawBody, when set, is the media type of a body the handler reads
	// itself, with its own bound (POST /v1/threads/import:
	// application/x-ndjson up to limits.importMaxBytes).
	RawBody string
	// Stream: the route answers text/event-stream (always for the event
	// streams; on request for POST /v1/threads/{id}/turns).
	Stream bool

	handle handlerFunc
}

// Public reports whether the route needs no token and no X-Client-ID
// (everything outside /v1/).
func (rt Route) Public() bool { return !strings.HasPrefix(rt.Path, "/v1/") }

// handlerFunc is a route's handler; c is the caller built from the request
// (zero for public routes).
type handlerFunc func(s *Server, w http.ResponseWriter, r *http.Request, c hub.Caller)

var routes = []Route{
	{Method: "GET", Path: "/healthz", handle: (*Server).healthz},
	{Method: "GET", Path: "/auth", handle: (*Server).logIn},
	{Method: "POST", Path: "/v1/auth/codes", Body: true, handle: (*Server).createLoginCode},
	{Method: "POST", Path: "/v1/auth/logout", handle: (*Server).logout},
	{Method: "POST", Path: "/v1/auth/token/rotate", handle: (*Server).rotateToken},

	{Method: "GET", Path: "/v1/agents", handle: (*Server).listAgents},
	{Method: "POST", Path: "/v1/agents/{id}/install", Body: true, handle: (*Server).installAgent},
	{Method: "DELETE", Path: "/v1/agents/{id}/install", handle: (*Server).removeAgent},
	{Method: "POST", Path: "/v1/node/install", handle: (*Server).installNode},
	{Method: "POST", Path: "/v1/agents/{id}/auth", Body: true, handle: (*Server).signInAgent},
	{Method: "POST", Path: "/v1/agents/{id}/logout", handle: (*Server).signOutAgent},
	{Method: "GET", Path: "/v1/auth-sessions/{id}/stream", Stream: true, handle: (*Server).authStream},
	{Method: "POST", Path: "/v1/auth-sessions/{id}/input", Body: true, handle: (*Server).authInput},
	{Method: "POST", Path: "/v1/auth-sessions/{id}/resize", Body: true, handle: (*Server).authResize},
	{Method: "DELETE", Path: "/v1/auth-sessions/{id}", handle: (*Server).closeAuth},
	{Method: "POST", Path: "/v1/threads", Body: true, handle: (*Server).createThread},
	{Method: "GET", Path: "/v1/threads", handle: (*Server).listThreads},
	{Method: "GET", Path: "/v1/threads/{id}", handle: (*Server).getThread},
	{Method: "PATCH", Path: "/v1/threads/{id}", Body: true, handle: (*Server).patchThread},
	{Method: "POST", Path: "/v1/threads/archive", Body: true, handle: (*Server).archiveThreads},
	{Method: "GET", Path: "/v1/threads/export", handle: (*Server).exportFolder},
	{Method: "GET", Path: "/v1/threads/{id}/export", handle: (*Server).exportThread},
	{Method: "POST", Path: "/v1/threads/import", RawBody: "application/x-ndjson", handle: (*Server).importThreads},
	{Method: "DELETE", Path: "/v1/threads/{id}", handle: (*Server).deleteThread},
	{Method: "POST", Path: "/v1/threads/{id}/turns", Body: true, Stream: true, handle: (*Server).startTurn},
	{Method: "POST", Path: "/v1/turns/{id}/cancel", handle: (*Server).cancelTurn},
	{Method: "POST", Path: "/v1/threads/{id}/queue", Body: true, handle: (*Server).enqueue},
	{Method: "GET", Path: "/v1/threads/{id}/queue", handle: (*Server).listQueue},
	{Method: "PATCH", Path: "/v1/threads/{id}/queue/{qid}", Body: true, handle: (*Server).editQueued},
	{Method: "DELETE", Path: "/v1/threads/{id}/queue/{qid}", handle: (*Server).removeQueued},
	{Method: "POST", Path: "/v1/threads/{id}/queue/next", handle: (*Server).sendNext},
	{Method: "POST", Path: "/v1/threads/{id}/queue/move", Body: true, handle: (*Server).moveQueue},
	{Method: "GET", Path: "/v1/threads/{id}/history", handle: (*Server).history},
	{Method: "GET", Path: "/v1/threads/{id}/events", Stream: true, handle: (*Server).threadEvents},
	{Method: "GET", Path: "/v1/events", Stream: true, handle: (*Server).allEvents},
	{Method: "GET", Path: "/v1/search", handle: (*Server).search},
	{Method: "GET", Path: "/v1/permissions", handle: (*Server).listPermissions},
	{Method: "POST", Path: "/v1/permissions/decide", Body: true, handle: (*Server).decidePermissions},
	{Method: "POST", Path: "/v1/permissions/{id}", Body: true, handle: (*Server).decidePermission},
	{Method: "GET", Path: "/v1/elicitations", handle: (*Server).listElicitations},
	{Method: "POST", Path: "/v1/elicitations/{id}", Body: true, handle: (*Server).answerElicitation},
	{Method: "GET", Path: "/v1/rules", handle: (*Server).listRules},
	{Method: "DELETE", Path: "/v1/rules/{id}", handle: (*Server).deleteRule},
	{Method: "POST", Path: "/v1/threads/{id}/compact", handle: (*Server).compactThread},
	{Method: "POST", Path: "/v1/threads/{id}/session", handle: (*Server).openSession},
	{Method: "POST", Path: "/v1/threads/{id}/mode", Body: true, handle: (*Server).setMode},
	{Method: "POST", Path: "/v1/threads/{id}/config-option", Body: true, handle: (*Server).setConfigOption},
	{Method: "POST", Path: "/v1/threads/{id}/client-requests/{requestId}", Body: true, handle: (*Server).answerClientRequest},
	{Method: "GET", Path: "/v1/threads/{id}/client-requests/{requestId}", handle: (*Server).getClientRequest},
	{Method: "POST", Path: "/v1/shutdown", handle: (*Server).shutdownHub},
	{Method: "GET", Path: "/v1/settings", handle: (*Server).getSettings},
	{Method: "PATCH", Path: "/v1/settings", Body: true, handle: (*Server).updateSettings},
	// Worktrees, review and checkpoints (issue 19; handlers_work.go).
	{Method: "POST", Path: "/v1/threads/{id}/merge", handle: (*Server).mergeThread},
	{Method: "GET", Path: "/v1/folders/git", handle: (*Server).gitFolder},
	{Method: "POST", Path: "/v1/threads/{id}/discard", handle: (*Server).discardThread},
	{Method: "GET", Path: "/v1/threads/{id}/changes", handle: (*Server).threadChanges},
	{Method: "POST", Path: "/v1/threads/{id}/changes/revert", Body: true, handle: (*Server).revertChanges},
	{Method: "GET", Path: "/v1/threads/{id}/checkpoints", handle: (*Server).listCheckpoints},
	{Method: "POST", Path: "/v1/threads/{id}/checkpoints/{turnId}/restore", handle: (*Server).restoreCheckpoint},
	// Landing a worktree thread's work (issue 31; handlers_work.go).
	{Method: "GET", Path: "/v1/threads/{id}/commit", handle: (*Server).commitSuggestion},
	{Method: "POST", Path: "/v1/threads/{id}/commit", Body: true, handle: (*Server).commitThread},
	{Method: "POST", Path: "/v1/threads/{id}/push", handle: (*Server).pushThread},
	{Method: "POST", Path: "/v1/threads/{id}/setup/cancel", handle: (*Server).cancelSetup},
	{Method: "GET", Path: "/v1/usage", handle: (*Server).getUsage},
	{Method: "POST", Path: "/v1/budgets/override", Body: true, handle: (*Server).overrideBudget},
	// The agent's own sessions (issue 16; handlers_agentsessions.go).
	{Method: "GET", Path: "/v1/agents/{id}/sessions", handle: (*Server).listAgentSessions},
	{Method: "POST", Path: "/v1/threads/import-session", Body: true, handle: (*Server).importSession},
	// A host's folders and agents (issue 30; handlers_hosthubs.go).
	{Method: "GET", Path: "/v1/hosts/{name}/folders", handle: (*Server).hostFolders},
	{Method: "GET", Path: "/v1/hosts/{name}/agents", handle: (*Server).hostAgents},

	// Hosts (issue 30; handlers_hosts.go).
	{Method: "GET", Path: "/v1/hosts", handle: (*Server).listHosts},
	{Method: "POST", Path: "/v1/hosts", Body: true, handle: (*Server).addHost},
	{Method: "GET", Path: "/v1/hosts/{name}", handle: (*Server).getHost},
	{Method: "DELETE", Path: "/v1/hosts/{name}", handle: (*Server).removeHost},
	{Method: "POST", Path: "/v1/hosts/{name}/connect", Body: true, handle: (*Server).connectHost},
	// A host's settings, rules, usage and budgets (issue 30, ADR 0048;
	// hostpolicy.go): the local routes' handlers, on the host's hub.
	{Method: "GET", Path: "/v1/hosts/{name}/settings", handle: (*Server).getSettings},
	{Method: "PATCH", Path: "/v1/hosts/{name}/settings", Body: true, handle: (*Server).updateSettings},
	{Method: "GET", Path: "/v1/hosts/{name}/rules", handle: (*Server).listRules},
	{Method: "DELETE", Path: "/v1/hosts/{name}/rules/{id}", handle: (*Server).deleteRule},
	{Method: "GET", Path: "/v1/hosts/{name}/usage", handle: (*Server).getUsage},
	{Method: "POST", Path: "/v1/hosts/{name}/budgets/override", Body: true, handle: (*Server).overrideBudget},
}

// Routes returns the API's route table (a copy).
func Routes() []Route { return slices.Clone(routes) }

// newMux registers every route, plus two catch-alls: "/v1/" (a 404 JSON
// error, after the token check) and "/" (the UI for GET and HEAD, else a
// 404 JSON error). A known path with another method is a 404 as well.
func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.Handle(rt.Method+" "+rt.Path, s.route(rt))
	}
	mux.Handle("/v1/", s.requireToken(http.HandlerFunc(s.notFound)))
	mux.Handle("/", http.HandlerFunc(s.serveUI))
	return mux
}

// route wraps a handler in the checks its table entry asks for: token,
// X-Client-ID and scope for /v1/*, Content-Type and size for bodies.
func (s *Server) route(rt Route) http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c hub.Caller
		if !rt.Public() {
			w.Header().Set("Cache-Control", "no-store")
			var err error
			if c, err = callerOf(r); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		if rt.Body {
			if err := s.checkBody(w, r); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		rt.handle(s, w, r, c)
	})
	if rt.Public() {
		return h
	}
	return s.requireToken(h)
}

// callerOf builds the Caller from X-Client-ID, ?scope and the surface
// requireToken proved from the request's credential (never from a header
// that names one).
func callerOf(r *http.Request) (hub.Caller, error) {
	ids := r.Header.Values("X-Client-ID")
	if len(ids) != 1 || !validClientID(ids[0]) {
		return hub.Caller{}, errorf(hub.CodeInvalidArgument, "X-Client-ID header must match [A-Za-z0-9._-]{1,64}")
	}
	c := hub.Caller{ClientID: ids[0]}
	switch scope := r.URL.Query().Get("scope"); scope {
	case "":
	case "all":
		c.All = true
	default:
		return hub.Caller{}, errorf(hub.CodeInvalidArgument, "scope must be \"all\" or absent")
	}
	c.Surface, _ = r.Context().Value(surfaceKey{}).(string)
	return c, nil
}

func validClientID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '.', b == '_', b == '-':
		default:
			return false
		}
	}
	return true
}

// checkBody requires Content-Type application/json (charset utf-8 if
// given) and a body of at most MaxBodyBytes, and caps r.Body at that size.
func (s *Server) checkBody(w http.ResponseWriter, r *http.Request) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errorf(CodeUnsupportedMediaType, "Content-Type must be application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errorf(CodeUnsupportedMediaType, "the body must be UTF-8 JSON")
	}
	if r.ContentLength > s.maxBody {
		return errorf(CodePayloadTooLarge, "request body is larger than %d bytes", s.maxBody)
	}
	// The innermost writer, so that net/http learns the limit was hit and
	// closes the connection instead of draining the rest of the body.
	r.Body = http.MaxBytesReader(innermost(w), r.Body, s.maxBody)
	return nil
}

// innermost unwraps w down to the server's own ResponseWriter.
func innermost(w http.ResponseWriter) http.ResponseWriter {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// notFound answers any request no route matched with 404 NOT_FOUND.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, errorf(hub.CodeNotFound, "no such endpoint"))
}

// serveUI serves the web build (GET, HEAD) with the UI's CSP.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.notFound(w, r)
		return
	}
	w.Header().Set("Content-Security-Policy", uiCSP)
	s.ui.ServeHTTP(w, r)
}
