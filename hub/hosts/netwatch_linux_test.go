//go:build linux

package hosts

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A link coming up on this machine wakes every subscriber once its burst
// of messages settled (ADR 0055). Root makes a veth pair for it; without
// root it is skipped, or, with SWITCHBOARD_HOSTS_E2E=require (CI), a
// failure.
func TestNetworkChangeWakesTheLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("SWITCHBOARD_HOSTS_E2E") == "require" {
			t.Fatal("making a link needs root (SWITCHBOARD_HOSTS_E2E=require)")
		}
		t.Skip("making a link needs root (SWITCHBOARD_HOSTS_E2E=require makes this a failure)")
	}
	a, stopA := netChanges.subscribe()
	defer stopA()
	b, stopB := netChanges.subscribe()
	stopB() // unsubscribed: not woken
	name := fmt.Sprintf("sbtest%d", os.Getpid()%100000)
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	ip("link", "add", name, "type", "veth", "peer", "name", name+"p")
	defer exec.Command("ip", "link", "del", name).Run()
	ip("link", "set", name, "up")
	select {
	case <-a:
	case <-time.After(10 * time.Second):
		t.Fatal("no wake within 10 s of a link made and brought up")
	}
	select {
	case <-b:
		t.Fatal("an unsubscribed channel was woken")
	default:
	}
}
