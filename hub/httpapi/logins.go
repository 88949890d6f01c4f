package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// Browser logins (docs/API.md "Browser login"). A login code, handed
// out to a token holder by POST /v1/auth/codes, is traded once at
// GET /auth?code= for a session secret that the page keeps in its
// sessionStorage (which, unlike a cookie, is per origin: another port on
// 127.0.0.1 never sees it) and sends as "Authorization: Bearer <secret>".
// Codes and sessions live in memory only: a restart ends them.

// Limits of the tables; past one, the entry closest to its end goes.
const (
	maxLogins = 1024
	maxCodes  = 256
)

// loginKey is the SHA-256 of a secret or code: tables store only these,
// so a lookup's timing says nothing about a valid secret.
type loginKey [sha256.Size]byte

func keyOf(secret string) loginKey { return sha256.Sum256([]byte(secret)) }

// newSecret is 32 random bytes, base64url.
func newSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// browserLogin is one browser browserLogin: it ends IdleTTL after its last request,
// or MaxTTL after it began, whichever is first, or at logout.
type browserLogin struct {
	created, used time.Time
	ctx           context.Context // cancelled when the session ends
	cancel        context.CancelFunc
}

// browserLogins is the table of browser browserLogins. Safe for concurrent use.
type browserLogins struct {
	idle, max time.Duration

	mu sync.Mutex
	m  map[loginKey]*browserLogin // guarded by mu
}

func newBrowserLogins(idle, max time.Duration) *browserLogins {
	return &browserLogins{idle: idle, max: max, m: make(map[loginKey]*browserLogin)}
}

// end is when s ends if not used again.
func (ss *browserLogins) end(s *browserLogin) time.Time {
	if e := s.created.Add(ss.max); e.Before(s.used.Add(ss.idle)) {
		return e
	}
	return s.used.Add(ss.idle)
}

// create starts a session and returns its secret.
func (ss *browserLogins) create(now time.Time) (string, error) {
	secret, err := newSecret()
	if err != nil {
		return "", err
	}
	// An open event stream is one request: the deadline ends it, like the
	// session, at the session's longest lifetime.
	ctx, cancel := context.WithTimeout(context.Background(), ss.max)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.m) >= maxLogins {
		ss.pruneLocked(now)
	}
	ss.m[keyOf(secret)] = &browserLogin{created: now, used: now, ctx: ctx, cancel: cancel}
	return secret, nil
}

// pruneLocked ends expired sessions, then, if the table is still full,
// the one closest to its end.
func (ss *browserLogins) pruneLocked(now time.Time) {
	var soonest loginKey
	var soonestAt time.Time
	for k, s := range ss.m {
		end := ss.end(s)
		if !now.Before(end) {
			ss.dropLocked(k)
			continue
		}
		if soonestAt.IsZero() || end.Before(soonestAt) {
			soonest, soonestAt = k, end
		}
	}
	if len(ss.m) >= maxLogins {
		ss.dropLocked(soonest)
	}
}

func (ss *browserLogins) dropLocked(k loginKey) {
	if s, ok := ss.m[k]; ok {
		s.cancel()
		delete(ss.m, k)
	}
}

// use reports whether secret is a live session and, if so, counts now as
// its last use. It returns the session's key and a context cancelled
// when it ends. An expired session is dropped.
func (ss *browserLogins) use(secret string, now time.Time) (loginKey, context.Context, bool) {
	if secret == "" {
		return loginKey{}, nil, false
	}
	k := keyOf(secret)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[k]
	if !ok {
		return k, nil, false
	}
	if !now.Before(ss.end(s)) {
		ss.dropLocked(k)
		return k, nil, false
	}
	s.used = now
	return k, s.ctx, true
}

// revoke ends the session k (logout). It reports whether there was one.
func (ss *browserLogins) revoke(k loginKey) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.m[k]
	ss.dropLocked(k)
	return ok
}

// clear ends every session.
func (ss *browserLogins) clear() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k := range ss.m {
		ss.dropLocked(k)
	}
}

// loginCode is an unused login code: where the page goes once signed
// in, and when the code stops working.
type loginCode struct {
	next    string
	expires time.Time
}

// loginCodes is the table of unused sign-in loginCodes. Safe for concurrent use.
type loginCodes struct {
	ttl time.Duration

	mu sync.Mutex
	m  map[loginKey]loginCode // guarded by mu
}

func newLoginCodes(ttl time.Duration) *loginCodes {
	return &loginCodes{ttl: ttl, m: make(map[loginKey]loginCode)}
}

// create makes a code for next and returns it and when it expires.
func (cs *loginCodes) create(next string, now time.Time) (string, time.Time, error) {
	code, err := newSecret()
	if err != nil {
		return "", time.Time{}, err
	}
	exp := now.Add(cs.ttl)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.m) >= maxCodes {
		var soonest loginKey
		var soonestAt time.Time
		for k, c := range cs.m {
			if !now.Before(c.expires) {
				delete(cs.m, k)
			} else if soonestAt.IsZero() || c.expires.Before(soonestAt) {
				soonest, soonestAt = k, c.expires
			}
		}
		if len(cs.m) >= maxCodes {
			delete(cs.m, soonest)
		}
	}
	cs.m[keyOf(code)] = loginCode{next: next, expires: exp}
	return code, exp, nil
}

// take uses up code: it returns its next and true when the code exists
// and has not expired. Either way the code is gone after.
func (cs *loginCodes) take(code string, now time.Time) (string, bool) {
	if code == "" {
		return "", false
	}
	k := keyOf(code)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.m[k]
	delete(cs.m, k)
	if !ok || !now.Before(c.expires) {
		return "", false
	}
	return c.next, true
}

// clear forgets every code.
func (cs *loginCodes) clear() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	clear(cs.m)
}
