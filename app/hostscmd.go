package app

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/hub/hosts"
)

const hostsUsage = "Usage: switchboard hosts add NAME SSH | list | status | remove NAME | connect NAME [--trust FINGERPRINT] [flags]"

// runHostsCommand is `switchboard hosts …`: the hosts of the hub running
// on the data dir, through its API (docs/API.md "Hosts").
func runHostsCommand(ctx context.Context, e *env, args []string) error {
	want := map[string]int{"add": 2, "list": 0, "status": 0, "remove": 1, "connect": 1}
	if len(args) == 0 || isHelpFlag(args[0]) {
		fmt.Fprintln(e.stdio.Err, hostsUsage)
		if len(args) > 0 {
			return errHelp
		}
		return errUsage
	}
	n, ok := want[args[0]]
	if !ok || len(args) < 1+n {
		fmt.Fprintln(e.stdio.Err, hostsUsage)
		return errUsage
	}
	verb, pos, rest := args[0], args[1:1+n], args[1+n:]
	var o Options
	fs := newFlagSet(e, "hosts "+verb, hostsUsage)
	o.register(fs, false)
	trust := fs.String("trust", "", "connect: trust the host's unknown key with this `FINGERPRINT` (SHA256:…, as status shows it)")
	if err := parse(fs, rest); err != nil {
		return err
	}
	if err := o.resolve(); err != nil {
		return err
	}
	c := client.New(o.DataDir, client.Options{ClientID: "switchboard-cli", All: true})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var list []hub.Host
	var err error
	switch verb {
	case "add":
		var h hub.Host
		h, err = c.AddHost(ctx, pos[0], pos[1])
		list = []hub.Host{h}
	case "remove":
		if err = c.RemoveHost(ctx, pos[0]); err == nil {
			fmt.Fprintf(e.stdio.Out, "switchboard: host %s removed\n", pos[0])
		}
		return err
	case "connect":
		var h hub.Host
		h, err = c.ConnectHost(ctx, pos[0], hub.HostConnect{TrustKey: *trust})
		list = []hub.Host{h}
	default:
		list, err = c.Hosts(ctx)
	}
	if err != nil {
		return err
	}
	hosts.Print(e.stdio.Out, list, verb != "list")
	return nil
}
