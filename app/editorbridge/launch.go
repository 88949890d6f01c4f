package editorbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// serveStartTimeout bounds how long the editor bridge waits for a hub it
// started to answer.
const serveStartTimeout = 30 * time.Second

// startServe starts `switchboard serve` in the background, on the
// bridge's data dir and config, detached from the bridge (its own
// session), and waits until it answers. It says so on stderr; the hub's
// output goes to <data-dir>/hub.log.
func (b *server) startServe(ctx context.Context) error {
	if !b.opts.StartHub {
		return errors.New("starting a hub is turned off (--start-hub=false)")
	}
	exe := b.opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("locating the switchboard binary: %w", err)
		}
	}
	// The hub tightens the data dir to 0700 too; the log goes in first.
	if err := os.MkdirAll(b.opts.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	logPath := filepath.Join(b.opts.DataDir, "hub.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("hub log: %w", err)
	}
	defer logf.Close()
	args := []string{"serve", "--data-dir", b.opts.DataDir}
	if b.opts.Config != "" {
		args = append(args, "--config", b.opts.Config)
	}
	fmt.Fprintf(b.opts.Stderr, "switchboard acp: no hub is running; starting `switchboard %s` in the background (log: %s)\n", strings.Join(args, " "), logPath)
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the hub: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.NewTimer(serveStartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var exitErr error
	var exitedAt time.Time
	for {
		if h, err := b.hub.Connect(ctx); err == nil {
			fmt.Fprintf(b.opts.Stderr, "switchboard acp: the hub is up at %s\n", h.URL)
			return nil
		}
		// A hub that exits may have lost a race with another one starting
		// on the same data dir: give that one a moment to appear.
		if !exitedAt.IsZero() && time.Since(exitedAt) > 3*time.Second {
			return fmt.Errorf("the hub exited at start (%v): see %s", exitErr, logPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("the hub did not answer within %v: see %s", serveStartTimeout, logPath)
		case exitErr = <-exited:
			if exitErr == nil {
				exitErr = errors.New("exit status 0")
			}
			exitedAt = time.Now()
		case <-tick.C:
		}
	}
}
