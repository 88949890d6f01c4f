package install_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/install"
)

func needNPM(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is required for the installer's tests (apt-get install npm)")
	}
}

func newInstaller(t *testing.T, registry string) *install.Installer {
	return &install.Installer{Dir: filepath.Join(t.TempDir(), "agents"), Registry: registry,
		Env: []string{"npm_config_cache=" + filepath.Join(t.TempDir(), "npm-cache")}}
}

// Install from a local registry: progress rises to done, the program is
// in place and runs, install.json records it; an update replaces it; a
// removal leaves nothing; the latest check reads the dist-tag.
func TestInstallUpdateRemove(t *testing.T) {
	needNPM(t)
	reg := acptest.NewNPMRegistry(t, acptest.FixtureAgentPackage("@fixture/agent", "1.0.0", "fixture-agent"))
	in := newInstaller(t, reg.URL)
	pkg := install.Package{Name: "@fixture/agent", Version: "1.0.0", Bin: "fixture-agent"}
	var mu sync.Mutex
	var steps []install.Progress
	inst, err := in.Install(context.Background(), "fix", pkg, "", func(p install.Progress) {
		mu.Lock()
		steps = append(steps, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Version != "1.0.0" || inst.Path != filepath.Join(in.Dir, "fix", "node_modules", ".bin", "fixture-agent") {
		t.Errorf("installed %+v", inst)
	}
	if len(steps) < 3 || steps[len(steps)-1].Phase != "done" || steps[len(steps)-1].Fraction != 1 {
		t.Errorf("progress %+v", steps)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Fraction < steps[i-1].Fraction {
			t.Errorf("progress went back: %+v", steps)
		}
	}
	run := exec.Command(inst.Path, "ran", "it")
	run.Env = append(os.Environ(), "FIXTURE_AGENT_BIN=/bin/echo")
	if out, err := run.CombinedOutput(); err != nil || string(out) != "ran it\n" {
		t.Errorf("the installed program: %q %v", out, err)
	}
	if got, ok := in.Lookup("fix"); !ok || got.Version != "1.0.0" {
		t.Errorf("Lookup: %+v %v", got, ok)
	}

	reg.Add(t, acptest.FixtureAgentPackage("@fixture/agent", "1.1.0", "fixture-agent"))
	latest, err := in.Latest(context.Background(), "@fixture/agent")
	if err != nil || latest != "1.1.0" || !install.Newer(latest, inst.Version) {
		t.Fatalf("latest %q %v", latest, err)
	}
	if _, err := in.Install(context.Background(), "fix", pkg, latest, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := in.Lookup("fix"); got.Version != "1.1.0" {
		t.Errorf("after update: %+v", got)
	}
	// Checked at most daily: a newer latest is not seen until then.
	reg.Add(t, acptest.FixtureAgentPackage("@fixture/agent", "1.2.0", "fixture-agent"))
	if v, _ := in.Latest(context.Background(), "@fixture/agent"); v != "1.1.0" {
		t.Errorf("latest re-checked within a day: %q", v)
	}

	if err := in.Remove("fix"); err != nil {
		t.Fatal(err)
	}
	if _, ok := in.Lookup("fix"); ok {
		t.Error("still installed after Remove")
	}
	assertClean(t, in.Dir, "latest.json")
}

// A failed install (unknown package, unreachable registry) leaves nothing
// and a previous install as it was, with a plain reason.
func TestInstallFailuresLeaveNothing(t *testing.T) {
	needNPM(t)
	reg := acptest.NewNPMRegistry(t, acptest.FixtureAgentPackage("fixture-agent", "1.0.0", "fixture-agent"))
	in := newInstaller(t, reg.URL)
	good := install.Package{Name: "fixture-agent", Version: "1.0.0", Bin: "fixture-agent"}
	if _, err := in.Install(context.Background(), "fix", good, "", nil); err != nil {
		t.Fatal(err)
	}

	_, err := in.Install(context.Background(), "fix", good, "9.9.9", nil)
	var ie *install.Error
	if !errors.As(err, &ie) || ie.Reason != install.ReasonNPMRefused {
		t.Errorf("a version the registry lacks: %v", err)
	}
	if got, ok := in.Lookup("fix"); !ok || got.Version != "1.0.0" {
		t.Errorf("the previous install changed: %+v %v", got, ok)
	}

	// A caller's version never reaches npm as anything but an exact
	// version: no URL, file, alias, range or flag.
	for _, v := range []string{"https://evil.example/x.tgz", "file:/tmp/x", "npm:other@1.0.0", "^1.0.0", "latest", "--prefix=/", "1.0.0 --registry=x", "1.0"} {
		if _, err := in.Install(context.Background(), "fix", good, v, nil); !errors.As(err, &ie) || ie.Reason != install.ReasonFailed || !strings.Contains(ie.Message, "exact version") {
			t.Errorf("version %q: %v", v, err)
		}
	}
	for _, v := range []string{"1.0.0", "10.20.30-beta.1", "2.0.0+build.7"} {
		if !install.ValidVersion(v) {
			t.Errorf("ValidVersion(%q) = false", v)
		}
	}
	if got, ok := in.Lookup("fix"); !ok || got.Version != "1.0.0" {
		t.Errorf("a refused version changed the install: %+v %v", got, ok)
	}

	offline := newInstaller(t, "http://127.0.0.1:1/")
	_, err = offline.Install(context.Background(), "fix", good, "", nil)
	if !errors.As(err, &ie) || ie.Reason != install.ReasonNoNetwork || !strings.Contains(ie.Message, "network") {
		t.Errorf("no registry: %v", err)
	}
	assertClean(t, offline.Dir)

	// A package without the program the catalogue names.
	_, err = in.Install(context.Background(), "other", install.Package{Name: "fixture-agent", Version: "1.0.0", Bin: "nope"}, "", nil)
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "nope") {
		t.Errorf("missing program: %v", err)
	}
	assertClean(t, in.Dir, "fix")

	noNPM := newInstaller(t, reg.URL)
	noNPM.NPM = "npm-that-does-not-exist"
	if _, err = noNPM.Install(context.Background(), "fix", good, "", nil); !errors.As(err, &ie) || ie.Reason != install.ReasonNPMNotFound {
		t.Errorf("no npm: %v", err)
	}
}

// assertClean checks dir holds exactly the names want (no temporary or
// set-aside folder left).
func assertClean(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
}

func TestNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"1.1.0", "1.0.9", true}, {"1.0.0", "1.0.0", false}, {"0.100.0", "0.99.9", true}, {"1.0.0-beta", "1.0.0", false}, {"2.0.0", "10.0.0", false}, {"1.0.0", "1.0.0-rc.1", true}} {
		if got := install.Newer(c.a, c.b); got != c.want {
			t.Errorf("Newer(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
