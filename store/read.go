package store

import (
	"context"
	"database/sql"
	"errors"
)

// Reads go through prepared statements of the read pool, cached by query
// text for the DB's life: parsing costs more than running most of these
// queries. Every query text comes from a fixed set (the constants and
// builders of this package), so the cache is bounded.

// readStmt returns the read pool's statement for q, preparing it on first
// use. Safe for concurrent use.
func (db *DB) readStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := db.rstmts.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.rdb.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.rstmts.LoadOrStore(q, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (db *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := db.readStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (db *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := db.readStmt(ctx, q)
	if err != nil {
		return db.rdb.QueryRowContext(ctx, q, args...) // reports the same error through Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// closeReadStmts closes the cached statements (at Close).
func (db *DB) closeReadStmts() error {
	var errs []error
	db.rstmts.Range(func(q, st any) bool {
		errs = append(errs, st.(*sql.Stmt).Close())
		db.rstmts.Delete(q)
		return true
	})
	return errors.Join(errs...)
}
