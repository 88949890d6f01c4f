package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// Browser sessions (docs/API.md "Browser sign-in"). A sign-in code, handed
// out to a token holder by POST /v1/auth/codes, is traded once at
// GET /auth?code= for a session secret that the page keeps in its
// sessionStorage (which, unlike a cookie, is per origin: another port on
// 127.0.0.1 never sees it) and sends as "Authorization: Bearer <secret>".
// Codes and sessions live in memory only: a restart ends them.

// Limits of the tables; past one, the entry closest to its end goes.
const (
	maxSessions = 1024
	maxCodes    = 256
)

// sessionKey is the SHA-256 of a secret or code: tables store only these,
// so a lookup's timing says nothing about a valid secret.
type sessionKey [sha256.Size]byte

func keyOf(secret string) sessionKey { return sha256.Sum256([]byte(secret)) }

// newSecret is 32 random bytes, base64url.
func newSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// session is one browser session: it ends IdleTTL after its last request,
// or MaxTTL after it began, whichever is first, or at logout.
type session struct {
	created, used time.Time
	ctx           context.Context // cancelled when the session ends
	cancel        context.CancelFunc
}

// sessions is the table of browser sessions. Safe for concurrent use.
type sessions struct {
	idle, max time.Duration

	mu sync.Mutex
	m  map[sessionKey]*session // guarded by mu
}

func newSessions(idle, max time.Duration) *sessions {
	return &sessions{idle: idle, max: max, m: make(map[sessionKey]*session)}
}

// end is when s ends if not used again.
func (ss *sessions) end(s *session) time.Time {
	if e := s.created.Add(ss.max); e.Before(s.used.Add(ss.idle)) {
		return e
	}
	return s.used.Add(ss.idle)
}

// create starts a session and returns its secret.
func (ss *sessions) create(now time.Time) (string, error) {
	secret, err := newSecret()
	if err != nil {
		return "", err
	}
	// An open event stream is one request: the deadline ends it, like the
	// session, at the session's longest lifetime.
	ctx, cancel := context.WithTimeout(context.Background(), ss.max)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.m) >= maxSessions {
		ss.pruneLocked(now)
	}
	ss.m[keyOf(secret)] = &session{created: now, used: now, ctx: ctx, cancel: cancel}
	return secret, nil
}

// pruneLocked ends expired sessions, then, if the table is still full,
// the one closest to its end.
func (ss *sessions) pruneLocked(now time.Time) {
	var soonest sessionKey
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
	if len(ss.m) >= maxSessions {
		ss.dropLocked(soonest)
	}
}

func (ss *sessions) dropLocked(k sessionKey) {
	if s, ok := ss.m[k]; ok {
		s.cancel()
		delete(ss.m, k)
	}
}

// use reports whether secret is a live session and, if so, counts now as
// its last use. It returns the session's key and a context cancelled
// when it ends. An expired session is dropped.
func (ss *sessions) use(secret string, now time.Time) (sessionKey, context.Context, bool) {
	if secret == "" {
		return sessionKey{}, nil, false
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
func (ss *sessions) revoke(k sessionKey) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.m[k]
	ss.dropLocked(k)
	return ok
}

// clear ends every session.
func (ss *sessions) clear() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k := range ss.m {
		ss.dropLocked(k)
	}
}

// signInCode is an unused sign-in code: where the page goes once signed
// in, and when the code stops working.
type signInCode struct {
	next    string
	expires time.Time
}

// codes is the table of unused sign-in codes. Safe for concurrent use.
type codes struct {
	ttl time.Duration

	mu sync.Mutex
	m  map[sessionKey]signInCode // guarded by mu
}

func newCodes(ttl time.Duration) *codes {
	return &codes{ttl: ttl, m: make(map[sessionKey]signInCode)}
}

// create makes a code for next and returns it and when it expires.
func (cs *codes) create(next string, now time.Time) (string, time.Time, error) {
	code, err := newSecret()
	if err != nil {
		return "", time.Time{}, err
	}
	exp := now.Add(cs.ttl)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.m) >= maxCodes {
		var soonest sessionKey
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
	cs.m[keyOf(code)] = signInCode{next: next, expires: exp}
	return code, exp, nil
}

// take uses up code: it returns its next and true when the code exists
// and has not expired. Either way the code is gone after.
func (cs *codes) take(code string, now time.Time) (string, bool) {
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
func (cs *codes) clear() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	clear(cs.m)
}
