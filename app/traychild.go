//go:build !headless

package app

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/switchboard-hub/switchboard/tray/autostart"
)

// startTray starts the tray helper on the hub's data dir when the config
// enables it (tray.enabled, default true), and returns how to stop it: on
// quit the desktop app sends it SIGTERM and waits (bounded). The tray is
// its own process because systray and Wails cannot share one (docs/ARCHITECTURE.md, "Pinned facts").
// A missing tray binary is logged, not fatal: the window works without it.
func (h *runningHub) startTray() (stop func()) {
	if !h.currentConfig().Tray.Enabled {
		return func() {}
	}
	prog := autostart.Program()
	if prog == "" {
		h.log.Warn("tray: switchboard-tray not found beside switchboard or on PATH; no tray icon")
		return func() {}
	}
	return h.startTrayProgram(prog)
}

// startTrayProgram starts prog as the tray child with a new per-launch
// secret: the hub records decisions carrying it (X-Switchboard-Tray) as
// decidedBy "tray". The secret goes over an inherited pipe (fd 3, flag
// --secret-fd 3; on Windows, which passes no descriptors but the standard
// three, the child's stdin: --secret-fd 0), never argv or env, which other local users can read in
// /proc. It is forgotten by the hub when the child is stopped, so a tray
// the user starts by hand decides as client:switchboard-tray.
func (h *runningHub) startTrayProgram(prog string) (stop func()) {
	noop := func() {}
	secret, r, err := traySecretPipe()
	if err != nil {
		h.log.Warn("tray: not started", "err", err)
		return noop
	}
	cmd := exec.Command(prog, "--data-dir", h.dataDir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	passTraySecret(cmd, r)
	h.http.SetTraySecret(secret)
	err = cmd.Start()
	r.Close() // the child has its copy
	if err != nil {
		h.http.SetTraySecret("")
		h.log.Warn("tray: not started", "err", err)
		return noop
	}
	h.log.Info("tray started", "pid", cmd.Process.Pid)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return func() {
		h.http.SetTraySecret("")
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

// traySecretPipe makes a secret (32 random bytes, hex) and a pipe whose
// read end holds it, written whole and closed (it fits the pipe's buffer),
// so the child reads it to EOF at its own pace.
func traySecretPipe() (secret string, r *os.File, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("tray secret: %w", err)
	}
	secret = hex.EncodeToString(b[:])
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, fmt.Errorf("tray secret: %w", err)
	}
	_, err = w.WriteString(secret)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return "", nil, fmt.Errorf("tray secret: %w", err)
	}
	return secret, r, nil
}
