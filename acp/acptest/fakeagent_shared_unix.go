//go:build unix

package acptest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// AttachEnv makes FakeAgentMain attach to a shared fake agent (see
// ServeFakeAgents) instead of serving the protocol itself: its value is the
// path of the server's Unix socket.
const AttachEnv = "FAKEAGENT_ATTACH"

// ServeFakeAgents serves fake agents for many agent processes from this one
// process, until ln is closed. An agent process started with AttachEnv set
// connects to ln and hands over its stdin and stdout (SCM_RIGHTS); this
// process then runs the fake agent of FakeAgentMain on them, with the
// options of this process's environment, and closes the connection when the
// agent's stdin reaches EOF, which ends the attached process. So a hub that
// starts one process per thread gets one session per process as usual,
// while the work of all of them — timers, JSON, writes — is scheduled in
// one runtime: what a benchmark of the hub wants (the agents are not what
// it measures). The attached processes sit blocked in a read. errOut
// receives the agents' logs.
func ServeFakeAgents(ln *net.UnixListener, errOut io.Writer) error {
	opts := readOptions()
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go serveAttached(conn, errOut, opts)
	}
}

// serveAttached runs one fake agent on the stdin and stdout an attached
// process sent over conn.
func serveAttached(conn *net.UnixConn, errOut io.Writer, opts options) {
	defer conn.Close()
	in, out, err := receiveStdio(conn)
	if err != nil {
		fmt.Fprintf(errOut, "fakeagent: attach: %v\n", err)
		return
	}
	defer in.Close()
	defer out.Close()
	a := newAgent(in, out, errOut, opts)
	// crash and friends end this agent only: its pipes close, then the
	// attached process exits (with status 0: the code is not carried).
	a.exit = func(int) { in.Close(); out.Close(); conn.Close() }
	a.serve()
}

// receiveStdio reads the two descriptors an attached process sends.
func receiveStdio(conn *net.UnixConn) (in, out *os.File, err error) {
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(2*4))
	_, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, nil, fmt.Errorf("no descriptors received (%v)", err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 2 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, nil, fmt.Errorf("want 2 descriptors, got %d (%v)", len(fds), err)
	}
	for _, fd := range fds {
		// Through the runtime's poller, not a blocked thread per pipe.
		_ = syscall.SetNonblock(fd, true)
	}
	return os.NewFile(uintptr(fds[0]), "attached-stdin"), os.NewFile(uintptr(fds[1]), "attached-stdout"), nil
}

// attach hands this process's stdin and stdout to the shared fake agent at
// socket and waits until it is done with them; it returns the exit status.
func attach(socket string) int {
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: attach: %v\n", err)
		return 1
	}
	defer conn.Close()
	if _, _, err := conn.WriteMsgUnix([]byte{0}, syscall.UnixRights(0, 1), nil); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: attach: %v\n", err)
		return 1
	}
	// Our copies are no longer needed: the server holds its own.
	os.Stdin.Close()
	os.Stdout.Close()
	_, _ = io.Copy(io.Discard, conn)
	return 0
}
