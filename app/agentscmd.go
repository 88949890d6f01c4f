package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/switchboard-hub/switchboard/acp/install"
	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/agentsetup"
	"github.com/switchboard-hub/switchboard/hub/client"
)

const agentsUsage = "Usage: switchboard agents install ID [--version V] | remove ID | install-node [flags]"

// runAgentsCommand is `switchboard agents install ID`, `agents remove ID`
// and `agents install-node`: through the running hub's API when one runs
// on the data dir (its window shows the progress too), else directly.
func runAgentsCommand(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || isHelpFlag(args[0]) {
		fmt.Fprintln(e.stdio.Err, agentsUsage)
		if len(args) > 0 {
			return errHelp
		}
		return errUsage
	}
	verb, rest := args[0], args[1:]
	id := ""
	switch verb {
	case "install", "remove":
		if len(rest) == 0 || len(rest[0]) == 0 || rest[0][0] == '-' {
			fmt.Fprintln(e.stdio.Err, agentsUsage)
			return errUsage
		}
		id, rest = rest[0], rest[1:]
	case "install-node":
		id = install.NodeID
	default:
		fmt.Fprintln(e.stdio.Err, agentsUsage)
		return errUsage
	}
	var o Options
	fs := newFlagSet(e, "agents "+verb, agentsUsage)
	o.register(fs, false)
	version := fs.String("version", "", "the version to install (default: the one the catalogue pins)")
	if err := parse(fs, rest); err != nil {
		return err
	}
	if err := o.resolve(); err != nil {
		return err
	}
	if err := datadir.Ensure(o.DataDir); err != nil {
		return err
	}
	unlock, err := datadir.Lock(o.DataDir)
	if err == nil {
		defer unlock()
		return agentsDirect(ctx, e, o, verb, id, *version)
	}
	if !errors.Is(err, datadir.ErrHubRunning) {
		return err
	}
	return agentsThroughHub(ctx, e, o, verb, id, *version)
}

// agentsThroughHub asks the running hub and follows its agent_install
// events until the install ends.
func agentsThroughHub(ctx context.Context, e *env, o Options, verb, id, version string) error {
	c := client.New(o.DataDir, client.Options{ClientID: "switchboard-cli", All: true})
	if verb == "remove" {
		if err := c.RemoveAgent(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(e.stdio.Out, "switchboard: %s removed\n", id)
		return nil
	}
	s, err := c.Events(ctx, -1, client.StreamOptions{Reconnect: true, GiveUpAfter: time.Minute})
	if err != nil {
		return err
	}
	defer s.Close()
	if verb == "install-node" {
		err = c.InstallNode(ctx)
	} else {
		err = c.InstallAgent(ctx, id, version)
	}
	if err != nil {
		return err
	}
	for {
		ev, err := s.Next()
		if err != nil {
			return err
		}
		if ev.Type != hub.EventAgentInstall {
			continue
		}
		var p hub.AgentInstallEvent
		if json.Unmarshal(ev.Payload, &p) != nil || p.Agent != id {
			continue
		}
		if done, err := printInstall(e, p); done {
			return err
		}
	}
}

// printInstall prints one step; done when the install ended.
func printInstall(e *env, p hub.AgentInstallEvent) (bool, error) {
	switch p.Phase {
	case "done":
		fmt.Fprintf(e.stdio.Out, "switchboard: %s %s installed\n", p.Agent, p.Version)
		return true, nil
	case "failed":
		return true, fmt.Errorf("installing %s failed: %s", p.Agent, p.Error)
	}
	fmt.Fprintf(e.stdio.Err, "  %s %3.0f%%\n", p.Phase, p.Fraction*100)
	return false, nil
}

// agentsDirect installs with no hub running (the data dir is locked).
func agentsDirect(ctx context.Context, e *env, o Options, verb, id, version string) error {
	path, err := configPath(o)
	if err != nil {
		return err
	}
	cfg, err := config.Load(path, o.Config != "")
	if err != nil {
		return err
	}
	in := agentsetup.NewStandalone(o.DataDir, cfg.Install.Registry, cfg.Catalogue())
	progress := func(p install.Progress) {
		if p.Phase != "done" {
			fmt.Fprintf(e.stdio.Err, "  %s %3.0f%%\n", p.Phase, p.Fraction*100)
		}
	}
	if verb == "install-node" {
		inst, err := in.InstallNode(ctx, progress)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdio.Out, "switchboard: node %s installed\n", inst.Version)
		return nil
	}
	if verb == "remove" {
		if err := in.Remove(id); err != nil {
			return err
		}
		fmt.Fprintf(e.stdio.Out, "switchboard: %s removed\n", id)
		return nil
	}
	inst, err := in.Install(ctx, id, version, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdio.Out, "switchboard: %s %s installed in %s\n", id, inst.Version, filepath.Dir(filepath.Dir(filepath.Dir(inst.Path))))
	return nil
}
