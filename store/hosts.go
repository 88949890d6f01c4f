package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// hostOfThreadSQL is the host of an event's thread id in SQL: what follows
// its last "@" (hub.SplitHostID). Migration 0020's index events_host_seq
// is on exactly this expression.
const hostOfThreadSQL = `substr(thread_id, length(rtrim(thread_id, replace(thread_id, '@', ''))) + 1)`

// hostSeqQuery reads the newest copy's host seq and host log of one host
// through events_host_seq (its WHERE is the index's, word for word).
const hostSeqQuery = `SELECT json_extract(payload, '$.hostSeq'), json_extract(payload, '$.hostLog') FROM events
	WHERE ` + hostOfThreadSQL + ` = ? AND json_extract(payload, '$.hostSeq') IS NOT NULL
	ORDER BY seq DESC LIMIT 1`

// HostSeq is the host seq of the last event copied from host (issue 30,
// ADR 0046): the mirror resumes the host's stream after it. Each copy
// carries its host seq in its payload ("hostSeq"), written in the same
// row as the copy, so the point to resume from and the copies stored
// never disagree, whatever cut or crash came between. Copies are stored in
// host seq order, so the newest copy of the host's threads holds the
// highest one; the index events_host_seq (migration 0020, ADR 0048) finds
// it in one search however long the log is and however long the host has
// been quiet. 0 when none is stored. log is the host's LogID the newest
// copy came from ("hostLog"; "" for a copy made before ADR 0053 or from a
// host that does not say): a host whose log id differs is not resumed
// after seq.
func (db *DB) HostSeq(ctx context.Context, host string) (seq int64, log string, err error) {
	var s sql.NullInt64
	var l sql.NullString
	err = db.queryRow(ctx, hostSeqQuery, host).Scan(&s, &l)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("store: host %s seq: %w", host, err)
	}
	return s.Int64, l.String, nil
}
