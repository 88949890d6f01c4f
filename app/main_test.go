package app

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestMain lets this test binary be the fake ACP agent the benchmarks and
// end-to-end tests start (acptest.FakeAgentArgv).
func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	os.Exit(m.Run())
}
