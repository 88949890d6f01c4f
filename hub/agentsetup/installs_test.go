package agentsetup

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

func testInstalls(t *testing.T, specs []acp.AgentSpec) (*Installs, *[]string) {
	t.Helper()
	var announced []string
	a := NewInstalls(Options{DataDir: t.TempDir(),
		Current:   func() Source { return Source{Catalogue: slices.Clone(specs)} },
		SetAgents: func([]acp.AgentSpec) {},
		Announce:  func(typ string, _ any) error { announced = append(announced, typ); return nil },
	})
	t.Cleanup(func() { a.Stop(context.Background()) })
	return a, &announced
}

// What cannot be installed is refused before anything starts, with the
// codes and reasons the API answers.
func TestInstallAgentRefusals(t *testing.T) {
	a, announced := testInstalls(t, []acp.AgentSpec{
		{ID: "own", Name: "Own", Install: "build it"},
		{ID: "npmy", Name: "Npmy", NPM: &acp.NPMPackage{Package: "npmy", Version: "1.0.0", Bin: "npmy"}},
	})
	ctx := context.Background()
	var e *hub.Error
	err := a.InstallAgent(ctx, "nobody", "")
	if !errors.As(err, &e) || e.Code != hub.CodeInvalidArgument || e.Message != `unknown agent "nobody"` {
		t.Errorf("unknown agent: %v", err)
	}
	err = a.InstallAgent(ctx, "own", "")
	if !errors.As(err, &e) || e.Code != hub.CodeInvalidArgument || e.Details["reason"] != "NOT_INSTALLABLE" || e.Message != "Own is not distributed through npm: build it" {
		t.Errorf("not from npm: %v", err)
	}
	err = a.InstallAgent(ctx, "npmy", "latest")
	if !errors.As(err, &e) || e.Code != hub.CodeInvalidArgument || e.Details["field"] != "version" {
		t.Errorf("a version that is not exact: %v", err)
	}
	if err := a.RemoveAgent(ctx, "nobody"); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("removing an unknown agent: %v", err)
	}
	if len(*announced) != 0 {
		t.Errorf("refusals announced %v", *announced)
	}
	if err := a.RemoveAgent(ctx, "npmy"); err != nil {
		t.Errorf("removing what is not installed: %v", err)
	}
	if !slices.Equal(*announced, []string{hub.EventAgentInstall}) {
		t.Errorf("a removal announced %v", *announced)
	}
}

// Catalogue lays the installs and the registry's agents over a copy: the
// Source it is given stays as it was, spare capacity included.
func TestCatalogueLeavesItsSource(t *testing.T) {
	a, _ := testInstalls(t, nil)
	a.registry = []acp.AgentSpec{{ID: "reg", Name: "From the registry"}}
	specs := make([]acp.AgentSpec, 1, 4)
	specs[0] = acp.AgentSpec{ID: "x", Name: "X"}
	got := a.Catalogue(Source{Catalogue: specs})
	if len(got) != 2 || got[1].ID != "reg" {
		t.Fatalf("catalogue %+v", got)
	}
	if spare := specs[:2][1]; spare.ID != "" {
		t.Fatalf("the source's array now holds %+v", spare)
	}
}
