package store

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestMigrateFreshAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	ms, err := loadMigrations(migrations)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // fresh, then twice over an up-to-date file
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		var n, max int
		if err := db.rdb.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		if n != len(ms) || max != len(ms) {
			t.Errorf("open %d: %d migrations recorded, max %d; want %d", i, n, max, len(ms))
		}
		if i == 0 {
			mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
		} else if _, err := db.GetThread(context.Background(), "t1"); err != nil {
			t.Errorf("open %d: data lost: %v", i, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	db := mustOpenAt(t, path, Options{})
	if _, err := db.conn.ExecContext(context.Background(),
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "9999") {
		t.Fatalf("Open over a newer schema: %v, want ErrSchemaTooNew naming version 9999", err)
	}
}

func TestMigrateInOrderAndIncrementally(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	log := slog.New(slog.DiscardHandler)
	v1 := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);`)},
	}
	v2 := fstest.MapFS{
		"0001_a.sql": v1["0001_a.sql"],
		// 0002 depends on 0001 and 0003 on 0002: order matters.
		"0003_c.sql": {Data: []byte(`INSERT INTO b SELECT x + 1 FROM b;`)},
		"0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER); INSERT INTO b SELECT x FROM a;`)},
	}
	// A private table keeps these steps apart from the real schema.
	conn := db.conn
	if _, err := conn.ExecContext(ctx, `ALTER TABLE schema_migrations RENAME TO real_migrations`); err != nil {
		t.Fatal(err)
	}
	if v, err := migrate(ctx, conn, v1, log); err != nil || v != 1 {
		t.Fatalf("migrate v1: %d, %v", v, err)
	}
	if v, err := migrate(ctx, conn, v2, log); err != nil || v != 3 {
		t.Fatalf("migrate v2: %d, %v", v, err)
	}
	if v, err := migrate(ctx, conn, v2, log); err != nil || v != 3 {
		t.Fatalf("migrate v2 again: %d, %v", v, err)
	}
	var sum, n int
	if err := conn.QueryRowContext(ctx, `SELECT SUM(x), COUNT(*) FROM b`).Scan(&sum, &n); err != nil {
		t.Fatal(err)
	}
	if sum != 3 || n != 2 {
		t.Errorf("b: sum %d, %d rows; want 3, 2 (migrations out of order or repeated)", sum, n)
	}
	if _, err := migrate(ctx, conn, v1, log); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("migrate back to v1: %v, want ErrSchemaTooNew", err)
	}
	// A failing migration leaves nothing behind.
	bad := fstest.MapFS{
		"0001_a.sql": v1["0001_a.sql"], "0002_b.sql": v2["0002_b.sql"], "0003_c.sql": v2["0003_c.sql"],
		"0004_d.sql": {Data: []byte(`CREATE TABLE d (x INTEGER); SELECT nope FROM nowhere;`)},
	}
	if _, err := migrate(ctx, conn, bad, log); err == nil {
		t.Fatal("a failing migration succeeded")
	}
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'd'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("table d after a failed migration: %d, %v", n, err)
	}
	if _, err := conn.ExecContext(ctx, `DROP TABLE schema_migrations; ALTER TABLE real_migrations RENAME TO schema_migrations`); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMigrationsRejectsBadSets(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"gap":       {"0001_a.sql": {}, "0003_c.sql": {}},
		"duplicate": {"0001_a.sql": {}, "0001_b.sql": {}},
		"bad name":  {"first.sql": {}},
		"zero":      {"0000_a.sql": {}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := loadMigrations(fsys); err == nil {
				t.Error("accepted")
			}
		})
	}
}
