package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/store"
)

// runDBCommand is `switchboard db compact [flags]`: deleted text leaves the
// database files. With no hub on the data dir it rebuilds the database
// (VACUUM, which also switches a database made by an older version to
// incremental vacuum). With a hub running it does what the hub does after
// each deletion, from this process, through SQLite's own locking:
// checkpoints and truncates the WAL and returns free pages (no VACUUM,
// which would hold up the hub's writes while it rewrites the file).
func runDBCommand(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "compact" {
		fmt.Fprintf(e.stdio.Err, "usage: switchboard db compact [--data-dir DIR]\n")
		return errUsage
	}
	var o Options
	fs := newFlagSet(e, "db compact", "switchboard db compact [flags]")
	o.register(fs, false)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if err := o.resolve(); err != nil {
		return err
	}
	path := filepath.Join(o.DataDir, datadir.DatabaseFile)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no database at %s: %w", path, err)
	}
	before := dbSize(path)
	unlock, err := datadir.Lock(o.DataDir)
	running := errors.Is(err, datadir.ErrHubRunning)
	if err != nil && !running {
		return err
	}
	if unlock != nil {
		defer unlock()
	}
	db, err := store.Open(path, store.Options{Maintenance: true})
	if err != nil {
		return err
	}
	var res store.CompactResult
	if running {
		res, err = db.Compact(ctx)
	} else {
		res, err = db.Vacuum(ctx)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	how := "vacuumed"
	if running {
		how = "compacted (the hub is running: WAL checkpointed, free pages returned)"
	}
	fmt.Fprintf(e.stdio.Out, "%s %s: %d → %d bytes\n", how, path, before, dbSize(path))
	if res.WALBusy {
		fmt.Fprintf(e.stdio.Out, "a reader held the WAL: run it again to truncate it\n")
	}
	if running && res.FreePages > 0 {
		fmt.Fprintf(e.stdio.Out, "%d free pages (zeroed) stay in the file until the hub is stopped and this is run again\n", res.FreePages)
	}
	return nil
}

// dbSize is the size of the database and its WAL.
func dbSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
