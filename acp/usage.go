package acp

import "encoding/json"

// PromptUsage is the token usage an agent may put in its session/prompt
// response ("usage", ACP's session-usage extension): the prompt's tokens.
type PromptUsage struct {
	TotalTokens       int64 `json:"totalTokens"`
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  int64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens int64 `json:"cachedWriteTokens,omitempty"`
}

// UsageUpdate is the body of a usage_update session update: the context
// window's tokens (Used of Size) and the session's cumulative cost.
type UsageUpdate struct {
	Used int64      `json:"used"`
	Size int64      `json:"size"`
	Cost *UsageCost `json:"cost"`
	// Meta is the update's _meta, raw (an agent may name the model there).
	Meta map[string]json.RawMessage `json:"_meta,omitempty"`
}

// UsageCost is a cumulative cost in a currency (ISO 4217, e.g. "USD").
type UsageCost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// setPromptUsageLocked keeps the usage of the last prompt of sessionID
// for TakePromptUsage (nil forgets it). c.mu must be held.
func (c *ClientConn) setPromptUsageLocked(sessionID string, u *PromptUsage) {
	if u == nil {
		delete(c.usage, sessionID)
		return
	}
	if c.usage == nil {
		c.usage = make(map[string]*PromptUsage)
	}
	c.usage[sessionID] = u
}

// TakePromptUsage returns the usage the last session/prompt response of
// sessionID carried and forgets it; nil when it had none.
func (c *ClientConn) TakePromptUsage(sessionID string) *PromptUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.usage[sessionID]
	delete(c.usage, sessionID)
	return u
}
