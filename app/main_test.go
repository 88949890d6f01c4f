package app

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestMain lets this test binary be the fake ACP agent the benchmarks and
// end-to-end tests start (acptest.FakeAgentArgv), and the fake tray child
// of TestTraySecret.
func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	runFakeTrayIfRequested()
	os.Exit(m.Run())
}
