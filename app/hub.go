package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/daemon"
	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/agentsetup"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/hub/hostmirror"
	"github.com/switchboard-hub/switchboard/hub/hosts"
	"github.com/switchboard-hub/switchboard/hub/httpapi"
	"github.com/switchboard-hub/switchboard/hub/redact"
	"github.com/switchboard-hub/switchboard/store"
)

// runningHub is the hub of one process: store, engine and HTTP API, as the
// headless `serve` and the desktop app both run it.
type runningHub struct {
	log        *slog.Logger
	dataDir    string
	configPath string
	started    config.Config // as read at start; currentConfig is the live one
	listen     string        // the address served, which a config edit does not change
	url        string
	token      string
	db         *store.DB
	engine     *engine.Engine
	// services is what the adapters take (the API, the window's
	// bindings): the engine's and those beside it.
	services hub.Services
	http     *httpapi.Server
	unlock   func()
	served   chan error
	// quit is closed when a client asks the hub to shut down
	// (POST /v1/shutdown); whoever runs the hub then stops it.
	quit     chan struct{}
	quitOnce sync.Once

	live     atomic.Pointer[config.Config] // the config applied last
	watcher  *config.Watcher               // set before the API serves; not started when live reload is off
	errHook  atomic.Pointer[func(error)]
	applyMu  sync.Mutex           // serialises applyConfig
	override bool                 // --listen was given: the file's listen is not used
	installs *agentsetup.Installs // agents installed into <data-dir>/agents
	auth     *agentsetup.SignIns  // agents' sign-ins
	hosts    *hostmirror.Hosts    // the hosts' copies, and calls on their ids (issue 30)
	links    *hosts.Registry      // the ssh links to other machines' hubs (hosts.go)
	followed map[string]bool      // the links' hosts the mirror follows (followHosts; config reloads run one at a time)
}

// startHub opens the data dir (lock, token, database), reads the config,
// starts the engine and serves the API on the configured address, then
// writes hub.json. On error everything started so far is stopped.
func startHub(ctx context.Context, e *env, o Options) (_ *runningHub, err error) {
	h := &runningHub{dataDir: o.DataDir, served: make(chan error, 1), quit: make(chan struct{})}
	// Logs are redacted like what is stored, by the live config's switch
	// (on until the config is read).
	log := slog.New(redact.Handler(slog.NewTextHandler(e.stdio.Err, &slog.HandlerOptions{Level: logLevel()}), func() bool {
		c := h.live.Load()
		return c == nil || c.Redaction.Enabled
	}))
	h.log = log
	defer func() {
		if err != nil {
			h.stop(context.Background())
		}
	}()

	if err := datadir.Ensure(o.DataDir); err != nil {
		return nil, err
	}
	if h.unlock, err = datadir.Lock(o.DataDir); err != nil {
		if errors.Is(err, datadir.ErrHubRunning) {
			if d, derr := datadir.ReadDiscovery(o.DataDir); derr == nil {
				return nil, fmt.Errorf("%w (pid %d, %s)", err, d.PID, d.URL)
			}
		}
		return nil, err
	}
	if pid, ok := datadir.RemoveStale(o.DataDir); ok {
		log.Warn("removed a stale hub.json left by a hub that did not exit cleanly", "pid", pid)
	}
	h.configPath, err = configPath(o)
	if err != nil {
		return nil, err
	}
	if h.started, err = config.Load(h.configPath, o.Config != ""); err != nil {
		return nil, err
	}
	h.live.Store(&h.started)
	listen := h.started.Listen
	h.override = o.Listen != ""
	if o.Listen != "" {
		listen = o.Listen
		if err := config.CheckListen(listen, h.started.AllowPublic); err != nil {
			return nil, fmt.Errorf("--listen: %w", err)
		}
	}
	if configFolderIsHome(h.configPath) {
		log.Warn("the config file's folder is protected from agents, and it is your home folder: agents will be refused every file in it; move the config into a folder of its own", "config", h.configPath)
	}
	if h.token, err = datadir.LoadOrCreateToken(o.DataDir); err != nil {
		return nil, err
	}
	if h.db, err = store.Open(filepath.Join(o.DataDir, datadir.DatabaseFile), store.Options{Logger: log, SearchOff: !h.started.Search.Enabled}); err != nil {
		return nil, err
	}
	h.installs = agentsetup.NewInstalls(agentsetup.Options{DataDir: o.DataDir, NPMRegistry: h.started.Install.Registry,
		Current:   func() agentsetup.Source { return agentSource(h.currentConfig()) },
		SetAgents: func(specs []acp.AgentSpec) { h.engine.SetAgents(specs) },
		Announce:  func(typ string, payload any) error { return h.engine.Announce(typ, payload) },
		Logger:    log})
	h.auth = agentsetup.NewSignIns(agentsetup.SignInOptions{Catalogue: h.installs.Live,
		Authenticate: func(ctx context.Context, agent, method string) error {
			return h.engine.AuthenticateAgent(ctx, agent, method)
		},
		SignedIn:     func(agent string) { h.engine.SignedIn(agent) },
		Logout:       func(ctx context.Context, agent string) error { return h.engine.LogoutAgent(ctx, agent) },
		AgentOptions: supervisedAgents(log), Logger: log})
	h.engine, err = engine.New(ctx, engine.Options{
		Store: h.db, Logger: log, Config: h.started.EngineConfig(), Agents: h.installs.Catalogue(agentSource(h.started)),
		AgentOptions: supervisedAgents(log),
		// Whatever anyone approves, an agent never reads or writes these.
		Protected: protectedPaths(o.DataDir, h.configPath),
		// Versions and capabilities for GET /v1/agents (the editor bridge's
		// initialize) before any thread has run an agent; in the
		// background, so the API is ready at once.
		ProbeAgents: true,
	})
	if err != nil {
		return nil, err
	}
	ln, err := listenOn(listen, o.Socket)
	if err != nil {
		return nil, err
	}
	// The watcher exists before the API serves (PATCH /v1/settings edits
	// the file through it) and starts after (its first check may apply).
	h.watcher = config.NewWatcher(h.configPath, h.started, log, h.applyConfig, h.configError)
	// The hub's capabilities, one line each (hub.Services).
	h.services = h.engine.Services()
	settings := h.settingsService()
	h.services.Settings = settings
	// Every host's threads beside the local ones; calls on them forwarded.
	// The mirror exists before the links, which wake it (startHosts).
	h.hosts = hostmirror.New(hostmirror.Local{Mirror: h.engine.Mirror, HostSeq: h.db.HostSeq}, hostmirror.Options{Logger: log})
	h.links = h.startHosts(settings)
	h.services.Hosts = h.links
	h.services.Installer = h.installs
	h.services.AgentAuth = h.auth
	h.services = hostmirror.Route(h.services, h.hosts)
	h.http = httpapi.New(h.services, httpapi.Options{
		Logger: log, Token: h.token, Version: version, LogID: h.db.LogID(), UI: uiHandler(e.assets.Frontend),
		AllowedHosts: h.started.AllowedHosts, AllowedOrigins: h.started.AllowedOrigins,
		Quit: func() { h.quitOnce.Do(func() { close(h.quit) }) },
		// POST /v1/auth/token/rotate (`switchboard token rotate`): the
		// hub writes the new token itself, so the file and the token in
		// force change together.
		RotateToken: func() (string, error) { return datadir.RotateToken(o.DataDir) },
		Limits:      apiLimits(h.started),
	})
	// The port is known now (Serve sets it again): login links made before
	// the serving goroutine runs name it.
	h.listen, h.url = listen, client.SocketURL
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		h.http.SetPort(a.Port)
		h.url = "http://" + urlHost(a)
	} else {
		h.listen = o.Socket
	}
	linkSecret, err := datadir.NewLinkSecret(o.DataDir)
	if err != nil {
		return nil, err
	}
	h.http.SetLinkSecret(linkSecret)
	if err := hostmirror.AddFileLinks(h.hosts, filepath.Join(o.DataDir, datadir.HostsDir)); err != nil {
		log.Warn("a host is not linked", "err", err)
	}
	h.followHosts(config.HostList(h.started)) // the ssh links' hosts, copied
	go func() { h.served <- h.http.Serve(ln) }()
	// Before hub.json: whoever finds the hub finds the entry as the
	// config says.
	h.syncAutostart(h.started.Tray.Autostart)
	if err := datadir.WriteDiscovery(o.DataDir, hub.Discovery{URL: h.url, Socket: o.Socket, PID: os.Getpid(), Version: version, Window: o.window}); err != nil {
		return nil, err
	}
	h.installs.CheckAllLatest() // in the background; npm asked at most daily
	// The ACP registry's cached copy only: a client listing the agents
	// fetches it (RefreshRegistry).
	h.installs.LoadRegistry(context.Background(), agentSource(h.started), false)
	if err := h.watcher.Start(); err != nil {
		// Settings edits still apply through it; hand edits wait for a
		// restart.
		log.Warn("config live reload is off", "err", err)
	}
	return h, nil
}

// listenOn is the API's listener: the unix socket when given (--socket),
// else TCP on listen.
func listenOn(listen, socket string) (net.Listener, error) {
	if socket != "" {
		return datadir.ListenSocket(socket)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", listen, err)
	}
	return ln, nil
}

func logLevel() slog.Level {
	if os.Getenv("SWITCHBOARD_DEBUG") != "" {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// urlHost is the host:port clients should use: loopback listeners by their
// address, a wildcard listener by 127.0.0.1.
func urlHost(a *net.TCPAddr) string {
	if a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(a.Port))
	}
	return net.JoinHostPort(a.IP.String(), fmt.Sprint(a.Port))
}

// stop shuts the hub down gracefully, bounded by ctx: no new requests, SSE
// streams ended, running turns cancelled, pending permissions cancelled
// (never approved), agents stopped, the store flushed and closed, hub.json
// removed, the data dir unlocked. Safe on a partly started hub.
func (h *runningHub) stop(ctx context.Context) error {
	var errs []error
	if h.watcher != nil {
		h.watcher.Close()
	}
	if h.http != nil {
		if err := h.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http: %w", err))
		}
		os.Remove(filepath.Join(h.dataDir, datadir.DiscoveryFile))
	}
	if h.links != nil {
		h.links.Close()
	}
	if h.installs != nil {
		h.installs.Stop(ctx)
	}
	if h.auth != nil {
		h.auth.Stop()
	}
	if h.hosts != nil {
		h.hosts.Close()
	}
	if h.engine != nil {
		errs = append(errs, h.engine.Close(ctx))
	}
	if h.db != nil {
		errs = append(errs, h.db.Close())
	}
	if h.unlock != nil {
		h.unlock()
	}
	return errors.Join(errs...)
}

// stoppedStarting reports whether err ended startHub only because ctx was
// cancelled (SIGINT or SIGTERM during start-up, which stops what started):
// a stop that was asked for, so the command exits 0, not a failure.
func stoppedStarting(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
}

// summary is the human-readable start-up report.
func (h *runningHub) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Switchboard %s\n", version)
	fmt.Fprintf(&b, "  API        %s\n", h.url)
	fmt.Fprintf(&b, "  data dir   %s\n", h.dataDir)
	fmt.Fprintf(&b, "  token      %s\n", filepath.Join(h.dataDir, datadir.TokenFile))
	fmt.Fprintf(&b, "  config     %s\n", h.configPath)
	var found, missing []string
	for _, s := range h.installs.Live() {
		if d := acp.Detect(s); d.Available {
			found = append(found, s.ID)
		} else {
			missing = append(missing, s.ID)
		}
	}
	fmt.Fprintf(&b, "  agents     %s\n", orNone(found))
	fmt.Fprintf(&b, "  not found  %s\n", orNone(missing))
	return b.String()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// uiHandler serves the web build embedded from frontend/dist, or nil (the
// API's placeholder page) when the build is empty.
func uiHandler(frontend fs.FS) http.Handler {
	if frontend == nil {
		return nil
	}
	dist, err := fs.Sub(frontend, "frontend/dist")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		return nil
	}
	return http.FileServerFS(dist)
}

// serve runs the hub headless until ctx is done (SIGINT or SIGTERM), then
// shuts it down gracefully.
func serve(ctx context.Context, e *env, o Options) error {
	if o.Daemon { // the same serve, detached; its flags but --daemon
		return daemon.Start(o.DataDir, e.stdio.Out, "serve", "--data-dir", o.DataDir, "--config", o.Config, "--listen", o.Listen, "--socket", o.Socket)
	}
	h, err := startHub(ctx, e, o)
	if stoppedStarting(ctx, err) {
		return nil
	}
	if err != nil {
		return err
	}
	io.WriteString(e.stdio.Err, h.summary())
	select {
	case <-ctx.Done():
	case <-h.quit:
		h.log.Info("shutdown requested over the API")
	case err := <-h.served:
		h.log.Error("http server stopped", "err", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return h.stop(sctx)
}
