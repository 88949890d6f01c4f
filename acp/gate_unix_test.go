//go:build unix

package acp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingFS serves fs reads slowly, counting how many run at once.
type countingFS struct {
	*recorder
	mu            sync.Mutex
	running, peak int
	reads         int
}

func (c *countingFS) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error) {
	c.mu.Lock()
	c.running++
	c.reads++
	c.peak = max(c.peak, c.running)
	c.mu.Unlock()
	time.Sleep(100 * time.Millisecond) // a large file being read
	c.mu.Lock()
	c.running--
	c.mu.Unlock()
	return ReadTextFileResponse{Content: strings.Repeat("x", 1024)}, nil
}

func (c *countingFS) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error) {
	return WriteTextFileResponse{}, nil
}

// An agent firing 10 fs reads at once (10 parallel 60 MB reads once took a
// hub to 2.6 GB) gets at most DefaultMaxAgentRequests (4) served at once,
// and every one answered.
func TestClientBoundsAgentRequests(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit int
		want  int
	}{
		{"default", 0, DefaultMaxAgentRequests},
		{"configured", 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := &countingFS{recorder: newRecorder()}
			a := launchFake(t, fs, fakeOpts{client: ClientOptions{MaxConcurrentRequests: tt.limit}})
			sid, cwd := newSession(t, a)
			if _, err := prompt(t, a, sid, "fs-read-many 10 "+cwd+"/big.txt"); err != nil {
				t.Fatal(err)
			}
			if got := fs.lastMessage(); got != "fs-read-many ok=10" {
				t.Fatalf("agent said %q, want every read answered", got)
			}
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if fs.reads != 10 || fs.peak != tt.want {
				t.Fatalf("%d reads, at most %d at once; want 10 and %d", fs.reads, fs.peak, tt.want)
			}
		})
	}
}

// Permission requests are not counted: an agent with more pending than
// the bound is not held up (they wait on a person).
func TestClientPermissionsNotBounded(t *testing.T) {
	rec := newRecorder()
	rec.asked = make(chan struct{}, 64)
	all := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	n := 0
	rec.decide = func(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
		mu.Lock()
		n++
		if n == 10 {
			once.Do(func() { close(all) })
		}
		mu.Unlock()
		select {
		case <-all: // every one is pending at once
		case <-time.After(5 * time.Second):
			return Cancelled(), nil
		}
		o, _ := req.OptionOfKind(RejectOnce)
		return Selected(o.OptionID), nil
	}
	a := launchFake(t, rec, fakeOpts{client: ClientOptions{MaxConcurrentRequests: 2}})
	sid, _ := newSession(t, a)
	if _, err := prompt(t, a, sid, "permissions 10"); err != nil {
		t.Fatal(err)
	}
	if got := rec.lastMessage(); got != "permissions selected:reject-once=10" {
		t.Fatalf("agent said %q", got)
	}
}
