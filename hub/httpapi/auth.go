package httpapi

import (
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

// authorized reports whether r carries the token: in an
// "Authorization: Bearer <token>" header, or else a live session cookie
// from GET /auth. A request with an Authorization header is judged by it
// alone. The query string is never read.
func (s *Server) authorized(r *http.Request) bool {
	if vals, ok := r.Header["Authorization"]; ok {
		if len(vals) != 1 {
			return false
		}
		scheme, tok, found := strings.Cut(strings.TrimSpace(vals[0]), " ")
		return found && strings.EqualFold(scheme, "Bearer") && s.token.matches(strings.TrimSpace(tok))
	}
	if c, err := r.Cookie(s.cookieName()); err == nil {
		return s.sessions.valid(c.Value, s.now())
	}
	return false
}

// requireToken answers 401 UNAUTHORIZED, before any other /v1 check and
// before any SSE byte, unless the request is authorized.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			s.writeError(w, r, errorf(hub.CodeUnauthorized, "missing or wrong API token"))
			return
		}
		next.ServeHTTP(w, r)
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
