package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Instructions, the client system prompt (ADR 0050): agents.<id>.instructions
// and folders.<glob>.instructions, each {mode: append|override, text}.

// validateInstructions checks every agent's and folder's instructions
// (hub.Instructions.Validate); the error names the key.
func (c Config) validateInstructions() error {
	for _, id := range slices.Sorted(maps.Keys(c.Agents)) {
		if err := checkInstructions(c.Agents[id].Instructions, "agents."+id+".instructions"); err != nil {
			return err
		}
	}
	for _, g := range slices.Sorted(maps.Keys(c.Folders)) {
		if err := checkInstructions(c.Folders[g].Instructions, fmt.Sprintf("folders.%q.instructions", g)); err != nil {
			return err
		}
	}
	return nil
}

func checkInstructions(p *acp.SystemPrompt, field string) error {
	if p == nil {
		return nil
	}
	if err := instructionsSetting(p).Validate(field); err != nil {
		return err
	}
	return nil
}

// instructionsSetting is p as Settings shows it: nil when it holds no
// text; the mode "append" when not written.
func instructionsSetting(p *acp.SystemPrompt) *hub.Instructions {
	if p == nil || p.IsZero() {
		return nil
	}
	mode := p.Mode
	if mode == "" {
		mode = hub.InstructionsAppend
	}
	return &hub.Instructions{Mode: mode, Text: p.Text}
}

// patchInstructions replaces the instructions key of entry (an agent's or a
// folder's mapping) with in: nil leaves it, one without text removes it.
// The text is written as a literal block when it spans lines.
func patchInstructions(entry *yaml.Node, in *hub.Instructions) {
	if in == nil {
		return
	}
	if in.IsZero() {
		removeKey(entry, "instructions")
		return
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	mode := in.Mode
	if mode == "" {
		mode = hub.InstructionsAppend
	}
	setScalar(n, "mode", mode, "!!str")
	setScalar(n, "text", in.Text, "!!str")
	if t := yamlValue(n, "text"); t != nil && strings.Contains(in.Text, "\n") {
		t.Style = yaml.LiteralStyle
	}
	setNode(entry, "instructions", n)
}
