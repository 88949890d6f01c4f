package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// HostSeq is the host seq of the last event copied from host (issue 30,
// ADR 0046): the mirror resumes the host's stream after it. Each copy
// carries its host seq in its payload ("hostSeq"), written in the same
// row as the copy, so the point to resume from and the copies stored
// never disagree, whatever cut or crash came between: no table of its
// own, no migration. Copies are stored in host seq order, so the newest
// copy of the host's threads holds the highest one. 0 when none is stored.
func (db *DB) HostSeq(ctx context.Context, host string) (int64, error) {
	var seq sql.NullInt64
	err := db.queryRow(ctx, `SELECT json_extract(payload, '$.hostSeq') FROM events
		WHERE thread_id LIKE ? AND payload IS NOT NULL AND json_extract(payload, '$.hostSeq') IS NOT NULL
		ORDER BY seq DESC LIMIT 1`, "%@"+host).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: host %s seq: %w", host, err)
	}
	return seq.Int64, nil
}
