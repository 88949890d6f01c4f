package agentsetup

import (
	"os"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestMain lets the test binary run as the fake ACP agent the sign-in
// tests probe.
func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	os.Exit(m.Run())
}
