//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-hub/switchboard/app/datadir"
)

// Start runs this program with args (serve's, without --daemon) as a
// daemon on dataDir and waits until it wrote hub.json (it serves) or
// exited. It prints one line to out: "started pid N" or "already running
// pid N".
func Start(dataDir string, out io.Writer, args ...string) error {
	if pid, ok := running(dataDir); ok {
		fmt.Fprintf(out, "switchboard: already running pid %d\n", pid)
		return nil
	}
	if err := datadir.Ensure(dataDir); err != nil {
		return err
	}
	logPath := filepath.Join(dataDir, LogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	start, _ := logf.Seek(0, io.SeekEnd)
	program, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(program, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if pid, ok := running(dataDir); ok { // another start won the lock
				fmt.Fprintf(out, "switchboard: already running pid %d\n", pid)
				return nil
			}
			return fmt.Errorf("the hub exited at start (%v): %s", err, logTail(logPath, start))
		case <-deadline:
			cmd.Process.Kill()
			return errors.New("the hub did not start within 60 s: " + logTail(logPath, start))
		case <-tick.C:
			if d, err := datadir.ReadDiscovery(dataDir); err == nil && d.PID == cmd.Process.Pid {
				fmt.Fprintf(out, "switchboard: started pid %d\n", d.PID)
				cmd.Process.Release()
				return nil
			}
		}
	}
}

// running is the pid of the hub hub.json names, if that process lives
// and holds the data dir's lock.
func running(dataDir string) (int, bool) {
	d, err := datadir.ReadDiscovery(dataDir)
	if err != nil || d.PID <= 0 || syscall.Kill(d.PID, 0) != nil {
		return 0, false
	}
	if release, err := datadir.Lock(dataDir); err == nil {
		release() // nobody holds it: hub.json is stale
		return 0, false
	}
	return d.PID, true
}

// logTail is what the daemon wrote to its log since offset, last 2 KiB.
func logTail(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < offset {
		return "(no log)"
	}
	b = b[offset:]
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return strings.TrimSpace(string(b))
}
