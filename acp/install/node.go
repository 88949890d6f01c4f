package install

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var errNoSpace error = syscall.ENOSPC

// NodeStatus is the Node runtime agents would run with.
type NodeStatus struct {
	Path    string `json:"path,omitempty"`    // the node program; "" when none
	Version string `json:"version,omitempty"` // "22.23.3"
	Major   int    `json:"major,omitempty"`
	// Own is true when it is the one installed under Dir/node.
	Own bool `json:"own,omitempty"`
}

// Node reports the Node agents would run with: the one installed under
// Dir/node when there is one, else node on PATH.
func (in *Installer) Node(ctx context.Context) NodeStatus {
	if inst, ok := in.Lookup(NodeID); ok {
		st := NodeStatus{Path: inst.Path, Own: true}
		st.Version, st.Major = nodeVersion(ctx, inst.Path)
		return st
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return NodeStatus{}
	}
	st := NodeStatus{Path: p}
	st.Version, st.Major = nodeVersion(ctx, p)
	return st
}

// NodeBinDir is the folder of the Node installed under Dir/node, to put
// first on an agent's PATH; "" when there is none.
func (in *Installer) NodeBinDir() string {
	if inst, ok := in.Lookup(NodeID); ok {
		return filepath.Dir(inst.Path)
	}
	return ""
}

// CheckNode returns a NODE_TOO_OLD Error when the Node agents would run
// with is missing or older than min (0: no requirement).
func (in *Installer) CheckNode(ctx context.Context, min int) error {
	if min <= 0 {
		return nil
	}
	st := in.Node(ctx)
	switch {
	case st.Path == "":
		return &Error{Reason: ReasonNodeTooOld, Message: fmt.Sprintf("this agent needs Node.js %d or newer and none is installed: install Node %d (Settings → Agents offers it) and try again", min, min)}
	case st.Major < min:
		return &Error{Reason: ReasonNodeTooOld, Message: fmt.Sprintf("this agent needs Node.js %d or newer; %s is %s: install Node %d (Settings → Agents offers it) and try again", min, st.Path, st.Version, min)}
	}
	return nil
}

// InstallNode installs Node (NodePackage) under Dir/node.
func (in *Installer) InstallNode(ctx context.Context, progress func(Progress)) (Installed, error) {
	return in.Install(ctx, NodeID, NodePackage, "", progress)
}

// nodeVersion runs `node --version`: "22.23.3" and 22, or "" and 0.
func nodeVersion(ctx context.Context, path string) (string, int) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), "NODE_OPTIONS=")
	out, err := cmd.Output()
	if err != nil {
		return "", 0
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return v, major
}
