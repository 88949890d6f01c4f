package acptest

import (
	"fmt"
	"os"
	"os/exec"
)

// daemon starts a grandchild (this executable, sleeping secs) in a session
// of its own (where the system has sessions), detached from the agent's
// stdio, and says its pid: what escapes every process group the hub knows.
func (a *agent) daemon(s *session, t *turn, secs int) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	c := exec.Command(exe, os.Args[1:]...)
	c.Env = append(os.Environ(), fmt.Sprintf("%s=%d", grandchildEnv, secs))
	c.SysProcAttr = newSessionAttr()
	if err := c.Start(); err != nil {
		a.say(s, t, "daemon error: "+err.Error())
		return
	}
	go c.Wait()
	a.say(s, t, fmt.Sprintf("daemon %d", c.Process.Pid))
}
