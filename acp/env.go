package acp

import (
	"sort"
	"strings"
)

// baseAllowlist holds the variables of the hub's environment every child may
// see: enough to find programs, locate the user's home and config, render
// text in the user's locale, reach the display and session bus, and go
// through the user's proxy and certificate setup. Entries ending in '*' match
// a prefix.
var baseAllowlist = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	"TERM", "COLORTERM",
	"XDG_*", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
	"SSH_AUTH_SOCK",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// hubPrefix marks the hub's own variables (its API token among them).
const hubPrefix = "SWITCHBOARD_"

// hubToken is never given to a child, whatever the configuration says.
const hubToken = "SWITCHBOARD_TOKEN"

// BuildEnv returns the environment for a child process (an agent or a
// terminal command), as sorted KEY=VALUE entries with unique keys.
//
// From base (normally the hub's os.Environ()) it keeps only the variables of
// the built-in allowlist (PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE,
// LC_*, TZ, TMPDIR, TERM, COLORTERM, XDG_*, DISPLAY, WAYLAND_DISPLAY,
// DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK, the proxy variables in both cases,
// SSL_CERT_FILE, SSL_CERT_DIR, NODE_EXTRA_CA_CERTS) and those matched by
// cmd.PassEnv (exact names, or prefixes with a trailing '*'). Names are
// case-sensitive. When base repeats a key, the last entry wins.
//
// Then cmd.Env is applied on top: its entries replace or add variables.
//
// Guarantees about the hub's own variables:
//   - no variable starting with SWITCHBOARD_ is ever taken from base, even
//     when PassEnv matches it ("SWITCHBOARD_*" or "*" pass nothing of it);
//   - SWITCHBOARD_TOKEN is dropped from cmd.Env as well, so the hub's token
//     can never reach a child by configuration mistake. Other SWITCHBOARD_*
//     variables may be set explicitly in cmd.Env.
//
// Malformed entries (no '=' or an empty name) are skipped.
func BuildEnv(base []string, cmd Command) []string {
	vars := make(map[string]string)
	for _, kv := range base {
		k, v, ok := splitEnv(kv)
		if !ok || strings.HasPrefix(k, hubPrefix) {
			continue
		}
		if matchAny(baseAllowlist, k) || matchAny(cmd.PassEnv, k) {
			vars[k] = v
		}
	}
	for _, kv := range cmd.Env {
		k, v, ok := splitEnv(kv)
		if !ok || k == hubToken {
			continue
		}
		vars[k] = v
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + vars[k]
	}
	return env
}

// splitEnv splits KEY=VALUE. It refuses an empty key, which also skips the
// "=C:=C:\" entries Windows keeps in its environment.
func splitEnv(kv string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(kv, "=")
	if !ok || key == "" {
		return "", "", false
	}
	return key, value, true
}

// matchAny reports whether name equals one of patterns or starts with the
// prefix of one ending in '*'.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
}
