package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// validate checks what decoding cannot: listen, positive durations and
// limits, the theme, and that the agents merge with the built-in
// catalogue. Its error names the key.
func (c Config) validate() error {
	if err := CheckListen(c.Listen, c.AllowPublic); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if err := validateHosts(c.Hosts); err != nil {
		return err
	}
	positive := map[string]time.Duration{
		"permissions.timeout":     c.Permissions.Timeout,
		"limits.agentIdleTimeout": c.Limits.AgentIdleTimeout,
		"limits.turnTimeout":      c.Limits.TurnTimeout,
	}
	for k, d := range positive {
		if d <= 0 {
			return fmt.Errorf("%s must be a positive duration such as 10m", k)
		}
	}
	if c.Limits.MaxAgentProcesses < 1 {
		return errors.New("limits.maxAgentProcesses must be at least 1")
	}
	atLeast := []struct {
		key      string
		val, min int
	}{
		{"limits.agentRequests", c.Limits.AgentRequests, 1},
		{"limits.pendingPermissionsPerTurn", c.Limits.PendingPermissionsPerTurn, 1},
		{"limits.streamsPerClient", c.Limits.StreamsPerClient, 1},
		{"limits.liveEventBytes", c.Limits.LiveEventBytes, 4096},
	}
	if c.Limits.ImportMaxBytes < 1024 {
		return errors.New("limits.importMaxBytes must be at least 1024")
	}
	for _, l := range atLeast {
		if l.val < l.min {
			return fmt.Errorf("%s must be at least %d", l.key, l.min)
		}
	}
	if c.Context.RecentTurns < 0 || c.Context.MaxChars < 0 {
		return errors.New("context.recentTurns and context.maxChars must not be negative")
	}
	if c.Limits.TurnIdleTimeout < 0 {
		return errors.New("limits.turnIdleTimeout must be a duration such as 5m, or 0 (off)")
	}
	if f := c.Context.CompactAt; f != 0 && (f < 0.5 || f > 0.95) {
		return fmt.Errorf("context.compactAt must be between 0.5 and 0.95 (a fraction of the agent's context window), or 0 (off), not %v", f)
	}
	switch c.UI.Theme {
	case hub.ThemeLight, hub.ThemeDark, hub.ThemeSystem:
	default:
		return fmt.Errorf("ui.theme must be light, dark or system, not %q", c.UI.Theme)
	}
	if err := checkEnvNames(c.Terminals.InheritEnv); err != nil {
		return err
	}
	if err := c.Budgets.Validate(); err != nil {
		return err
	}
	if err := c.validatePermissions(); err != nil {
		return err
	}
	if err := c.validateInstructions(); err != nil { // instructions.go
		return err
	}
	if err := c.Folders.validate(); err != nil {
		return err
	}
	if err := c.validateMCP(); err != nil {
		return err
	}
	if r := c.Registry.URL; r != "" {
		if u, err := url.Parse(r); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("registry.url: %q is not an http(s) URL", r)
		}
	}
	if r := c.Install.Registry; r != "" {
		if u, err := url.Parse(r); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("install.registry: %q is not an http(s) URL", r)
		}
	}
	if l := c.Worktrees.Location; l != "" && !filepath.IsAbs(expandHome(l)) {
		return fmt.Errorf("worktrees.location: %q must be an absolute path (or start with ~/)", l)
	}
	if _, err := acp.Merge(acp.Builtin(), c.Agents); err != nil {
		return err
	}
	return nil
}

// CheckListen refuses addr unless it is host:port and, when allowPublic is
// false, on a loopback address (a loopback IP or "localhost"). Load checks
// the file's listen with it, the hub a --listen that overrides it.
func CheckListen(addr string, allowPublic bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if allowPublic {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; set allowPublic: true to serve beyond this machine", addr)
}
