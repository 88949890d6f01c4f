package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"

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

// tokenGen is one API token in force: from start, or from a rotation to
// the next. ctx is cancelled when the token is rotated away, which ends
// every request (event streams included) that it authorized.
type tokenGen struct {
	token  string // for the /healthz proof; never logged
	hash   tokenHash
	ctx    context.Context
	cancel context.CancelFunc
}

func newTokenGen(token string) *tokenGen {
	ctx, cancel := context.WithCancel(context.Background())
	return &tokenGen{token: token, hash: hashToken(token), ctx: ctx, cancel: cancel}
}

// credKind says what authorized a request.
type credKind int

const (
	credToken   credKind = iota + 1 // the API token (Authorization: Bearer <token>)
	credSession                     // a browser login's secret (Bearer <secret>)
)

// credential is what authorized a request: its kind, the session (for
// credSession), and a context cancelled when it is revoked (logout,
// expiry is checked per request, a token rotation).
type credential struct {
	kind    credKind
	session loginKey
	revoked context.Context
}

type credKey struct{}

// credentialOf is the credential requireToken found on r (zero outside /v1).
func credentialOf(r *http.Request) credential {
	c, _ := r.Context().Value(credKey{}).(credential)
	return c
}

// authenticate returns what r's "Authorization: Bearer <x>" carries: the
// API token (compared in constant time) or a live browser login's
// secret. Exactly one Authorization header; the query string and cookies
// are never read.
func (s *Server) authenticate(r *http.Request) (credential, bool) {
	vals := r.Header["Authorization"]
	if len(vals) != 1 {
		return credential{}, false
	}
	scheme, given, found := strings.Cut(strings.TrimSpace(vals[0]), " ")
	given = strings.TrimSpace(given)
	if !found || !strings.EqualFold(scheme, "Bearer") || given == "" {
		return credential{}, false
	}
	gen := s.tok.Load()
	if gen.hash.matches(given) {
		return credential{kind: credToken, revoked: gen.ctx}, true
	}
	if k, ctx, ok := s.sessions.use(given, s.now()); ok {
		return credential{kind: credSession, session: k, revoked: ctx}, true
	}
	return credential{}, false
}

// surfaceOf is the deciding surface r's credential proves (hub.Caller's
// Surface): "browser" for a browser login, "tray" for the token with
// the tray's per-launch secret in TraySecretHeader, "link:<surface>" for
// the token with the link secret in LinkSecretHeader, "" otherwise. This is
// the one place a request's surface is decided; no header names it.
func (s *Server) surfaceOf(r *http.Request, cred credential) string {
	switch cred.kind {
	case credSession:
		return hub.SurfaceBrowser
	case credToken:
		if vals := r.Header.Values(hub.TraySecretHeader); len(vals) == 1 && s.traySecret.Load().matches(vals[0]) {
			return hub.SurfaceTray
		}
		if vals := r.Header.Values(hub.LinkSecretHeader); len(vals) == 1 && s.linkSecret.Load().matches(vals[0]) {
			return hub.LinkSurface(r.Header.Get(hub.LinkSurfaceHeader)) // "" for a surface no hub names
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

// SetLinkSecret sets the secret of the links to this hub (empty: none;
// hub/host.go): a request with the token and this secret in
// X-Switchboard-Link decides as "link:<X-Switchboard-Link-Surface>", the
// surface that decided on the hub at the other end of the link. Safe for
// concurrent use.
func (s *Server) SetLinkSecret(secret string) {
	h := hashToken(secret)
	s.linkSecret.Store(&h)
}

// surfaceKey is the request context key of the surface requireToken found.
type surfaceKey struct{}

// requireToken answers 401 UNAUTHORIZED, before any other /v1 check and
// before any SSE byte, unless the request carries a credential; it puts
// the surface that credential proves in the request's context for
// callerOf. The
// handler then runs with a context that ends when that credential is
// revoked (a logout, a token rotation): an open event stream ends with it.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred, ok := s.authenticate(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			s.writeError(w, r, errorf(hub.CodeUnauthorized, "missing or wrong API token or browser login"))
			return
		}
		ctx := context.WithValue(r.Context(), credKey{}, cred)
		ctx = context.WithValue(ctx, surfaceKey{}, s.surfaceOf(r, cred))
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(cred.revoked, cancel)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// maxNonce bounds the nonce of GET /healthz?nonce=.
const maxNonce = 256

// healthProof is hex(HMAC-SHA256(key: the token, message: nonce)): the
// answer to GET /healthz?nonce=, by which a client checks that the process
// at hub.json's address knows the token before it sends it there. The
// token keys no other HMAC, so the hub answering any nonce gives nobody
// anything to replay elsewhere.
func healthProof(token, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// validNonce: 1 to maxNonce printable ASCII characters.
func validNonce(n string) bool {
	if n == "" || len(n) > maxNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < 0x21 || n[i] > 0x7e {
			return false
		}
	}
	return true
}

// RotateToken makes tok the API token from now on: the old token is
// refused, every request it authorized (open event streams included)
// ends, and every browser login and unused login code ends too (they
// were given to holders of the old token). Safe for concurrent use.
func (s *Server) RotateToken(tok string) {
	old := s.tok.Swap(newTokenGen(tok))
	s.sessions.clear()
	s.codes.clear()
	if old != nil {
		old.cancel()
	}
}
