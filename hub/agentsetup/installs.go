package agentsetup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/install"
	"github.com/switchboard-hub/switchboard/hub"
)

// DirName is the folder of the data dir agents are installed into:
// <data-dir>/agents.
const DirName = "agents"

// Source is what the installs read of the config in force.
type Source struct {
	// Catalogue is the built-in catalogue merged with the config's agents.
	Catalogue []acp.AgentSpec
	// RegistryURL is registry.url, the ACP registry ("": none).
	RegistryURL string
}

// Options wire Installs to a running hub. Every func field is required.
type Options struct {
	// DataDir is the hub's data dir; agents go to <DataDir>/agents.
	DataDir string
	// NPMRegistry is install.registry (SetNPMRegistry changes it).
	NPMRegistry string
	// Current is the config in force, read at each use.
	Current func() Source
	// SetAgents hands the engine the catalogue as installed now.
	SetAgents func([]acp.AgentSpec)
	// Announce emits a hub-wide event (the engine's Announce).
	Announce func(typ string, payload any) error
	Logger   *slog.Logger
}

// Installs implements hub.AgentInstaller for a running hub: npm agents
// into <data-dir>/agents/<id> (acp/install), progress as agent_install
// events, the catalogue refreshed when one is installed or removed, so its
// command resolves there first.
type Installs struct {
	o   Options
	log *slog.Logger
	in  *install.Installer

	ctx    context.Context // ends with Stop: installs are cancelled
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

var _ hub.AgentInstaller = (*Installs)(nil)

// NewInstalls returns the installs of a hub, after sweeping what an
// interrupted install left.
func NewInstalls(o Options) *Installs {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Installs{o: o, log: o.Logger, in: &install.Installer{Dir: filepath.Join(o.DataDir, DirName), Registry: o.NPMRegistry}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.in.Sweep() // what an interrupted install left
	return a
}

// Stop cancels running installs and waits for them (bounded by ctx).
func (a *Installs) Stop(ctx context.Context) {
	a.cancel()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// SetNPMRegistry applies install.registry.
func (a *Installs) SetNPMRegistry(url string) { a.in.Registry = url }

// Catalogue is src's agent catalogue with what the hub installed laid over
// it: an installed agent's command is its program under
// <data-dir>/agents/<id>, run with the hub's own Node first on PATH when
// it installed one; Latest is the registry's latest version last seen.
func (a *Installs) Catalogue(src Source) []acp.AgentSpec {
	specs := append([]acp.AgentSpec(nil), src.Catalogue...) // src's stays as it is
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
		pkg := ""
		if s.NPM != nil {
			pkg = s.NPM.Package
		}
		if icon := a.in.Icon(s.ID, pkg); icon != "" {
			s.Icon = icon
			specs[i] = s
		}
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

// Live is the catalogue of the config in force, as installed now.
func (a *Installs) Live() []acp.AgentSpec { return a.Catalogue(a.o.Current()) }

// refresh hands the engine the catalogue as installed now.
func (a *Installs) refresh() { a.o.SetAgents(a.Live()) }

// spec finds agent id in the live catalogue.
func (a *Installs) spec(id string) (acp.AgentSpec, error) {
	for _, s := range a.Live() {
		if s.ID == id {
			if s.NPM == nil {
				return s, reasonError(hub.CodeInvalidArgument, "NOT_INSTALLABLE", notNPM(s))
			}
			return s, nil
		}
	}
	return acp.AgentSpec{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", id)
}

// notNPM says that s cannot be installed here.
func notNPM(s acp.AgentSpec) string {
	how := s.Install
	if how == "" {
		how = "install it yourself"
	}
	return fmt.Sprintf("%s is not distributed through npm: %s", s.Name, how)
}

// reasonError is a coded error with details.reason.
func reasonError(code, reason, msg string) error {
	return &hub.Error{Code: code, Message: msg, Details: map[string]any{"reason": reason}}
}

// InstallAgent implements hub.AgentInstaller.
func (a *Installs) InstallAgent(ctx context.Context, id, version string) error {
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
	pkg := packageOf(s)
	a.start(id, func(progress func(install.Progress)) (install.Installed, error) {
		return a.in.Install(a.ctx, id, pkg, version, progress)
	})
	return nil
}

func packageOf(s acp.AgentSpec) install.Package {
	return install.Package{Name: s.NPM.Package, Version: s.NPM.Version, Bin: s.NPM.Bin, MinNode: s.NPM.MinNode}
}

// InstallNode implements hub.AgentInstaller.
func (a *Installs) InstallNode(ctx context.Context) error {
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
func (a *Installs) start(id string, run func(func(install.Progress)) (install.Installed, error)) {
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
				a.log.Warn("agents: install failed", "agent", id, "reason", ie.Reason, "npm", ie.Output)
			} else {
				a.log.Warn("agents: install failed", "agent", id, "err", err)
			}
			a.announce(ev)
			return
		}
		a.log.Info("agents: installed", "agent", id, "version", inst.Version, "path", inst.Path, "took", time.Since(began).Round(time.Millisecond))
		a.refresh()
		a.announce(hub.AgentInstallEvent{Agent: id, Phase: "done", Fraction: 1, Version: inst.Version})
		if id != install.NodeID {
			a.checkLatest(id)
		}
	}()
}

// RemoveAgent implements hub.AgentInstaller.
func (a *Installs) RemoveAgent(ctx context.Context, id string) error {
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
func (a *Installs) checkLatest(id string) {
	s, err := a.spec(id)
	if err != nil || s.Installed == nil {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if _, err := a.in.Latest(a.ctx, s.NPM.Package); err != nil {
			a.log.Info("agents: checking for an update failed", "agent", id, "err", err)
			return
		}
		a.refresh()
	}()
}

// CheckAllLatest looks up, in the background, the registry's latest
// version of every installed agent (npm asked at most daily).
func (a *Installs) CheckAllLatest() {
	for _, s := range a.Live() {
		if s.Installed != nil {
			a.checkLatest(s.ID)
		}
	}
}

// Node implements hub.AgentInstaller; the answer is cached for a minute
// (it runs node --version).
func (a *Installs) Node(ctx context.Context) hub.NodeStatus {
	a.nodeMu.Lock()
	defer a.nodeMu.Unlock()
	if !a.nodeAt.IsZero() && time.Since(a.nodeAt) < time.Minute {
		return a.node
	}
	st := a.in.Node(ctx)
	req := 0
	for _, s := range a.o.Current().Catalogue {
		if s.NPM != nil && s.NPM.MinNode > req {
			req = s.NPM.MinNode
		}
	}
	a.node = hub.NodeStatus{Path: st.Path, Version: st.Version, Major: st.Major, Own: st.Own, Required: req, OK: st.Path != "" && st.Major >= req}
	a.nodeAt = time.Now()
	return a.node
}

func (a *Installs) forgetNode() {
	a.nodeMu.Lock()
	a.nodeAt = time.Time{}
	a.nodeMu.Unlock()
}

func (a *Installs) announce(ev hub.AgentInstallEvent) {
	if err := a.o.Announce(hub.EventAgentInstall, ev); err != nil {
		a.log.Warn("agents: announcing install progress failed", "err", err)
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
