package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/hub/hosts"
)

// startHosts makes the hosts' registry (hub/hosts, ADR 0045): kept in the
// config's hosts.<name>.ssh through settings, linked over the user's ssh
// (SWITCHBOARD_SSH_CONFIG, when set, is passed as -F: the tests' own ssh
// config), installing the switchboard-headless builds of
// $SWITCHBOARD_HOST_BINARIES, else beside this program or in its
// ../lib/switchboard (the package's); each change announced as
// host_changed, and a link connected wakes the mirror's follower.
func (h *runningHub) startHosts(settings *config.Settings) *hosts.Registry {
	self, _ := os.Executable()
	r := hosts.New(hosts.Options{
		Dir:     filepath.Join(h.dataDir, "hosts"),
		Version: version,
		Save:    settings.SetHosts,
		Dial: hosts.SSH(hosts.SSHOptions{Version: version, ConfigFile: os.Getenv("SWITCHBOARD_SSH_CONFIG"),
			Headless: hosts.Binaries(self, os.Getenv("SWITCHBOARD_HOST_BINARIES"), filepath.Dir(self),
				filepath.Join(filepath.Dir(self), "..", "lib", "switchboard")), Logger: h.log}),
		Announce: func(x hub.Host) {
			h.engine.Announce(hub.EventHostChanged, x)
			if x.State == hub.HostConnected { // the mirror resumes now, not after its backoff
				h.hosts.Kick(x.Name)
			}
		},
	})
	r.Apply(config.HostList(h.started))
	return r
}

// followHosts makes the mirror (hub/hostmirror) follow exactly the hosts
// of the config: each through its ssh link's client while the link is
// connected (HOST_UNREACHABLE meanwhile: the mirror retries with
// backoff). A host no longer listed is no longer followed; its copies
// stay. The file links of hostmirror.AddFileLinks are not this one's.
func (h *runningHub) followHosts(list map[string]string) {
	if h.followed == nil {
		h.followed = map[string]bool{}
	}
	for name := range list {
		if h.followed[name] {
			continue
		}
		name := name
		err := h.hosts.Add(name, func(context.Context) (*client.Client, error) {
			if l := h.links.Link(name); l != nil {
				if c := l.Client(); c != nil {
					return c, nil
				}
			}
			return nil, hub.HostUnreachable(name)
		})
		if err != nil {
			h.log.Warn("hosts: not followed", "host", name, "err", err)
			continue
		}
		h.followed[name] = true
	}
	for name := range h.followed {
		if _, ok := list[name]; !ok {
			h.hosts.Remove(name)
			delete(h.followed, name)
		}
	}
}
