package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// runTokenCommand is `switchboard token rotate [flags]`: a new API token.
//
// With a hub running on the data dir (it holds the data dir's lock), the
// hub rotates it (POST /v1/auth/token/rotate, with the old token, sent
// only once the hub proved it knows it): the hub writes the new token file
// and refuses the old token from its answer on, so when the command
// returns the old token is dead. Without one, the command takes the lock
// (so no hub starts on the old token meanwhile) and writes the file
// itself. Either way the file is replaced atomically, mode 0600. Running
// clients (the tray, editor bridges) read the file again on their next
// 401; browser logins end and are signed in again from the tray.
func runTokenCommand(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "rotate" {
		if len(args) > 0 && isHelpFlag(args[0]) {
			fmt.Fprintln(e.stdio.Err, "Usage: switchboard token rotate [flags]")
			return errHelp
		}
		fmt.Fprintln(e.stdio.Err, "Usage: switchboard token rotate [flags]")
		return errUsage
	}
	var o Options
	fs := newFlagSet(e, "token rotate", "switchboard token rotate [flags]")
	o.register(fs, false)
	if err := parse(fs, args[1:]); err != nil {
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
		if _, err := datadir.RotateToken(o.DataDir); err != nil {
			return err
		}
		fmt.Fprintf(e.stdio.Out, "switchboard: a new token is in %s (no hub was running)\n", datadir.TokenPath(o.DataDir))
		return nil
	}
	if !errors.Is(err, datadir.ErrHubRunning) {
		return err
	}
	c := client.New(o.DataDir, client.Options{ClientID: "switchboard-cli"})
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := c.RotateToken(ctx); err != nil {
		return fmt.Errorf("the hub running on %s did not rotate its token: %w", o.DataDir, err)
	}
	fmt.Fprintf(e.stdio.Out, "switchboard: the hub now uses the new token in %s; the old one is refused\n", datadir.TokenPath(o.DataDir))
	return nil
}
