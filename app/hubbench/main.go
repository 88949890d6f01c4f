//go:build linux

// Command hubbench measures the hub from outside, as a user's client sees
// it: the real binary (-bin, so an old and a new build can be compared),
// agents in other processes, and this process as the client, reading one
// SSE stream per turn (as the editor bridge and scripts do) plus the global
// stream the window and the tray read. `make bench-outside` runs it;
// docs/PERFORMANCE.md has its figures and how to read them.
//
// Each run starts a fresh hub on a fresh data dir and goes through the
// phases:
//
//   - latency: 10 threads × 1000 chunks/s for -duration (the fake agent's
//     `ticks`: each chunk's text is its send time), one turn each;
//   - slow: 10 threads × 100 chunks/s for -duration;
//   - flood: one turn of 20,000 64-byte chunks, as fast as they come;
//   - big: one turn of 200,000 64-byte chunks (12.8 MB of text).
//
// For each it reports the added latency agent write → SSE read (p50, p99,
// p99.9, max) on the turns' streams and the global stream, the hub's CPU
// per chunk (utime+stime of /proc/<pid>/stat over the phase), its VmRSS 5 s
// after the phase and its VmHWM during it (reset before the phase through
// /proc/<pid>/clear_refs), and the load average while it ran; then the
// median over -runs runs.
//
// The agents are, by default, one fake-agent process serving every thread
// (each agent process the hub starts hands its pipes to it and waits:
// acptest.ServeFakeAgents), so the scheduling measured is the hub's, not
// that of ten runtimes on two cores; -agents process starts one fake agent
// per thread instead, as real agents run.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

func main() {
	acptest.RunFakeAgentIfRequested() // an agent process the hub started
	if len(os.Args) > 2 && os.Args[1] == "fakeagents" {
		os.Exit(serveAgents(os.Args[2]))
	}
	o := options{}
	flag.StringVar(&o.bin, "bin", "build/bin/switchboard-headless", "the hub binary to measure (`switchboard serve`)")
	flag.IntVar(&o.runs, "runs", 5, "runs; each figure is the median over them")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "length of the latency and slow phases")
	flag.StringVar(&o.agents, "agents", "shared", "shared: one fake-agent process serves every thread; process: one per thread")
	flag.IntVar(&o.threads, "threads", 10, "threads streaming at once in the latency and slow phases")
	flag.BoolVar(&o.redaction, "redaction", true, "redaction.enabled in the hub's config")
	flag.BoolVar(&o.search, "search", true, "search.enabled in the hub's config")
	flag.StringVar(&o.phases, "phases", "latency,slow,flood,big", "the phases to run, in order")
	flag.StringVar(&o.profile, "profile", "", "folder for CPU profiles of each phase and a heap profile after it (the binary must be built with -tags headless,pprof)")
	flag.StringVar(&o.hubLog, "hub-log", "", "file for the hub's stderr (with -hub-env GODEBUG=gctrace=1: the GC trace)")
	flag.Var(&o.hubEnv, "hub-env", "KEY=VALUE added to the hub's environment (repeatable)")
	flag.StringVar(&o.label, "label", "", "a name for this build in the output")
	flag.Parse()
	if o.label == "" {
		o.label = o.bin
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "hubbench:", err)
		os.Exit(1)
	}
}

type options struct {
	bin, agents, phases, profile, hubLog, label string
	runs, threads                               int
	duration                                    time.Duration
	redaction, search                           bool
	hubEnv                                      listFlag
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// serveAgents is the shared fake-agent process: it serves the agent
// processes that attach to socket until its stdin closes.
func serveAgents(socket string) int {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hubbench fakeagents:", err)
		return 1
	}
	go func() {
		var b [1]byte
		os.Stdin.Read(b[:]) // the harness is gone or done
		ln.Close()
	}()
	if err := acptest.ServeFakeAgents(ln, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hubbench fakeagents:", err)
		return 1
	}
	return 0
}
