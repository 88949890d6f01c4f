package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrations holds the schema, one numbered file per step:
// migrations/NNNN_name.sql, applied in order, never edited once released.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

var migrations = mustSub(migrationFiles, "migrations")

// ErrSchemaTooNew is wrapped by Open's error when the database was written
// by a newer build (it records a migration this build does not have). The
// database is left untouched.
var ErrSchemaTooNew = errors.New("store: database schema is newer than this build")

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads NNNN_name.sql files from fsys and checks that their
// versions run 1, 2, 3, … without a gap or a duplicate.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	var ms []migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migrations: bad file name %q", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("store: migrations: %w", err)
		}
		ms = append(ms, migration{version: v, name: path.Base(name), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migrations: %s: want version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies the migrations of fsys that conn's database lacks, all in
// one immediate transaction (so two processes opening the same new file
// cannot both apply them), recording each in schema_migrations. It returns
// the resulting schema version.
func migrate(ctx context.Context, conn *sql.Conn, fsys fs.FS, log *slog.Logger) (version int, err error) {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, fmt.Errorf("store: migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("store: migrate: %w", err)
	}
	var current int
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return 0, fmt.Errorf("store: migrate: %w", err)
	}
	if current > len(ms) {
		return 0, fmt.Errorf("%w: database version %d, this build knows %d", ErrSchemaTooNew, current, len(ms))
	}
	for _, m := range ms[current:] {
		if _, err := conn.ExecContext(ctx, m.sql); err != nil {
			return 0, fmt.Errorf("store: migrate %s: %w", m.name, err)
		}
		const rec = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"
		if _, err := conn.ExecContext(ctx, rec, m.version, m.name, time.Now().UnixNano()); err != nil {
			return 0, fmt.Errorf("store: migrate %s: %w", m.name, err)
		}
		log.Info("migration applied", "version", m.version, "name", m.name)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return 0, fmt.Errorf("store: migrate: commit: %w", err)
	}
	return len(ms), nil
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
