//go:build windows

package acp

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups to signal: each agent (and terminal) runs
// in a job object of its own instead, created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so
//   - signalGroup terminates the whole job: the agent and every process it
//     started (wrappers such as npx spawn grandchildren);
//   - when the hub dies without cleaning up (a crash), Windows closes its
//     handles and so kills every job's processes: no agent is orphaned.
// Windows has no gentle SIGTERM: every signal terminates the job.
//
// The child is assigned to its job right after it starts, so a grandchild
// it spawns in that instant escapes the job (Go's exec cannot start it
// suspended). When the job cannot be made or assigned the start fails (the
// child is killed and reaped): an agent the hub cannot stop as a whole is
// not run.
//
// Compiled and vetted on Linux (GOOS=windows CGO_ENABLED=0); not run on
// Windows yet (docs/building.md lists it).

// jobs maps a started child's pid to its job object.
var jobs sync.Map // int → windows.Handle

// startGroup starts c in a new job object, in a new console process group
// (a Ctrl+C meant for the hub does not reach it) and without a console
// window of its own (the window app is a GUI program: without
// CREATE_NO_WINDOW every agent, a console program talking over pipes,
// would pop up a console).
func startGroup(c *exec.Cmd) error {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW
	job, err := newKillOnCloseJob()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		windows.CloseHandle(job)
		return err
	}
	if err := assignToJob(job, c.Process.Pid); err != nil {
		windows.CloseHandle(job)
		_ = c.Process.Kill()
		_ = c.Wait()
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	jobs.Store(c.Process.Pid, job)
	return nil
}

// newKillOnCloseJob makes a job object whose processes all die when its
// last handle is closed.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return job, nil
}

func assignToJob(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// signalGroup terminates the job pid was started in: every process in it.
// SIGKILL also releases the job (the last signal a child gets: Process.wait
// sends it once the child is reaped); a later call finds no job and returns
// os.ErrProcessDone. It never signals by pid alone: a reaped child's pid
// may belong to another process by then.
func signalGroup(pid int, sig syscall.Signal) error {
	v, ok := jobs.Load(pid)
	if !ok {
		return os.ErrProcessDone
	}
	job := v.(windows.Handle)
	err := windows.TerminateJobObject(job, 1)
	if sig == syscall.SIGKILL && jobs.CompareAndDelete(pid, v) {
		windows.CloseHandle(job)
	}
	if err != nil {
		return fmt.Errorf("TerminateJobObject: %w", err)
	}
	return nil
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("SIG%d", int(sig))
}
