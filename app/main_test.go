package app

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/app/config"
)

// TestMain lets this test binary be the supervisor the hubs it starts in
// this process put in front of their agents (supervisedAgents re-executes
// os.Executable: ADR 0029), the fake ACP agent the benchmarks and
// the desktop tests start (acptest.FakeAgentArgv), and the fake tray child
// of TestTraySecret. The hubs it starts in this process have no ACP
// registry unless their config names one (a test hub never asks the
// network); the real binary's get registry.url "" from writeConfig.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == acp.SupervisorArg {
		acp.SuperviseMain(os.Args[2:])
	}
	acptest.RunFakeAgentIfRequested()
	runFakeTrayIfRequested()
	config.DefaultRegistryURL = ""
	os.Exit(m.Run())
}
