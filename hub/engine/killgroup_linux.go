package engine

import "github.com/switchboard-hub/switchboard/acp"

// killGroup kills the process group led by pid (agents, and their
// supervisors, run in their own), and every descendant of pid that left
// it for another process group or a setsid of its own (acp.KillTree). The caller has checked that pid is
// still the process recorded.
func killGroup(pid int) { acp.KillTree(pid) }
