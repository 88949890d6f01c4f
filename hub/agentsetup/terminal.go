package agentsetup

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/hub"
)

// signInTerminal is one terminal sign-in: the agent's program in a PTY, its
// output kept (capped) for whoever watches.
type signInTerminal struct {
	agent string
	cmd   *exec.Cmd
	tty   *os.File

	mu       sync.Mutex
	out      []byte // everything printed, capped
	watchers map[chan hub.AuthFrame]struct{}
	exit     *int
	done     chan struct{}
}

// pump copies the PTY's output to the buffer and the watchers until the
// program's side closes.
func (s *signInTerminal) pump() {
	defer close(s.done)
	buf := make([]byte, 4096)
	var pending []byte
	for {
		n, err := s.tty.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			// Whole UTF-8 characters only, the rest waits for more.
			cut := len(pending)
			for cut > 0 && !utf8.Valid(pending[:cut]) && len(pending)-cut < 4 {
				cut--
			}
			text := strings.ToValidUTF8(string(pending[:cut]), "\uFFFD")
			pending = pending[cut:]
			s.emit(text)
		}
		if err != nil {
			if len(pending) > 0 {
				s.emit(strings.ToValidUTF8(string(pending), "\uFFFD"))
			}
			return
		}
	}
}

func (s *signInTerminal) emit(text string) {
	if text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.out)+len(text) <= authOutputMax {
		s.out = append(s.out, text...)
	}
	for w := range s.watchers {
		select {
		case w <- hub.AuthFrame{Output: text}:
		default: // a watcher that does not read loses output, never blocks the program
		}
	}
}

func (s *signInTerminal) finish(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exit = &code
	for w := range s.watchers {
		select {
		case w <- hub.AuthFrame{Exit: &code}:
		default:
		}
		close(w)
	}
	s.watchers = nil
	s.tty.Close()
}

// watch streams the session: what it printed so far, then live output,
// then its exit; the channel closes after the exit or when ctx ends.
func (s *signInTerminal) watch(ctx context.Context) <-chan hub.AuthFrame {
	ch := make(chan hub.AuthFrame, 256)
	s.mu.Lock()
	if len(s.out) > 0 {
		ch <- hub.AuthFrame{Output: string(s.out)}
	}
	if s.exit != nil {
		ch <- hub.AuthFrame{Exit: s.exit}
		close(ch)
		s.mu.Unlock()
		return ch
	}
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			if _, ok := s.watchers[ch]; ok {
				delete(s.watchers, ch)
				close(ch)
			}
			s.mu.Unlock()
		case <-s.done:
		}
	}()
	return ch
}
