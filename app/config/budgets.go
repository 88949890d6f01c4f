package config

import (
	"maps"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/hub"
)

// budgetsNode is the YAML of a budgets section (a settings edit replaces
// the section whole): the currency, and only the limits that are set.
func budgetsNode(b hub.Budgets) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	num := func(m *yaml.Node, key string, v float64) {
		if v > 0 {
			setScalar(m, key, strconv.FormatFloat(v, 'f', -1, 64), "!!float")
		}
	}
	if b.Currency != "" {
		setScalar(m, "currency", b.Currency, "!!str")
	}
	num(m, "daily", b.Daily)
	num(m, "monthly", b.Monthly)
	num(m, "perThread", b.PerThread)
	ids := slices.Sorted(maps.Keys(b.Agents))
	if len(ids) > 0 {
		agents := mapping(m, "agents")
		for _, id := range ids {
			a := b.Agents[id]
			am := mapping(agents, id)
			num(am, "daily", a.Daily)
			num(am, "monthly", a.Monthly)
		}
	}
	return m
}
