package agentsetup

import (
	"context"
	"reflect"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/install"
	"github.com/switchboard-hub/switchboard/hub"
)

// registryRetry is how often a listing may start a fetch of the ACP
// registry (which asks the network only when its copy is a day old).
const registryRetry = time.Hour

// LoadRegistry reads the ACP registry at src's RegistryURL — the cached
// copy only, unless fetch (then acp/install asks the network when the
// copy is a day old; offline, the copy) — and refreshes the catalogue;
// "" clears it. Its agents join the catalogue under ids the catalogue and
// config do not use.
func (a *Installs) LoadRegistry(ctx context.Context, src Source, fetch bool) {
	var specs []acp.AgentSpec
	if src.RegistryURL != "" {
		var agents []install.RegistryAgent
		if fetch {
			var err error
			if agents, err = a.in.ACPRegistry(ctx, src.RegistryURL); err != nil {
				a.log.Info("agents: the ACP registry was not refreshed", "url", src.RegistryURL, "err", err, "cached", len(agents))
			}
			if err := a.in.FetchIcons(ctx, agents); err != nil {
				a.log.Info("agents: some logos were not fetched", "err", err)
			}
		} else {
			agents, _ = a.in.CachedRegistry(src.RegistryURL)
		}
		builtin := map[string]bool{}
		for _, s := range src.Catalogue {
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
		if err := a.o.Announce(hub.EventAgentsChanged, map[string]string{"reason": "registry"}); err != nil {
			a.log.Warn("agents: announcing the registry's agents failed", "err", err)
		}
	}
}

// RegistryChanged applies a new registry.url: its cached copy now, and
// the next listing may fetch it at once.
func (a *Installs) RegistryChanged(to Source) {
	a.regMu.Lock()
	a.regTried = time.Time{}
	a.regMu.Unlock()
	a.LoadRegistry(a.ctx, to, false)
}

// RefreshRegistry implements hub.AgentInstaller. The hub never asks the
// ACP registry by itself (ADR 0020): at start and when registry.url
// changes it reads only its cached copy; a client listing the agents
// starts, in the background, at most one fetch an hour, which asks the
// network only when the copy is a day old (acp/install.ACPRegistry) and
// falls back on the copy offline. What it brings shows from the next
// listing on.
func (a *Installs) RefreshRegistry() {
	if a.o.Current().RegistryURL == "" {
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
		a.LoadRegistry(a.ctx, a.o.Current(), true)
		a.regMu.Lock()
		a.regBusy = false
		a.regMu.Unlock()
	}()
}
