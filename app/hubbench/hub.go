//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// hubProc is one running hub and its shared agent process, if any.
type hubProc struct {
	cmd    *exec.Cmd
	agents *exec.Cmd // the shared fake agent (-agents shared)
	stdin  io.WriteCloser
	c      *client.Client
	pprof  string // host:port of net/http/pprof (-profile)
	dir    string
}

// startHub writes the config, starts the agents' server (shared) and the
// hub, and waits until the hub answers.
func startHub(o options) (*hubProc, error) {
	dir, err := os.MkdirTemp("", "hubbench-")
	if err != nil {
		return nil, err
	}
	h := &hubProc{dir: dir}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	env := []string{acptest.FakeAgentEnv + "=1"}
	switch o.agents {
	case "shared":
		sock := filepath.Join(dir, "agents.sock")
		h.agents = exec.Command(self, "fakeagents", sock)
		h.agents.Stderr = os.Stderr
		if h.stdin, err = h.agents.StdinPipe(); err != nil {
			return nil, err
		}
		if err := h.agents.Start(); err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			if i > 5000 {
				h.stop()
				return nil, fmt.Errorf("the shared fake agent did not listen on %s", sock)
			}
			time.Sleep(time.Millisecond)
		}
		env = append(env, acptest.AttachEnv+"="+sock)
	case "process":
	default:
		return nil, fmt.Errorf("-agents %q: want shared or process", o.agents)
	}
	var envYAML []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envYAML = append(envYAML, fmt.Sprintf("%s: %q", k, v))
	}
	cfg := fmt.Sprintf("limits:\n  maxAgentProcesses: 32\nagents:\n  fake:\n    name: Fake\n    command: %q\n    env: {%s}\n",
		self, strings.Join(envYAML, ", "))
	cfg += fmt.Sprintf("redaction:\n  enabled: %v\nsearch:\n  enabled: %v\n", o.redaction, o.search)
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	h.cmd = exec.Command(o.bin, "serve", "--data-dir", data, "--config", config, "--listen", "127.0.0.1:0")
	h.cmd.Env = append(os.Environ(), o.hubEnv...)
	if o.profile != "" {
		if h.pprof, err = freeAddr(); err != nil {
			return nil, err
		}
		h.cmd.Env = append(h.cmd.Env, "SWITCHBOARD_PPROF="+h.pprof)
	}
	if o.hubLog != "" {
		f, err := os.OpenFile(o.hubLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		h.cmd.Stderr = f
	}
	if err := h.cmd.Start(); err != nil {
		h.stop()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if hb, err := client.Discover(data); err == nil {
			c := client.ForHub(hb, client.Options{ClientID: "hubbench"})
			if c.Healthz(context.Background()) == nil {
				h.c = c
				return h, nil
			}
		}
		if time.Now().After(deadline) {
			h.stop()
			return nil, fmt.Errorf("%s serve: not ready after 30 s", o.bin)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *hubProc) stop() {
	if h.cmd != nil && h.cmd.Process != nil {
		h.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { h.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			h.cmd.Process.Kill()
			<-done
		}
	}
	if h.agents != nil && h.agents.Process != nil {
		h.stdin.Close()
		h.agents.Wait()
	}
	os.RemoveAll(h.dir)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// memory returns VmRSS and VmHWM of pid in MiB.
func memory(pid int) (rss, hwm float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s", pid, line)
		}
		if k == "VmRSS" {
			rss = float64(kb) / 1024
		} else {
			hwm = float64(kb) / 1024
		}
	}
	return rss, hwm, nil
}

// resetPeak sets VmHWM back to the current RSS.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}
