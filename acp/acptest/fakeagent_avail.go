package acptest

import (
	"os"
	"strings"
	"sync"
	"time"
)

// Scripts of the availability attacks (issue 28), kept apart so that the
// fake agent's main script stays easy to merge:
//
//   - usage-hostile: two usage_updates with costs near MaxFloat64 (the
//     second lower, so a naive ledger adds both: +Inf), negative and
//     absurd token counts, and a prompt response whose tokens are
//     MaxInt64.
//   - fs-stall N LINES PATH: N fs/read_text_file requests of PATH (line 1,
//     limit LINES) sent at once, after which the agent stops reading its
//     stdin until the file PATH.go exists; then it reads every answer and
//     says what "many" says ("fs-stall ok=N").
func (a *agent) avail(s *session, t *turn, cmd, rest string) (stop string, answer bool) {
	switch cmd {
	case "usage-hostile":
		sid := string(marshal(s.id))
		for _, u := range []string{
			`{"sessionUpdate":"usage_update","used":-5,"size":9223372036854775807,"cost":{"amount":1.7e308,"currency":"USD"}}`,
			`{"sessionUpdate":"usage_update","used":9223372036854775807,"size":-1,"cost":{"amount":1.6e308,"currency":"USD"}}`,
			`{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":-1e308,"currency":"USD"}}`,
		} {
			a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + sid + `,"update":` + u + `}}`))
		}
		t.mu.Lock()
		t.usage = map[string]any{"inputTokens": int64(1<<63 - 1), "outputTokens": int64(1<<63 - 1), "totalTokens": int64(1<<63 - 1)}
		t.mu.Unlock()
		a.say(s, t, "usage-hostile sent")
		return "end_turn", true
	case "fs-stall":
		f := strings.Fields(rest)
		if len(f) != 3 {
			break
		}
		v, ok := intArgs(f[0]+" "+f[1], 2)
		if !ok {
			break
		}
		path := f[2]
		release := stallStdin(path + ".go")
		a.many(s, t, "fs-stall", v[0], func(int) (string, any) {
			return "fs/read_text_file", map[string]any{"sessionId": s.id, "path": path, "line": 1, "limit": v[1]}
		})
		<-release
		return "end_turn", true
	}
	a.say(s, t, "bad arguments: "+cmd+" "+rest)
	return "end_turn", true
}

// stdinStall, when set, is closed once the agent may read its stdin again
// (serve waits on it before each line).
var stdinStall struct {
	mu sync.Mutex
	ch chan struct{}
}

// stallStdin stops the agent's reading of its stdin (after the line being
// read) until the file at path exists.
func stallStdin(path string) <-chan struct{} {
	ch := make(chan struct{})
	stdinStall.mu.Lock()
	stdinStall.ch = ch
	stdinStall.mu.Unlock()
	go func() {
		for {
			if _, err := os.Stat(path); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		stdinStall.mu.Lock()
		stdinStall.ch = nil
		stdinStall.mu.Unlock()
		close(ch)
	}()
	return ch
}

// waitStdin blocks while stallStdin holds the agent's stdin.
func waitStdin() {
	stdinStall.mu.Lock()
	ch := stdinStall.ch
	stdinStall.mu.Unlock()
	if ch != nil {
		<-ch
	}
}
