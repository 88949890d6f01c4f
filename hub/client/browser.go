package client

import (
	"fmt"
	"os/exec"
	"runtime"
)

// OpenBrowser hands u to the desktop's browser (open on macOS, the URL
// handler on Windows, xdg-open elsewhere) and returns once it started,
// reaping it in the background. env is its environment (nil: this
// process's). u is a one-time login link (GET /v1/auth/codes' link), at
// most: never the token. The app and the tray share it.
func OpenBrowser(u string, env []string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening the browser: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
