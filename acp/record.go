package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// RecordDirEnv names a directory: when it is set as the process starts,
// every Conn of the process appends each JSON-RPC line it sends or receives
// to <dir>/<pid>.jsonl, one record a line: {"conn":N,"sent":bool,"msg":…}
// (N numbers the process's connections from 1). Tests set it so that the
// traffic of the whole suite, the hub binary's and the fake agent's
// included, can be held to the official ACP schema afterwards
// (acp/schema.ValidateDir). Unset (always, outside tests), it costs one nil
// check per line. Lines over RecordMaxLine bytes are not recorded.
const RecordDirEnv = "ACPTEST_RECORD_DIR"

// RecordMaxLine is the longest line the frameRec keeps: the flood and
// size-limit tests send lines far past anything the schema says more about.
const RecordMaxLine = 1 << 20

// frameRec is nil unless RecordDirEnv was set at start.
var frameRec = openRecorder(os.Getenv(RecordDirEnv))

var connSeq atomic.Int64

type frameRecorder struct {
	mu sync.Mutex
	f  *os.File
}

func openRecorder(dir string) *frameRecorder {
	if dir == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "acp: %s: %v\n", RecordDirEnv, err)
		return nil
	}
	return &frameRecorder{f: f}
}

// record appends one line of connection conn; sent is our side's.
func (r *frameRecorder) record(conn int64, sent bool, line []byte) {
	if len(line) > RecordMaxLine || !json.Valid(line) {
		return
	}
	rec, err := json.Marshal(struct {
		Conn int64           `json:"conn"`
		Sent bool            `json:"sent"`
		Msg  json.RawMessage `json:"msg"`
	}{conn, sent, json.RawMessage(line)})
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(append(rec, '\n'))
}
