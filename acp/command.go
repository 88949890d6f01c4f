package acp

// Command describes how to start an agent (or a terminal command) as a child
// process.
type Command struct {
	// Path is the program: an absolute path, or a name looked up on PATH.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; empty means the hub's.
	Dir string
	// Env holds extra KEY=VALUE entries, applied last (they win over
	// anything passed through).
	Env []string
	// PassEnv names variables of the hub's environment the child may see
	// beyond the base allowlist (see BuildEnv). A trailing '*' matches a
	// prefix: "ANTHROPIC_*".
	PassEnv []string
}
