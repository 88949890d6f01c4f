package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/agentsetup"
	"github.com/switchboard-hub/switchboard/hub/httpapi"
	"github.com/switchboard-hub/switchboard/tray/autostart"
)

// configPath is the config file the hub reads: --config made absolute,
// else the OS default (config.DefaultPath).
func configPath(o Options) (string, error) {
	if o.Config != "" {
		return filepath.Abs(o.Config)
	}
	p, err := config.DefaultPath()
	if err != nil {
		return "", fmt.Errorf("config: %w (set --config)", err)
	}
	return p, nil
}

// currentConfig returns the config applied last (the file's, but for
// listen and allowPublic, which need a restart).
func (h *runningHub) currentConfig() config.Config { return *h.live.Load() }

// agentSource is what hub/agentsetup reads of c: its catalogue and the
// ACP registry's URL.
func agentSource(c config.Config) agentsetup.Source {
	return agentsetup.Source{Catalogue: c.Catalogue(), RegistryURL: c.Registry.URL}
}

// applyConfig applies a new valid config file without a restart: engine
// limits and timeouts, the agent catalogue (a running turn keeps its
// process until it ends), allowed hosts and origins. listen and allowPublic
// need a restart: a change is reported, never half-applied, and the hub
// keeps serving where it was. It is the config watcher's one apply (the
// commit of a verified file): it runs on the watcher's goroutine or on a
// settings update's, with the watcher's edit lock held.
func (h *runningHub) applyConfig(from, to config.Config) {
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	changed := config.Diff(from, to)
	running := h.started // listen and allowPublic as the hub started with them
	if to.Listen != running.Listen || to.AllowPublic != running.AllowPublic {
		switch {
		case from.Listen != to.Listen && h.override:
			h.log.Warn("listen changed in the config file; --listen overrides it", "listen", to.Listen, "serving", h.listen)
		case from.Listen != to.Listen:
			h.log.Warn("listen changed: restart Switchboard to apply", "listen", to.Listen, "serving", h.listen)
		}
		if from.AllowPublic != to.AllowPublic {
			h.log.Warn("allowPublic changed: restart Switchboard to apply", "allowPublic", to.AllowPublic, "serving", h.listen)
		}
	}
	if from.Search.Enabled != to.Search.Enabled {
		h.log.Warn("search.enabled changed: restart Switchboard to apply", "enabled", to.Search.Enabled, "running", running.Search.Enabled)
	}
	to.Listen, to.AllowPublic = running.Listen, running.AllowPublic
	h.engine.SetConfig(to.EngineConfig())
	h.installs.SetNPMRegistry(to.Install.Registry)
	if from.Registry.URL != to.Registry.URL {
		go h.installs.RegistryChanged(agentSource(to))
	}
	h.engine.SetAgents(h.installs.Catalogue(agentSource(to)))
	h.http.SetAllowed(to.AllowedHosts, to.AllowedOrigins)
	if h.links != nil {
		h.links.Apply(config.HostList(to))
		h.followHosts(config.HostList(to))
	}
	h.http.SetLimits(apiLimits(to))
	if from.Tray.Autostart != to.Tray.Autostart {
		h.syncAutostart(to.Tray.Autostart)
	}
	h.live.Store(&to)
	h.log.Info("config reloaded", "file", h.configPath, "changed", strings.Join(changed, ", "))
	// A settings page open in the window or a browser reloads on it, and
	// the agent lists with it. changed names keys, never values (an
	// agent's env may hold secrets).
	if err := h.engine.Announce(hub.EventConfigApplied, configApplied{File: h.configPath, Changed: changed}); err != nil {
		h.log.Warn("config: announcing the applied config failed", "err", err)
	}
}

// syncAutostart makes the user's autostart entry for the tray match
// tray.autostart (tray/autostart), at start and when the key changes.
// A failure is logged: the hub runs on without it.
func (h *runningHub) syncAutostart(enabled bool) {
	def, _ := defaultDataDir()
	did, err := autostart.Apply(enabled, autostart.Target{DataDir: h.dataDir, DefaultDir: def, Tray: autostart.Program()})
	if err != nil {
		h.log.Warn("tray.autostart: the autostart entry was not changed", "err", err)
		return
	}
	if did != "" {
		path, _ := autostart.Path()
		h.log.Info("tray.autostart: autostart entry changed", "did", did, "file", path)
	}
}

// apiLimits is the HTTP API's part of c's limits: streams per client,
// the live event size and the import body bound.
func apiLimits(c config.Config) httpapi.Limits {
	return httpapi.Limits{StreamsPerClient: c.Limits.StreamsPerClient, LiveEventBytes: c.Limits.LiveEventBytes,
		ImportMaxBytes: c.Limits.ImportMaxBytes}
}

// configApplied is the payload of a config_applied event.
type configApplied struct {
	File string `json:"file"`
	// Changed are the dotted keys whose values changed, sorted
	// ("permissions.timeout", "agents.mine": an agent added, removed or
	// changed).
	Changed []string `json:"changed"`
}

// configError is the config watcher's report of a refused config file (nil:
// the file is valid again). The watcher has logged it.
func (h *runningHub) configError(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if f := h.errHook.Load(); f != nil {
		(*f)(err)
	}
	// The window and the tray learn it from the event log like anything
	// else: a notification, a trouble icon.
	if aerr := h.engine.Announce(hub.EventConfigError, map[string]string{"file": h.configPath, "message": msg}); aerr != nil {
		h.log.Warn("config: announcing the config state failed", "err", aerr)
	}
}

// onConfigError sets f to be called, on the config watcher's goroutine,
// with each refused config file's error, and with nil when the file is
// valid again (for a window or tray to show the problem).
func (h *runningHub) onConfigError(f func(error)) { h.errHook.Store(&f) }

// lastConfigError returns why the config file as it is now was refused, or
// nil.
func (h *runningHub) lastConfigError() error {
	if h.watcher == nil {
		return nil
	}
	return h.watcher.LastError()
}

// settingsService is the settings service of a running hub: the config
// file, edited through its watcher.
func (h *runningHub) settingsService() *config.Settings { return config.NewSettings(h.watcher) }
