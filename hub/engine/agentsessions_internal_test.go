package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
)

// The process that lists sessions is served nothing: every file and
// terminal request is refused, every permission cancelled.
func TestListerClientRefusesEverything(t *testing.T) {
	ctx := context.Background()
	var c listerClient
	if r, err := c.RequestPermission(ctx, acp.RequestPermissionRequest{}); err != nil || r.Outcome.Outcome != "cancelled" {
		t.Errorf("permission answered %+v, %v: want cancelled", r, err)
	}
	errs := []error{}
	_, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: "/etc/passwd"})
	errs = append(errs, err)
	_, err = c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: "/tmp/x", Content: "x"})
	errs = append(errs, err)
	_, err = c.CreateTerminal(ctx, acp.CreateTerminalRequest{Command: "sh"})
	errs = append(errs, err)
	_, err = c.TerminalOutput(ctx, acp.TerminalOutputRequest{})
	errs = append(errs, err)
	_, err = c.WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{})
	errs = append(errs, err)
	_, err = c.KillTerminal(ctx, acp.KillTerminalRequest{})
	errs = append(errs, err)
	_, err = c.ReleaseTerminal(ctx, acp.ReleaseTerminalRequest{})
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Errorf("request %d served", i)
		}
	}
}

func TestSessionTextCleaning(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain title", "plain title"},
		{"line\nbreak\ttab\x1b[31mred", "line break tab [31mred"},
		{"\u202eevil\u2066x", "evil x"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"  padded  ", "padded"},
	} {
		if got := cleanText(tc.in, 200); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := cleanText(strings.Repeat("é", 300), 200); got != strings.Repeat("é", 200) {
		t.Errorf("cut to %d runes", len([]rune(got)))
	}
	for id, ok := range map[string]bool{"s1": true, "ses_ABC-123": true, "": false, "a\nb": false, "a\x00b": false, "\xff": false, strings.Repeat("x", 512): true, strings.Repeat("x", 513): false} {
		if validSessionID(id) != ok {
			t.Errorf("validSessionID(%q) = %v", id, !ok)
		}
	}
}
