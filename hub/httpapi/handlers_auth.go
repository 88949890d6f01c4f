package httpapi

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// SessionStorageKey is the sessionStorage key under which the sign-in page
// leaves the browser login's secret for the web UI (frontend
// src/lib/transport.ts reads the same key).
const SessionStorageKey = "switchboard.session"

// loginCodeRequest is the body of POST /v1/auth/codes.
type loginCodeRequest struct {
	Next string `json:"next"`
}

// LoginLink is the answer of POST /v1/auth/codes.
type LoginLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// createLoginCode is POST /v1/auth/codes {next}: a one-time login link
// for a browser, GET /auth?code=<code> on the host the request named,
// usable once within the code lifetime, that opens next. Only the API
// token makes codes: a browser login cannot extend itself with one.
func (s *Server) createLoginCode(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if credentialOf(r).kind != credToken {
		s.writeError(w, r, &hub.Error{Code: hub.CodeForbidden, Message: "only the API token makes login links",
			Details: map[string]any{"reason": "BROWSER_SESSION"}})
		return
	}
	var req loginCodeRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	// r.Host passed the Host check: it names this hub.
	link, err := s.loginLink(r.Host, req.Next)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusCreated, link)
}

// sameOriginPath reports whether next is a path on the hub's own origin:
// it starts with one "/" (not "//" or "/\", which browsers read as another
// host), holds no backslash, control character or space, and parses with
// no scheme, host or user.
func sameOriginPath(next string) bool {
	if len(next) > 2048 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return false
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= 0x20 || c == 0x7f || c == '\\' {
			return false
		}
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && !u.ForceQuery
}

// logIn is GET /auth?code=<code>: a valid code starts a browser login
// and answers a small page that keeps the session's secret in
// sessionStorage and goes on to the code's next; a missing, used or
// expired code (or the removed ?token=) answers 401 with a page that says
// to open the link again from Switchboard. Nothing is set in a cookie.
func (s *Server) logIn(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		// A HEAD (an opener probing the link's type) must not use the
		// code up: the browser's GET comes next.
		h.Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		return
	}
	next, ok := s.codes.take(r.URL.Query().Get("code"), s.now())
	if !ok {
		s.writeSignedOutPage(w, http.StatusUnauthorized)
		return
	}
	secret, err := s.sessions.create(s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	nonce, err := newSecret()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// json.Marshal escapes <, > and & too: safe inside a script element.
	sec, _ := json.Marshal(secret)
	nx, _ := json.Marshal(next)
	key, _ := json.Marshal(SessionStorageKey)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`<!doctype html>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>Switchboard</title>
<p id="msg">Signing in…</p>
<script nonce="` + nonce + `">
try {
  sessionStorage.setItem(` + string(key) + `, ` + string(sec) + `);
  location.replace(` + string(nx) + `);
} catch (e) {
  document.getElementById("msg").textContent = "This browser refused to keep the sign-in (session storage is turned off), so Switchboard cannot sign it in.";
}
</script>
`))
}

// writeSignedOutPage answers status with a page saying how to sign in.
func (s *Server) writeSignedOutPage(w http.ResponseWriter, status int) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", apiCSP)
	w.WriteHeader(status)
	_, _ = w.Write([]byte("<!doctype html>\n<meta charset=\"utf-8\">\n<title>Switchboard: not signed in</title>\n<p>" +
		html.EscapeString(SignedOutMessage) + "</p>\n"))
}

// SignedOutMessage is what a browser without a valid sign-in reads (the
// web UI says the same).
const SignedOutMessage = "Open this link again from Switchboard (the tray's “Open Switchboard”): a login link works once, for 30 seconds."

// logout is POST /v1/auth/logout: it ends the calling browser login,
// and its open event streams with it. 204. The API token cannot log out
// (rotate it instead): 400 with details.reason NOT_A_SESSION.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	cred := credentialOf(r)
	if cred.kind != credSession {
		s.writeError(w, r, &hub.Error{Code: hub.CodeInvalidArgument, Message: "only a browser login logs out; rotate the token instead",
			Details: map[string]any{"reason": "NOT_A_SESSION"}})
		return
	}
	s.sessions.revoke(cred.session)
	w.WriteHeader(http.StatusNoContent)
}

// rotateToken is POST /v1/auth/token/rotate: the hub makes a new token,
// writes it to the token file (Options.RotateToken) and uses it from the
// answer on (RotateToken). 204. Only the API token may rotate it.
func (s *Server) rotateToken(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if credentialOf(r).kind != credToken {
		s.writeError(w, r, &hub.Error{Code: hub.CodeForbidden, Message: "only the API token rotates the token",
			Details: map[string]any{"reason": "BROWSER_SESSION"}})
		return
	}
	if s.rotate == nil {
		s.writeError(w, r, hub.Errorf(hub.CodeUpstreamUnavailable, "this hub cannot rotate its token over the API"))
		return
	}
	s.rotateMu.Lock()
	defer s.rotateMu.Unlock()
	tok, err := s.rotate()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.RotateToken(tok)
	s.log.Info("httpapi: API token rotated; browser logins ended")
	w.WriteHeader(http.StatusNoContent)
}
