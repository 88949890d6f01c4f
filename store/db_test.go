package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestPragmas(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, tc := range []struct {
		pragma string
		want   string
		read   bool
	}{
		{"journal_mode", "wal", false},
		{"synchronous", "2", false}, // FULL
		{"foreign_keys", "1", false},
		{"busy_timeout", "10000", false},
		{"query_only", "0", false},
		{"query_only", "1", true},
		{"busy_timeout", "10000", true},
		{"journal_mode", "wal", true},
	} {
		var got string
		var err error
		if tc.read {
			err = db.rdb.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got)
		} else {
			err = db.conn.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got)
		}
		if err != nil || got != tc.want {
			t.Errorf("%s (read pool %v): %q, %v; want %q", tc.pragma, tc.read, got, err, tc.want)
		}
	}
	if _, err := db.rdb.ExecContext(ctx, `INSERT INTO agent_processes (pid) VALUES (1)`); err == nil {
		t.Error("the read pool wrote")
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a ?b#c%20d")
	path := filepath.Join(dir, "sb?.db")
	db := mustOpenAt(t, path, Options{})
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at %q: %v", path, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch e.Name() {
		case "sb?.db", "sb?.db-wal", "sb?.db-shm":
		default:
			t.Errorf("unexpected file %q", e.Name())
		}
	}
	if db.Path() != path {
		t.Errorf("Path %q", db.Path())
	}
}

func TestOpenFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(filepath.Join(file, "sb.db"), Options{}); err == nil {
		db.Close()
		t.Fatal("Open under a regular file succeeded")
	}
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a database, not at all, no."), 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(garbage, Options{}); err == nil {
		db.Close()
		t.Fatal("Open of a non-database succeeded")
	}
}
