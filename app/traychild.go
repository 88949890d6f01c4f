//go:build !headless

package app

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// trayProgram finds switchboard-tray: beside this binary first (build/bin,
// an install folder), else on PATH. "" when there is none.
func trayProgram() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "switchboard-tray")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath("switchboard-tray"); err == nil {
		return p
	}
	return ""
}

// startTray starts the tray helper on the hub's data dir when the config
// enables it (tray.enabled, default true), and returns how to stop it: on
// quit the desktop app sends it SIGTERM and waits (bounded). The tray is
// its own process because systray and Wails cannot share one (DESIGN.md).
// A missing tray binary is logged, not fatal: the window works without it.
func (h *runningHub) startTray() (stop func()) {
	noop := func() {}
	if !h.currentConfig().Tray.Enabled {
		return noop
	}
	prog := trayProgram()
	if prog == "" {
		h.log.Warn("tray: switchboard-tray not found beside switchboard or on PATH; no tray icon")
		return noop
	}
	cmd := exec.Command(prog, "--data-dir", h.dataDir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		h.log.Warn("tray: not started", "err", err)
		return noop
	}
	h.log.Info("tray started", "pid", cmd.Process.Pid)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			cmd.Process.Kill()
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
}
