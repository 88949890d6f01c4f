package acptest

import (
	"os"
	"strings"
	"testing"
)

// FakeAgentEnv is the environment variable that turns a test binary into the
// fake agent: RunFakeAgentIfRequested runs FakeAgentMain when it is "1".
const FakeAgentEnv = "SWITCHBOARD_FAKE_AGENT"

// RunFakeAgentIfRequested runs the fake agent, and never returns, when the
// environment variable FakeAgentEnv is "1"; otherwise it returns at once.
// Call it first thing in TestMain, before m.Run:
//
//	func TestMain(m *testing.M) {
//		acptest.RunFakeAgentIfRequested()
//		os.Exit(m.Run())
//	}
func RunFakeAgentIfRequested() {
	if os.Getenv(FakeAgentEnv) == "1" {
		FakeAgentMain()
	}
}

// FakeAgentArgv returns the command that re-executes the current test binary
// as the fake agent: path is os.Executable(), args is ["-test.run=^$"] (so
// no test runs even if the environment were lost), and env is
// FakeAgentEnv+"=1", then GORACE with atexit_sleep_ms=0 added to the current
// GORACE (a race-enabled agent would otherwise linger 1 s at every exit;
// omitted when GORACE already sets it), then opts. Each opt must be KEY=VALUE with KEY
// starting "FAKEAGENT_" (see the package documentation for the options);
// anything else fails the test.
//
// The test binary must call RunFakeAgentIfRequested in its TestMain. env
// holds only these variables: tests pass path, args and env to whatever
// starts agent processes, appending env to os.Environ() (or to the
// environment that component builds), for example
//
//	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_SESSION_CAPS=1")
//	cmd := exec.Command(path, args...)
//	cmd.Env = append(os.Environ(), env...)
func FakeAgentArgv(tb testing.TB, opts ...string) (path string, args []string, env []string) {
	tb.Helper()
	path, err := os.Executable()
	if err != nil {
		tb.Fatalf("acptest: cannot find the test executable: %v", err)
	}
	env = []string{FakeAgentEnv + "=1"}
	// A race-enabled binary sleeps 1 s at exit by default; agents exit often.
	if gorace := os.Getenv("GORACE"); !strings.Contains(gorace, "atexit_sleep_ms") {
		env = append(env, "GORACE="+strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
	}
	for _, o := range opts {
		key, _, ok := strings.Cut(o, "=")
		if !ok || !strings.HasPrefix(key, "FAKEAGENT_") || key == grandchildEnv {
			tb.Fatalf("acptest: fake agent option %q is not FAKEAGENT_<NAME>=<value>", o)
		}
		env = append(env, o)
	}
	return path, []string{"-test.run=^$"}, env
}
