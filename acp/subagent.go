package acp

// Sub-agent sessions (unstable ACP subagent_update): an agent announces a
// child session it created and owns, then sends that session's updates
// and requests under the child's id. The connection learns the child from
// the announcement, sent in a session it knows:
//   - the child's requests (permission, elicitation, fs, terminal) are
//     served with the parent's folder: the folder the agent reports for
//     the child never widens confinement;
//   - a cancel of the parent's turn ends the child's pending questions too.
// An announcement in a session the connection does not know is ignored:
// an agent cannot make up a session by naming it its own child.

// trackSubagent records child as parent's sub-agent session.
func (c *ClientConn) trackSubagent(parent, child string) {
	if child == "" || child == parent {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cwd, known := c.sessions[parent]
	if !known {
		c.log.Warn("acp: ignoring a sub-agent of an unknown session", "session", parent, "child", child)
		return
	}
	if _, taken := c.sessions[child]; taken && c.parents[child] == "" {
		return // a session of its own, not a child
	}
	c.sessions[child] = cwd
	c.parents[child] = c.rootSessionLocked(parent)
}

// ParentSession returns the session a sub-agent session belongs to (the
// top one), and whether id is a sub-agent's.
func (c *ClientConn) ParentSession(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.parents[id]
	return p, ok
}

// rootSessionLocked is id's top session: itself unless it is a
// sub-agent's. c.mu is held.
func (c *ClientConn) rootSessionLocked(id string) string {
	if p, ok := c.parents[id]; ok {
		return p
	}
	return id
}
