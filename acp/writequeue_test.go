//go:build unix

package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// readCounter is LocalFS counting the reads it serves.
type readCounter struct {
	countingClient
	reads atomic.Int64
}

func (f *readCounter) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error) {
	f.reads.Add(1)
	return LocalFS{}.ReadTextFile(ctx, req)
}

func (f *readCounter) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error) {
	return LocalFS{}.WriteTextFile(ctx, req)
}

// An agent that stops reading its stdin and floods reads of a big file
// (issue 28: 24 reads of 60 MB took the hub from 0.9 to 3.3 GB): the hub
// serves as many as it has slots, each answer holding its slot until
// written, and the bytes queued for the agent stay bounded. Once the agent
// reads again, every request is answered.
func TestClientStalledAgentBoundsQueuedAnswers(t *testing.T) {
	const lines, lineLen, n = 10000, 100, 16 // 1 MB a window
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat(strings.Repeat("x", lineLen-1)+"\n", 2*lines)), 0o600); err != nil {
		t.Fatal(err)
	}
	fsys := &readCounter{countingClient: countingClient{fn: func(SessionUpdate) {}}}
	agentOut, hubIn := io.Pipe() // what the agent writes, the hub reads
	agentIn, hubOut := io.Pipe() // what the hub writes, the agent (not yet) reads
	c := NewClientConn(agentOut, hubOut, fsys, ClientOptions{})
	t.Cleanup(func() { hubIn.Close(); agentIn.Close(); c.conn.Close() })

	go func() {
		for i := range n {
			fmt.Fprintf(hubIn, `{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"s","path":%q,"line":1,"limit":%d}}`+"\n", i, path, lines)
		}
	}()
	// Every request has reached the hub: being handled or waiting for a slot.
	if !testkit.Until(20*time.Second, func() bool {
		_, waiting := c.conn.gate.counts()
		return int(fsys.reads.Load())+waiting == n
	}) {
		_, waiting := c.conn.gate.counts()
		t.Fatalf("requests not dispatched: %d read, %d waiting", fsys.reads.Load(), waiting)
	}
	// The reads in flight finish: their answers are queued (the first one
	// being written, blocked on the pipe).
	if !testkit.Until(20*time.Second, func() bool { return c.conn.out.queued() >= DefaultMaxAgentRequests*lines*lineLen }) {
		t.Fatalf("answers not queued: %d bytes", c.conn.out.queued())
	}
	if r := fsys.reads.Load(); r > DefaultMaxAgentRequests {
		t.Errorf("%d reads served to an agent that reads nothing, want at most %d (the slots)", r, DefaultMaxAgentRequests)
	}
	if q := c.conn.out.queued(); q > DefaultMaxWriteQueueBytes+lines*lineLen+200 {
		t.Errorf("%d bytes queued for the agent, want at most %d + one answer", q, DefaultMaxWriteQueueBytes)
	}

	// The agent reads again: every request is answered, in full.
	br := bufio.NewReaderSize(agentIn, 1<<20)
	for i := range n {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		var m struct {
			Result *ReadTextFileResponse `json:"result"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.Result == nil || len(m.Result.Content) != lines*lineLen {
			t.Fatalf("answer %d: %v, %d bytes", i, err, len(line))
		}
	}
	if r := fsys.reads.Load(); r != n {
		t.Errorf("%d reads served, want %d", r, n)
	}
}

// pushWait waits for room, then for its own write; push never waits.
func TestWriteQueueBound(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	q := newWriteQueue(w, 10, func(error) {})
	defer q.close()
	q.push([]byte("0123456789")) // being written: the pipe blocks it
	done := make(chan bool, 1)
	go func() { done <- q.pushWait([]byte("abc")) }()
	// Nothing read: 10 bytes queued, the answer waits for room.
	buf := make([]byte, 10)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, buf[:3]); err != nil || string(buf[:3]) != "abc" {
		t.Fatalf("read %q, %v", buf[:3], err)
	}
	if !<-done {
		t.Fatal("pushWait reported its line dropped")
	}
	if q.queued() != 0 {
		t.Fatalf("%d bytes still queued", q.queued())
	}
}
