// Package httpapi is the hub's localhost HTTP/SSE API (docs/API.md,
// docs/openapi.yaml): a thin adapter that decodes a request, makes one
// hub.Service call and encodes the answer, behind the security checks of
// API.md "Transport and security".
//
// Every request passes, in order: request log → panic recovery → security
// headers → Host check → Origin check → Sec-Fetch-Site check → the route.
// /v1/* routes then check the credential (the API token or a browser
// session's secret, both as a bearer header) and note the deciding surface
// it proves (requireToken), the X-Client-ID header and ?scope, and routes
// with a body its Content-Type and
// size, before their handler runs.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Defaults.
const (
	DefaultPingInterval = 15 * time.Second
	// A browser login ends after DefaultLoginIdle without a request,
	// or DefaultSessionMax after sign-in, whichever comes first.
	DefaultLoginIdle = 12 * time.Hour
	DefaultLoginMax  = 24 * time.Hour
	// DefaultCodeTTL is how long a login code from POST /v1/auth/codes
	// works (once).
	DefaultCodeTTL = 30 * time.Second
	// MaxBodyBytes is the largest request body accepted (API.md: 10 MiB).
	MaxBodyBytes = 10 << 20
)

// Options configure a Server. Only Token is required.
type Options struct {
	// Logger receives one line per request and the causes of 5xx answers.
	// Nil discards.
	Logger *slog.Logger
	// Token is the API token (the hex text of <data-dir>/token). Bearer
	// headers are compared with it in constant time. Empty refuses every
	// /v1 request but a browser login's (and no session can start).
	// RotateToken replaces it.
	Token string
	// Port is the port the hub listens on, for the Host and Origin checks.
	// Serve sets it from its listener; a caller serving the Server through
	// its own http.Server calls SetPort once it knows the port. Until then
	// (0) only AllowedHosts and AllowedOrigins pass.
	Port int
	// AllowedHosts are Host values accepted besides 127.0.0.1, localhost and
	// [::1] at Port: "name" accepts name:<Port> and a bare name; "name:port"
	// only that. AllowedOrigins are Origin values accepted besides the
	// hub's own (scheme://host[:port], compared case-insensitively). Both
	// can change later through SetAllowed.
	AllowedHosts   []string
	AllowedOrigins []string
	// Version is reported by GET /healthz.
	Version string
	// LogID, the event log's identity (store.DB.LogID), is reported by GET
	// /healthz as logId: a client that kept a seq compares it to tell a
	// log that started over from the one it left (ADR 0053).
	LogID string
	// UI serves the web build at "/" (GET and HEAD). Nil serves a plain
	// placeholder page.
	UI http.Handler
	// PingInterval is how often an idle SSE stream gets ": ping"
	// (default 15s).
	PingInterval time.Duration
	// LoginIdle and LoginMax bound a browser login from
	// GET /auth?code= (defaults DefaultSessionIdle, DefaultSessionMax);
	// CodeTTL a login code (default DefaultCodeTTL). Sessions and codes
	// live in memory: a restart ends them.
	LoginIdle, LoginMax, CodeTTL time.Duration
	// Now is the clock for session and code expiry (default time.Now).
	Now func() time.Time
	// RotateToken, when set, serves POST /v1/auth/token/rotate: it makes
	// a new token, stores it where clients read it (the token file) and
	// returns it; the Server then uses it instead of the old one. Nil
	// answers that endpoint UPSTREAM_UNAVAILABLE.
	RotateToken func() (string, error)
	// Quit, when set, is called (once, on its own goroutine) by
	// POST /v1/shutdown: the process that runs the hub shuts it down
	// gracefully. Nil answers that endpoint UPSTREAM_UNAVAILABLE.
	Quit func()
	// Limits bound the streams per client and the size of an event sent
	// whole on a stream (zero fields: the defaults); SetLimits changes
	// them later.
	Limits Limits

	maxBody int64 // the body limit; 0 is MaxBodyBytes (tests lower it)
}

// Server is the HTTP/SSE API over one hub.Services. It is an http.Handler;
// Serve and Shutdown run it on a listener with sane timeouts. It is safe
// for concurrent use.
type Server struct {
	svc       hub.Service  // svcs.Service
	svcs      hub.Services // the capabilities: a nil one answers its routes NOT_FOUND
	subscribe func(ctx context.Context, c hub.Caller, threadID string, after int64) (eventStream, error)
	log       *slog.Logger
	tok       atomic.Pointer[tokenGen]
	version   string
	logID     string
	ui        http.Handler
	ping      time.Duration
	now       func() time.Time
	sessions  *browserLogins
	codes     *loginCodes
	rotate    func() (string, error)
	rotateMu  sync.Mutex // serialises rotations
	maxBody   int64
	handler   http.Handler
	quit      func()
	quitOnce  sync.Once

	port    atomic.Int64
	allow   atomic.Pointer[allowList]
	limits  atomic.Pointer[Limits]
	streams streamCounts
	// traySecret is the hash of the app's tray's per-launch secret
	// (SetTraySecret); its zero value matches nothing.
	traySecret atomic.Pointer[tokenHash]
	// linkSecret is the hash of the secret of the links to this hub
	// (SetLinkSecret); its zero value matches nothing.
	linkSecret atomic.Pointer[tokenHash]

	closing chan struct{} // closed by Shutdown: SSE streams end

	mu     sync.Mutex // guards hs and closed
	hs     *http.Server
	closed bool
}

// New returns a Server for svcs: svcs.Service is required; each other
// capability that is nil answers its routes 404 NOT_FOUND with its
// hub.ErrNo… error (GET /v1/agents then has no node). It panics only on a
// programming error in the route table.
func New(svcs hub.Services, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = DefaultPingInterval
	}
	if opts.LoginIdle <= 0 {
		opts.LoginIdle = DefaultLoginIdle
	}
	if opts.LoginMax <= 0 {
		opts.LoginMax = DefaultLoginMax
	}
	if opts.CodeTTL <= 0 {
		opts.CodeTTL = DefaultCodeTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.UI == nil {
		opts.UI = placeholderUI{}
	}
	if opts.maxBody <= 0 {
		opts.maxBody = MaxBodyBytes
	}
	s := &Server{
		svc:      svcs.Service,
		svcs:     svcs,
		log:      opts.Logger,
		version:  opts.Version,
		logID:    opts.LogID,
		ui:       opts.UI,
		ping:     opts.PingInterval,
		now:      opts.Now,
		sessions: newBrowserLogins(opts.LoginIdle, opts.LoginMax),
		codes:    newLoginCodes(opts.CodeTTL),
		rotate:   opts.RotateToken,
		quit:     opts.Quit,
		maxBody:  opts.maxBody,
		closing:  make(chan struct{}),
	}
	s.tok.Store(newTokenGen(opts.Token))
	s.subscribe = subscriberOf(svcs.Service)
	s.SetPort(opts.Port)
	s.SetAllowed(opts.AllowedHosts, opts.AllowedOrigins)
	s.SetTraySecret("")
	s.SetLinkSecret("")
	s.SetLimits(opts.Limits)
	s.handler = s.logRequests(s.recoverPanics(s.securityHeaders(
		s.checkHost(s.checkOrigin(s.checkFetchSite(s.newMux()))))))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// SetPort sets the port the Host and Origin checks expect.
func (s *Server) SetPort(port int) { s.port.Store(int64(port)) }

// Port returns the port the Host and Origin checks expect (0: not known).
func (s *Server) Port() int { return int(s.port.Load()) }

// Serve serves on l until Shutdown, like http.Server.Serve (it returns
// http.ErrServerClosed after Shutdown). It takes the port for the Host and
// Origin checks from l. The http.Server has a ReadHeaderTimeout and an
// IdleTimeout but no WriteTimeout, which would cut SSE streams.
func (s *Server) Serve(l net.Listener) error {
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		s.SetPort(a.Port)
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	if s.hs != nil {
		s.mu.Unlock()
		return errors.New("httpapi: Serve called twice")
	}
	s.hs = hs
	s.mu.Unlock()
	return hs.Serve(l)
}

// Shutdown ends every SSE stream, then shuts down what Serve started
// (waiting for other requests until ctx is done). Safe to call more than
// once, and without Serve (SSE streams still end).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	hs := s.hs
	s.mu.Unlock()
	if hs == nil {
		return nil
	}
	return hs.Shutdown(ctx)
}

// eventStream is what the SSE writer reads: *hub.Subscription is one.
type eventStream interface {
	Events() <-chan hub.Event
	Close()
}

func subscriberOf(svc hub.Service) func(context.Context, hub.Caller, string, int64) (eventStream, error) {
	return func(ctx context.Context, c hub.Caller, threadID string, after int64) (eventStream, error) {
		sub, err := svc.Subscribe(ctx, c, threadID, after)
		if err != nil {
			return nil, err
		}
		if sub == nil {
			return nil, errors.New("httpapi: Subscribe returned no subscription")
		}
		return sub, nil
	}
}

// placeholderUI is served at "/" when no web build is given.
type placeholderUI struct{}

func (placeholderUI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte("<!doctype html>\n<meta charset=\"utf-8\">\n<title>Switchboard</title>\n" +
		"<p>Switchboard is running. This build has no web UI; the API is at /v1/ (see docs/API.md).</p>\n"))
}
