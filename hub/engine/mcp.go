package engine

import (
	"sort"
	"sync"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// MCP servers reach an agent in session/new, session/load and
// session/resume: the config's top-level ones (Config.MCPServers), the
// agent's (acp.AgentSpec.MCPServers), those of the folder rules matching
// the thread's folder (least specific first), merged by name in that
// order, then the thread's own (CreateThreadRequest.MCPServers: an
// editor's), which replace a server of the same name. Servers whose
// transport the agent does not accept (mcpCapabilities) are left out and
// logged; ListAgents reports them for the top-level and agent levels.

// threadMCP holds the MCP servers threads were created with, in memory
// (they may carry credentials: never stored). A hub restart forgets them;
// the editor bridge sends them again when the editor opens the thread
// again.
type threadMCP struct {
	mu sync.Mutex
	by map[string][]acp.MCPServer
}

func (m *threadMCP) set(threadID string, servers []acp.MCPServer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string][]acp.MCPServer{}
	}
	if len(servers) == 0 {
		delete(m.by, threadID)
		return
	}
	m.by[threadID] = servers
}

func (m *threadMCP) get(threadID string) []acp.MCPServer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.by[threadID]
}

// checkMCPServers refuses a CreateThreadRequest's servers that are not
// ACP MCP server objects, and a name given twice.
func checkMCPServers(servers []acp.MCPServer) error {
	seen := map[string]bool{}
	for i, s := range servers {
		info, err := acp.DescribeMCPServer(s)
		if err != nil {
			return hub.FieldError("mcpServers", "mcpServers[%d]: %v", i, err)
		}
		if seen[info.Name] {
			return hub.FieldError("mcpServers", "mcpServers: the name %q is given twice", info.Name)
		}
		seen[info.Name] = true
	}
	return nil
}

// configMCPServers is what the config gives an agent of spec in folder
// cwd, merged (see above), as ACP servers.
func (c Config) configMCPServers(spec acp.AgentSpec, cwd string) []acp.MCPServer {
	layers := []acp.MCPServers{c.MCPServers, spec.MCPServers}
	var rules []FolderRule
	for _, r := range c.Folders {
		if r.MCPServers != nil && MatchFolder(r.Glob, cwd) {
			rules = append(rules, r)
		}
	}
	sort.Slice(rules, func(i, j int) bool { return moreSpecific(rules[j].Glob, rules[i].Glob) })
	for _, r := range rules {
		layers = append(layers, r.MCPServers)
	}
	return acp.MergeMCPServers(layers...)
}

// mcpServersFor is the list a session of thread opened on agent a gets:
// the config's servers and the thread's own, less those a does not
// accept (logged with the reason). Never nil.
func (e *Engine) mcpServersFor(thread hub.Thread, a *acp.Agent) []acp.MCPServer {
	spec, _ := e.agentSpec(thread.Agent)
	all := acp.MergeMCPList(e.config().configMCPServers(spec, thread.Cwd), e.mcp.get(thread.ID))
	kept, skipped := acp.FilterMCPServers(all, a.Capabilities().MCP())
	for _, s := range skipped {
		e.log.Info("hub: MCP server not passed to the agent", "thread", thread.ID, "agent", thread.Agent, "server", s.Name, "reason", s.Reason)
	}
	return kept
}

// agentMCPStatus lists the MCP servers the config gives agent spec
// everywhere (top level and agent level; folders add more per thread),
// with, when the agent's capabilities are known (caps non-nil), those it
// does not accept marked skipped.
func (e *Engine) agentMCPStatus(spec acp.AgentSpec, caps *acp.AgentCapabilities) []hub.AgentMCPServer {
	servers := acp.MergeMCPServers(e.config().MCPServers, spec.MCPServers)
	out := make([]hub.AgentMCPServer, 0, len(servers))
	for _, s := range servers {
		info, _ := acp.DescribeMCPServer(s)
		st := hub.AgentMCPServer{Name: info.Name, Transport: info.Transport}
		if caps != nil {
			if _, skipped := acp.FilterMCPServers([]acp.MCPServer{s}, caps.MCP()); len(skipped) > 0 {
				st.Skipped = skipped[0].Reason
			}
		}
		out = append(out, st)
	}
	return out
}
