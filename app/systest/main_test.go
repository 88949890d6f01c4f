//go:build linux

// Package systest holds the system tests: the real `switchboard` binary
// (built once per test run, -tags headless) started as its own process on
// a temp data dir and driven from outside, over HTTP/SSE, stdio (the
// editor bridge) and /proc, as editors, scripts and the tray would. The
// fake ACP agent those hubs start is this test binary (acptest.FakeAgentArgv).
//
// Shared helpers: hub_test.go (building and starting the hub, its
// processes), api_test.go (the API client helpers, waiting on state).
// Unit tests of package app's internals stay in app/.
//
// The system tests are Linux-only: they check agent processes through
// /proc (parents, start times, ignored signals), as the hub's own recovery
// of orphaned agents does (hub/engine/procstart_linux.go).
package systest

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/schema"
)

// TestMain lets this test binary be the fake ACP agent the hubs under test
// start (acptest.FakeAgentArgv), and removes the binaries buildE2E built
// once for the whole run.
func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	_, finish := schema.RecordSuite(acp.RecordDirEnv)
	code := finish(m.Run())
	removeBuilt()
	os.Exit(code)
}
