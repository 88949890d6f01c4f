package app

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/app/config"
)

// TestMain lets this test binary be the fake ACP agent the benchmarks and
// end-to-end tests start (acptest.FakeAgentArgv), and the fake tray child
// of TestTraySecret. The hubs it starts in this process have no ACP
// registry unless their config names one (a test hub never asks the
// network); the real binary's get registry.url "" from writeConfig.
func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	runFakeTrayIfRequested()
	config.DefaultRegistryURL = ""
	os.Exit(m.Run())
}
