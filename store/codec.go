package store

import (
	"database/sql"
	"time"
)

// Times are stored as unix nanoseconds (INTEGER), which sort as the times
// do. The zero time.Time is stored as 0 and read back as the zero time (so
// 1970-01-01T00:00:00Z exactly reads back as zero); a nil *time.Time is
// NULL. Times read back are in UTC. Times outside 1678–2262 do not fit.

func encTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func decTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func encTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return encTime(*t)
}

func decTimePtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := decTime(n.Int64)
	return &t
}

// JSON is stored as TEXT as given (STRICT tables refuse a BLOB in a TEXT
// column); a nil or empty json.RawMessage is NULL and reads back nil.

func encJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

func decJSON(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
