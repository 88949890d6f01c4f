package acp

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AgentOptions configure Launch. The zero value is usable.
type AgentOptions struct {
	Process ProcessOptions
	Client  ClientOptions
	// ExitWait bounds how long a call failing on the agent's closed stdout
	// waits for its exit status, so the error can carry the exit code and the
	// stderr tail (default 2s).
	ExitWait time.Duration
}

// Agent is a running agent process with an initialized ACP connection.
// Every ClientConn method is available on it.
type Agent struct {
	*ClientConn
	Proc *Process
	Init InitializeResponse
}

// ExitError is why an agent's connection ended when its process exited:
// calls pending at that moment, and later ones, fail with it wrapped.
type ExitError struct{ Exit ExitInfo }

func (e *ExitError) Error() string { return e.Exit.String() }

// Launch starts cmd as an agent and runs initialize (bounded by ctx). On any
// failure the process is stopped before Launch returns, and the error
// carries the agent's exit status and stderr tail when it died.
func Launch(ctx context.Context, cmd Command, client Client, opts AgentOptions) (*Agent, error) {
	if opts.ExitWait <= 0 {
		opts.ExitWait = 2 * time.Second
	}
	proc, err := StartProcess(cmd, opts.Process)
	if err != nil {
		return nil, err
	}
	copts := opts.Client
	if copts.Logger == nil {
		copts.Logger = opts.Process.Logger
	}
	copts.EOFCause = func(readErr error) error {
		select {
		case <-proc.Done():
			return &ExitError{Exit: proc.Exit()}
		case <-time.After(opts.ExitWait):
			return fmt.Errorf("agent closed its stdout (%v) but is still running", readErr)
		}
	}
	a := &Agent{ClientConn: NewClientConn(proc.Stdout(), proc.Stdin(), client, copts), Proc: proc}
	a.Init, err = a.Initialize(ctx)
	if err != nil {
		a.Close(context.Background())
		if exit := a.exitError(); exit != nil && !errors.As(err, new(*ExitError)) {
			err = fmt.Errorf("%w (%w)", err, exit)
		}
		return nil, fmt.Errorf("acp: start %s: %w", cmd.Path, err)
	}
	return a, nil
}

func (a *Agent) exitError() error {
	select {
	case <-a.Proc.Done():
		return &ExitError{Exit: a.Proc.Exit()}
	default:
		return nil
	}
}

// Close ends the connection and stops the process: stdin EOF, then TERM and
// KILL to its process group after the grace periods (see Process.Close).
// ctx bounds the whole; the process is always reaped.
func (a *Agent) Close(ctx context.Context) error {
	err := a.Proc.Close(ctx)
	a.ClientConn.Close()
	return err
}
