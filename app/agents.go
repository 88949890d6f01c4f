package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/install"
	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
)

// agentsDir is where the hub installs agents: <data-dir>/agents.
const agentsDir = "agents"

// agentInstalls implements hub.AgentInstaller for a running hub: npm
// agents into <data-dir>/agents/<id> (acp/install), progress as
// agent_install events, the catalogue refreshed when one is installed or
// removed, so its command resolves there first.
type agentInstalls struct {
	h  *runningHub
	in *install.Installer

	ctx    context.Context // ends when the hub stops: installs are cancelled
	cancel context.CancelFunc
	wg     sync.WaitGroup

	nodeMu sync.Mutex
	node   hub.NodeStatus
	nodeAt time.Time

	regMu    sync.Mutex
	registry []acp.AgentSpec // the ACP registry's agents (registry.url), last read
	regBusy  bool            // a fetch of the registry runs (RefreshRegistry)
	regTried time.Time       // when RefreshRegistry last started one
}

// registryRetry is how often a listing may start a fetch of the ACP
// registry (which asks the network only when its copy is a day old).
const registryRetry = time.Hour

var _ hub.AgentInstaller = (*agentInstalls)(nil)

func newAgentInstalls(h *runningHub, c config.Config) *agentInstalls {
	a := &agentInstalls{h: h, in: &install.Installer{Dir: filepath.Join(h.dataDir, agentsDir), Registry: c.Install.Registry}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.in.Sweep() // what an interrupted install left
	return a
}

// stop cancels running installs and waits for them (bounded by ctx).
func (a *agentInstalls) stop(ctx context.Context) {
	a.cancel()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// setRegistry applies install.registry.
func (a *agentInstalls) setRegistry(url string) { a.in.Registry = url }

// catalogue is c's agent catalogue with what the hub installed laid over
// it: an installed agent's command is its program under
// <data-dir>/agents/<id>, run with the hub's own Node first on PATH when
// it installed one; Latest is the registry's latest version last seen.
func (a *agentInstalls) catalogue(c config.Config) []acp.AgentSpec {
	specs := c.Catalogue()
	known := map[string]bool{}
	for _, s := range specs {
		known[s.ID] = true
	}
	a.regMu.Lock()
	for _, s := range a.registry {
		if !known[s.ID] {
			specs = append(specs, s)
		}
	}
	a.regMu.Unlock()
	nodeBin := a.in.NodeBinDir()
	for i, s := range specs {
		if s.NPM == nil {
			continue
		}
		inst, ok := a.in.Lookup(s.ID)
		if !ok || inst.Package != s.NPM.Package {
			continue
		}
		if s.Registry {
			n := *s.NPM
			n.Bin = inst.Bin // the program the package turned out to have
			s.NPM = &n
		}
		s.Installed = &acp.InstalledPackage{Version: inst.Version, Path: inst.Path}
		s.Latest = a.in.CachedLatest(s.NPM.Package)
		s.Command.Path = inst.Path
		s.NotInstalled = "" // installed by the user, into the data dir
		if nodeBin != "" {
			s.Command.Env = append(append([]string(nil), s.Command.Env...), "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		specs[i] = s
	}
	return specs
}

// refresh hands the engine the catalogue as installed now.
func (a *agentInstalls) refresh() {
	a.h.engine.SetAgents(a.catalogue(a.h.currentConfig()))
}

// spec finds agent id in the live catalogue.
func (a *agentInstalls) spec(id string) (acp.AgentSpec, error) {
	for _, s := range a.catalogue(a.h.currentConfig()) {
		if s.ID == id {
			if s.NPM == nil {
				return s, reasonError(hub.CodeInvalidArgument, "NOT_INSTALLABLE", fmt.Sprintf("%s is not distributed through npm: %s", s.Name, orText(s.Install, "install it yourself")))
			}
			return s, nil
		}
	}
	return acp.AgentSpec{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", id)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// reasonError is a coded error with details.reason.
func reasonError(code, reason, msg string) error {
	return &hub.Error{Code: code, Message: msg, Details: map[string]any{"reason": reason}}
}

// InstallAgent implements hub.AgentInstaller.
func (a *agentInstalls) InstallAgent(ctx context.Context, id, version string) error {
	s, err := a.spec(id)
	if err != nil {
		return err
	}
	if version != "" && !install.ValidVersion(version) {
		return hub.FieldError("version", "version: %q is not an exact version (like 1.2.3)", version)
	}
	if a.in.Running(id) {
		return reasonError(hub.CodeConflict, install.ReasonBusy, fmt.Sprintf("%s is already being installed", s.Name))
	}
	if err := a.in.CheckNode(ctx, s.NPM.MinNode); err != nil {
		return installError(err)
	}
	pkg := install.Package{Name: s.NPM.Package, Version: s.NPM.Version, Bin: s.NPM.Bin, MinNode: s.NPM.MinNode}
	a.start(id, func(progress func(install.Progress)) (install.Installed, error) {
		return a.in.Install(a.ctx, id, pkg, version, progress)
	})
	return nil
}

// InstallNode implements hub.AgentInstaller.
func (a *agentInstalls) InstallNode(ctx context.Context) error {
	if a.in.Running(install.NodeID) {
		return reasonError(hub.CodeConflict, install.ReasonBusy, "Node is already being installed")
	}
	a.start(install.NodeID, func(progress func(install.Progress)) (install.Installed, error) {
		return a.in.InstallNode(a.ctx, progress)
	})
	return nil
}

// start runs an install in the background, announcing its progress
// (each phase, and every 5% within one) and its end.
func (a *agentInstalls) start(id string, run func(func(install.Progress)) (install.Installed, error)) {
	a.announce(hub.AgentInstallEvent{Agent: id, Phase: "queued"})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		last := hub.AgentInstallEvent{Agent: id, Phase: "queued"}
		began := time.Now()
		inst, err := run(func(p install.Progress) {
			if p.Phase == "done" || p.Phase == last.Phase && p.Fraction-last.Fraction < 0.05 {
				return
			}
			last = hub.AgentInstallEvent{Agent: id, Phase: p.Phase, Fraction: p.Fraction}
			a.announce(last)
		})
		a.forgetNode()
		if err != nil {
			ev := hub.AgentInstallEvent{Agent: id, Phase: "failed", Fraction: last.Fraction, Error: err.Error(), Reason: install.ReasonFailed}
			var ie *install.Error
			if errors.As(err, &ie) {
				ev.Reason = ie.Reason
				a.h.log.Warn("agents: install failed", "agent", id, "reason", ie.Reason, "npm", ie.Output)
			} else {
				a.h.log.Warn("agents: install failed", "agent", id, "err", err)
			}
			a.announce(ev)
			return
		}
		a.h.log.Info("agents: installed", "agent", id, "version", inst.Version, "path", inst.Path, "took", time.Since(began).Round(time.Millisecond))
		a.refresh()
		a.announce(hub.AgentInstallEvent{Agent: id, Phase: "done", Fraction: 1, Version: inst.Version})
		if id != install.NodeID {
			a.checkLatest(id)
		}
	}()
}

// RemoveAgent implements hub.AgentInstaller.
func (a *agentInstalls) RemoveAgent(ctx context.Context, id string) error {
	if id != install.NodeID {
		if _, err := a.spec(id); err != nil {
			return err
		}
	}
	if err := a.in.Remove(id); err != nil {
		return installError(err)
	}
	a.forgetNode()
	a.refresh()
	a.announce(hub.AgentInstallEvent{Agent: id, Phase: "removed"})
	return nil
}

// checkLatest looks up the registry's latest version of installed agent
// id in the background (npm asked at most daily) and refreshes the
// catalogue when it is known.
func (a *agentInstalls) checkLatest(id string) {
	s, err := a.spec(id)
	if err != nil || s.Installed == nil {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if _, err := a.in.Latest(a.ctx, s.NPM.Package); err != nil {
			a.h.log.Info("agents: checking for an update failed", "agent", id, "err", err)
			return
		}
		a.refresh()
	}()
}

// checkAllLatest runs checkLatest for every installed agent.
func (a *agentInstalls) checkAllLatest() {
	for _, s := range a.catalogue(a.h.currentConfig()) {
		if s.Installed != nil {
			a.checkLatest(s.ID)
		}
	}
}

// Node implements hub.AgentInstaller; the answer is cached for a minute
// (it runs node --version).
func (a *agentInstalls) Node(ctx context.Context) hub.NodeStatus {
	a.nodeMu.Lock()
	defer a.nodeMu.Unlock()
	if !a.nodeAt.IsZero() && time.Since(a.nodeAt) < time.Minute {
		return a.node
	}
	st := a.in.Node(ctx)
	req := 0
	for _, s := range a.h.currentConfig().Catalogue() {
		if s.NPM != nil && s.NPM.MinNode > req {
			req = s.NPM.MinNode
		}
	}
	a.node = hub.NodeStatus{Path: st.Path, Version: st.Version, Major: st.Major, Own: st.Own, Required: req, OK: st.Path != "" && st.Major >= req}
	a.nodeAt = time.Now()
	return a.node
}

func (a *agentInstalls) forgetNode() {
	a.nodeMu.Lock()
	a.nodeAt = time.Time{}
	a.nodeMu.Unlock()
}

func (a *agentInstalls) announce(ev hub.AgentInstallEvent) {
	if err := a.h.engine.Announce(hub.EventAgentInstall, ev); err != nil {
		a.h.log.Warn("agents: announcing install progress failed", "err", err)
	}
}

// installError maps an install.Error to a coded hub error with its reason.
func installError(err error) error {
	var ie *install.Error
	if !errors.As(err, &ie) {
		return err
	}
	code := hub.CodeConflict
	switch ie.Reason {
	case install.ReasonNoNetwork:
		code = hub.CodeUpstreamUnavailable
	case install.ReasonFailed, install.ReasonDiskFull:
		code = hub.CodeInternal
	}
	return reasonError(code, ie.Reason, ie.Message)
}

// loadRegistry reads the ACP registry at c's registry.url — the cached
// copy only, unless fetch (then acp/install asks the network when the
// copy is a day old; offline, the copy) — and refreshes the catalogue;
// "" clears it. Its agents join the catalogue under ids the catalogue and
// config do not use.
func (a *agentInstalls) loadRegistry(ctx context.Context, c config.Config, fetch bool) {
	var specs []acp.AgentSpec
	if c.Registry.URL != "" {
		var agents []install.RegistryAgent
		if fetch {
			var err error
			if agents, err = a.in.ACPRegistry(ctx, c.Registry.URL); err != nil {
				a.h.log.Info("agents: the ACP registry was not refreshed", "url", c.Registry.URL, "err", err, "cached", len(agents))
			}
		} else {
			agents, _ = a.in.CachedRegistry(c.Registry.URL)
		}
		builtin := map[string]bool{}
		for _, s := range c.Catalogue() {
			builtin[s.ID] = true
		}
		specs = install.RegistrySpecs(agents, func(id string) bool { return builtin[id] })
	}
	a.regMu.Lock()
	changed := !reflect.DeepEqual(a.registry, specs)
	a.registry = specs
	a.regMu.Unlock()
	a.refresh()
	if fetch && changed {
		// A listing started this fetch in the background and has been
		// answered from the copy before it: the clients that show the
		// agents (the window) list them again.
		if err := a.h.engine.Announce(hub.EventAgentsChanged, map[string]string{"reason": "registry"}); err != nil {
			a.h.log.Warn("agents: announcing the registry's agents failed", "err", err)
		}
	}
}

// registryChanged applies a new registry.url: its cached copy now, and
// the next listing may fetch it at once.
func (a *agentInstalls) registryChanged(to config.Config) {
	a.regMu.Lock()
	a.regTried = time.Time{}
	a.regMu.Unlock()
	a.loadRegistry(a.ctx, to, false)
}

// RefreshRegistry implements hub.AgentInstaller. The hub never asks the
// ACP registry by itself (ADR 0020): at start and when registry.url
// changes it reads only its cached copy; a client listing the agents
// starts, in the background, at most one fetch an hour, which asks the
// network only when the copy is a day old (acp/install.ACPRegistry) and
// falls back on the copy offline. What it brings shows from the next
// listing on.
func (a *agentInstalls) RefreshRegistry() {
	if a.h.currentConfig().Registry.URL == "" {
		return
	}
	a.regMu.Lock()
	if a.regBusy || !a.regTried.IsZero() && time.Since(a.regTried) < registryRetry {
		a.regMu.Unlock()
		return
	}
	a.regBusy, a.regTried = true, time.Now()
	a.regMu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.loadRegistry(a.ctx, a.h.currentConfig(), true)
		a.regMu.Lock()
		a.regBusy = false
		a.regMu.Unlock()
	}()
}
