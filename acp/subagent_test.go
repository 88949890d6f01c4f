package acp

import (
	"log/slog"
	"testing"
)

// TestTrackSubagent: a child announced in a known session is served with
// the parent's folder and ends with the parent's turn; one announced in
// an unknown session, or naming a session of its own, is ignored.
func TestTrackSubagent(t *testing.T) {
	c := &ClientConn{log: slog.Default(), sessions: map[string]string{"s1": "/work/proj", "s2": "/work/other"}, parents: map[string]string{}}
	c.trackSubagent("s1", "child")
	if cwd, ok := c.sessionCwd("child"); !ok || cwd != "/work/proj" {
		t.Fatalf("child cwd %q %v: want the parent's", cwd, ok)
	}
	c.trackSubagent("child", "grandchild")
	if p, ok := c.ParentSession("grandchild"); !ok || p != "s1" {
		t.Fatalf("grandchild's top session %q %v", p, ok)
	}
	c.mu.Lock()
	root := c.rootSessionLocked("grandchild")
	c.mu.Unlock()
	if root != "s1" {
		t.Fatalf("root %q", root)
	}
	c.trackSubagent("nope", "orphan")
	if _, ok := c.sessionCwd("orphan"); ok {
		t.Fatal("a child of an unknown session was tracked")
	}
	c.trackSubagent("s1", "s2") // s2 is a session of its own
	if cwd, _ := c.sessionCwd("s2"); cwd != "/work/other" {
		t.Fatalf("s2 taken over: %q", cwd)
	}
	if _, ok := c.ParentSession("s2"); ok {
		t.Fatal("s2 made a child")
	}
}
