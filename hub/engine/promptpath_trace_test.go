//go:build unix && prompttrace

package engine_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/httpapi"
)

// TestPromptPathTraced is the child run of TestPromptPath (which see): it
// builds only over TestPromptPath's overlay, sends one prompt through the
// HTTP API and writes the recorded way to $SWITCHBOARD_PROMPT_PATH, one
// "file\tfunction\tdepth" line per function entry (depth: of the
// goroutine's stack).
func TestPromptPathTraced(t *testing.T) {
	out := os.Getenv("SWITCHBOARD_PROMPT_PATH")
	if out == "" {
		t.Skip("run by TestPromptPath")
	}
	h := newHarness(t, nil)
	th := h.thread("fake")
	srv := httpapi.New(h.e.Services(), httpapi.Options{Token: "tok"})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	u, _ := url.Parse(ts.URL)
	port, _ := strconv.Atoi(u.Port())
	srv.SetPort(port)

	req, _ := http.NewRequest("POST", ts.URL+"/v1/threads/"+th.ID+"/turns", strings.NewReader(`{"input":"hello"}`))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Client-ID", alice.ClientID)
	hub.ZZTraceStart()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "event: "+hub.EventTurnCompleted {
	}
	recs := hub.ZZTraceStop()

	way, err := promptWay(recs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, w := range way {
		fmt.Fprintf(&b, "%s\t%s\t%d\n", w.File, w.Func, w.Depth)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// promptWay cuts the recording to the prompt's way: from the handler's
// first entry on its goroutine to the queueing of the prompt's line for the
// agent's stdin, through the chain of goroutines between them.
func promptWay(recs []hub.ZZTraceRecord) ([]hub.ZZTraceRecord, error) {
	var root int64
	prompting := map[int64]bool{}
	sink := -1
	parent := map[int64]hub.ZZTraceRecord{}
	for i, r := range recs {
		if _, ok := parent[r.G]; !ok {
			parent[r.G] = r
		}
		switch {
		case root == 0 && r.File == "hub/httpapi/handlers_turns.go" && strings.HasSuffix(r.Func, ".startTurn"):
			root = r.G
		case strings.HasSuffix(r.Func, "(*ClientConn).Prompt"):
			prompting[r.G] = true
		case prompting[r.G] && r.File == "acp/queue.go" && strings.Contains(r.Func, "(*writeQueue).push"):
			sink = i
		}
		if sink >= 0 {
			break
		}
	}
	if root == 0 || sink < 0 {
		return nil, fmt.Errorf("no handler (%d) or no prompt queued (%d) in %d records", root, sink, len(recs))
	}
	chain := []int64{recs[sink].G}
	for g := recs[sink].G; g != root; {
		g = parent[g].Parent
		if _, ok := parent[g]; !ok {
			return nil, fmt.Errorf("goroutine %d: not started from the handler's", chain[0])
		}
		chain = append([]int64{g}, chain...)
	}
	var way []hub.ZZTraceRecord
	for i, g := range chain {
		end := sink
		if i < len(chain)-1 { // up to the go statement that started the next
			next := parent[chain[i+1]]
			end = -1
			for j, r := range recs {
				if r.G == g && r.Spawn && r.Pos == next.CreatedAt {
					end = j
				}
				if r == next {
					break
				}
			}
			if end < 0 {
				return nil, fmt.Errorf("no go statement at %s on goroutine %d", next.CreatedAt, g)
			}
		}
		for _, r := range recs[:end+1] {
			if r.G == g && !r.Spawn {
				way = append(way, r)
			}
		}
	}
	return way, nil
}
