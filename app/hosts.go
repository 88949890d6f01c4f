package app

import (
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/hosts"
)

// startHosts makes the hosts' registry (hub/hosts, ADR 0045): kept in the
// config's hosts.<name>.ssh through settings, linked over the user's ssh
// (SWITCHBOARD_SSH_CONFIG, when set, is passed as -F: the tests' own ssh
// config), installing the switchboard-headless builds of
// $SWITCHBOARD_HOST_BINARIES, else beside this program or in its
// ../lib/switchboard (the package's); each change announced as
// host_changed.
func (h *runningHub) startHosts(settings *config.Settings) *hosts.Registry {
	self, _ := os.Executable()
	r := hosts.New(hosts.Options{
		Dir:     filepath.Join(h.dataDir, "hosts"),
		Version: version,
		Save:    settings.SetHosts,
		Dial: hosts.SSH(hosts.SSHOptions{Version: version, ConfigFile: os.Getenv("SWITCHBOARD_SSH_CONFIG"),
			Headless: hosts.Binaries(self, os.Getenv("SWITCHBOARD_HOST_BINARIES"), filepath.Dir(self),
				filepath.Join(filepath.Dir(self), "..", "lib", "switchboard")), Logger: h.log}),
		Announce: func(x hub.Host) { h.engine.Announce(hub.EventHostChanged, x) },
	})
	r.Apply(config.HostList(h.started))
	return r
}
