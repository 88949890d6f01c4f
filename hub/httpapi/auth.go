package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// tokenHash is the SHA-256 of the API token; ok is false when there is no
// token (then nothing matches). Comparing hashes in constant time hides
// even the token's length.
type tokenHash struct {
	sum [sha256.Size]byte
	ok  bool
}

func hashToken(t string) tokenHash {
	return tokenHash{sum: sha256.Sum256([]byte(t)), ok: t != ""}
}

// matches reports, in constant time, whether given is the token.
func (h tokenHash) matches(given string) bool {
	g := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(h.sum[:], g[:]) == 1 && h.ok && given != ""
}

// credential is what authorized a /v1 request.
type credential int

const (
	credNone    credential = iota // nothing valid: 401
	credToken                     // the API token as a bearer
	credBrowser                   // a browser session (see authenticate)
)

// authenticate says which credential r carries: the token in an
// "Authorization: Bearer <token>" header, or else a live session cookie
// from GET /auth. A request with an Authorization header is judged by it
// alone. The query string is never read.
func (s *Server) authenticate(r *http.Request) credential {
	if vals, ok := r.Header["Authorization"]; ok {
		if len(vals) != 1 {
			return credNone
		}
		scheme, tok, found := strings.Cut(strings.TrimSpace(vals[0]), " ")
		if found && strings.EqualFold(scheme, "Bearer") && s.token.matches(strings.TrimSpace(tok)) {
			return credToken
		}
		return credNone
	}
	if c, err := r.Cookie(s.cookieName()); err == nil && s.sessions.valid(c.Value, s.now()) {
		return credBrowser
	}
	return credNone
}

// surfaceOf is the deciding surface r's credential proves (hub.Caller's
// Surface): "browser" for a browser session, "tray" for the token with
// the tray's per-launch secret in TraySecretHeader, "" otherwise. This is
// the one place a request's surface is decided; no header names it.
func (s *Server) surfaceOf(r *http.Request, cred credential) string {
	switch cred {
	case credBrowser:
		return hub.SurfaceBrowser
	case credToken:
		if vals := r.Header.Values(hub.TraySecretHeader); len(vals) == 1 && s.traySecret.Load().matches(vals[0]) {
			return hub.SurfaceTray
		}
	}
	return ""
}

// SetTraySecret sets the per-launch secret of the tray the app started
// (empty: none). A request with the token and this secret in
// X-Switchboard-Tray decides as "tray". Safe for concurrent use.
func (s *Server) SetTraySecret(secret string) {
	h := hashToken(secret)
	s.traySecret.Store(&h)
}

// surfaceKey is the request context key of the surface requireToken found.
type surfaceKey struct{}

// requireToken answers 401 UNAUTHORIZED, before any other /v1 check and
// before any SSE byte, unless the request is authorized; it puts the
// surface its credential proves in the request's context for callerOf.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred := s.authenticate(r)
		if cred == credNone {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			s.writeError(w, r, errorf(hub.CodeUnauthorized, "missing or wrong API token"))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), surfaceKey{}, s.surfaceOf(r, cred))))
	})
}

// cookieName is the session cookie's name. Cookies are per host, not per
// port, so the port is part of the name: two hubs on one machine keep
// their sessions apart.
func (s *Server) cookieName() string {
	return "switchboard_session_" + strconv.Itoa(s.Port())
}

// login is GET /auth?token=<token>: with the right token it starts a
// browser session (an HttpOnly, SameSite=Strict cookie holding a random
// session id, never the token) and redirects 303 to "/" without the token;
// a wrong or missing token is 401.
func (s *Server) login(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	w.Header().Set("Cache-Control", "no-store")
	if !s.token.matches(r.URL.Query().Get("token")) {
		s.writeError(w, r, errorf(hub.CodeUnauthorized, "missing or wrong token"))
		return
	}
	id, err := s.sessions.create(s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     s.cookieName(),
		Value:    id,
		Path:     "/",
		MaxAge:   int(s.sessions.ttl / time.Second),
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	w.Header().Set("Location", "/")
	w.WriteHeader(http.StatusSeeOther)
}

// maxSessions bounds the session table; past it the session closest to
// expiry is dropped.
const maxSessions = 1024

// sessions maps browser session ids to their expiry. Ids are stored hashed,
// so a lookup's timing says nothing about a valid id.
type sessions struct {
	ttl time.Duration

	mu sync.Mutex
	m  map[[sha256.Size]byte]time.Time // guarded by mu
}

func newSessions(ttl time.Duration) *sessions {
	return &sessions{ttl: ttl, m: make(map[[sha256.Size]byte]time.Time)}
}

// create starts a session and returns its id: 32 random bytes, base64url.
func (ss *sessions) create(now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := base64.RawURLEncoding.EncodeToString(b[:])
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.m) >= maxSessions {
		ss.pruneLocked(now)
	}
	ss.m[sha256.Sum256([]byte(id))] = now.Add(ss.ttl)
	return id, nil
}

// pruneLocked drops expired sessions, then, if the table is still full,
// the one closest to expiry.
func (ss *sessions) pruneLocked(now time.Time) {
	var soonest [sha256.Size]byte
	var soonestAt time.Time
	for k, exp := range ss.m {
		if !now.Before(exp) {
			delete(ss.m, k)
			continue
		}
		if soonestAt.IsZero() || exp.Before(soonestAt) {
			soonest, soonestAt = k, exp
		}
	}
	if len(ss.m) >= maxSessions {
		delete(ss.m, soonest)
	}
}

// valid reports whether id is a live session.
func (ss *sessions) valid(id string, now time.Time) bool {
	if id == "" {
		return false
	}
	k := sha256.Sum256([]byte(id))
	ss.mu.Lock()
	defer ss.mu.Unlock()
	exp, ok := ss.m[k]
	if ok && !now.Before(exp) {
		delete(ss.m, k)
		return false
	}
	return ok
}
