//go:build prompttrace

// This file is added to package hub only by TestPromptPath's overlay (see
// hub/engine/promptpath_test.go): it records the function entries the
// overlay's instrumented copies of hub/httpapi, hub/engine and acp report.
// It is never part of a normal build.

package hub

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ZZTraceRecord is one instrumented function entry (or, Spawn, one go
// statement about to run) on goroutine G, created by Parent at CreatedAt.
type ZZTraceRecord struct {
	G, Parent int64
	CreatedAt string // "/full/path/file.go:line" of the go statement that made G
	Spawn     bool
	File      string // module-relative, from the instrumentation
	Func      string
	Pos       string // "/full/path/file.go:line" of the record's own call
	Depth     int    // the goroutine's stack depth at the entry
}

var (
	zzOn   atomic.Bool
	zzMu   sync.Mutex
	zzRecs []ZZTraceRecord
)

// ZZTraceStart starts a new recording.
func ZZTraceStart() {
	zzMu.Lock()
	zzRecs = nil
	zzMu.Unlock()
	zzOn.Store(true)
}

// ZZTraceStop ends the recording and returns it.
func ZZTraceStop() []ZZTraceRecord {
	zzOn.Store(false)
	zzMu.Lock()
	defer zzMu.Unlock()
	return zzRecs
}

// ZZTraceEnter records the entry of the calling function.
func ZZTraceEnter(file string) {
	if zzOn.Load() {
		zzRecord(file, false)
	}
}

// ZZTraceSpawn records a go statement of the calling function.
func ZZTraceSpawn(file string) {
	if zzOn.Load() {
		zzRecord(file, true)
	}
}

func zzRecord(file string, spawn bool) {
	pc, path, line, _ := runtime.Caller(2)
	r := ZZTraceRecord{Spawn: spawn, File: file, Pos: path + ":" + strconv.Itoa(line)}
	if f := runtime.FuncForPC(pc); f != nil {
		r.Func = f.Name()
	}
	pcs := make([]uintptr, 1024)
	r.Depth = runtime.Callers(3, pcs)
	buf := make([]byte, 64<<10)
	st := string(buf[:runtime.Stack(buf, false)])
	// "goroutine 7 [running]:"
	if rest, ok := strings.CutPrefix(st, "goroutine "); ok {
		if i := strings.IndexByte(rest, ' '); i > 0 {
			r.G, _ = strconv.ParseInt(rest[:i], 10, 64)
		}
	}
	// "created by pkg.fn in goroutine 6\n\t/path/file.go:123 +0x..."
	if i := strings.LastIndex(st, "\ncreated by "); i >= 0 {
		lines := strings.SplitN(st[i+1:], "\n", 3)
		if j := strings.LastIndex(lines[0], " in goroutine "); j >= 0 {
			r.Parent, _ = strconv.ParseInt(lines[0][j+len(" in goroutine "):], 10, 64)
		}
		if len(lines) > 1 {
			at := strings.TrimSpace(lines[1])
			if k := strings.LastIndex(at, " +0x"); k >= 0 {
				at = at[:k]
			}
			r.CreatedAt = at
		}
	}
	zzMu.Lock()
	zzRecs = append(zzRecs, r)
	zzMu.Unlock()
}
