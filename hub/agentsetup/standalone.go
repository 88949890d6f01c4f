package agentsetup

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/install"
)

// Standalone installs agents with no hub running on the data dir
// (`switchboard agents …` while the caller holds the data dir's lock):
// the same installs as Installs, without events or a catalogue to
// refresh; progress goes to a func.
type Standalone struct {
	in        *install.Installer
	catalogue []acp.AgentSpec
}

// NewStandalone sweeps what an interrupted install left in
// <dataDir>/agents and returns an installer over catalogue (the built-in
// one merged with the config's agents) from npmRegistry.
func NewStandalone(dataDir, npmRegistry string, catalogue []acp.AgentSpec) *Standalone {
	in := &install.Installer{Dir: filepath.Join(dataDir, DirName), Registry: npmRegistry}
	in.Sweep()
	return &Standalone{in: in, catalogue: catalogue}
}

// InstallNode installs Node into <data-dir>/agents/node.
func (s *Standalone) InstallNode(ctx context.Context, progress func(install.Progress)) (install.Installed, error) {
	return s.in.InstallNode(ctx, progress)
}

// npmSpec is agent id of the catalogue, which must be distributed
// through npm.
func (s *Standalone) npmSpec(id string) (acp.AgentSpec, error) {
	for _, sp := range s.catalogue {
		if sp.ID != id {
			continue
		}
		if sp.NPM == nil {
			return sp, errors.New(notNPM(sp))
		}
		return sp, nil
	}
	return acp.AgentSpec{}, fmt.Errorf("unknown agent %q", id)
}

// Install installs agent id (version "": the catalogue's), after checking
// the Node it needs.
func (s *Standalone) Install(ctx context.Context, id, version string, progress func(install.Progress)) (install.Installed, error) {
	sp, err := s.npmSpec(id)
	if err != nil {
		return install.Installed{}, err
	}
	if err := s.in.CheckNode(ctx, sp.NPM.MinNode); err != nil {
		return install.Installed{}, fmt.Errorf("%w (switchboard agents install-node installs Node %d)", err, sp.NPM.MinNode)
	}
	return s.in.Install(ctx, id, packageOf(sp), version, progress)
}

// Remove removes what was installed for agent id.
func (s *Standalone) Remove(id string) error {
	if _, err := s.npmSpec(id); err != nil {
		return err
	}
	return s.in.Remove(id)
}
