//go:build unix

package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// dialogs is a fake Emitter that also opens folder dialogs: it answers
// dir (or err) and records the titles asked for.
type dialogs struct {
	*recorder
	dir    string
	err    error
	titles []string
}

func (d *dialogs) ChooseFolder(title string) (string, error) {
	d.titles = append(d.titles, title)
	return d.dir, d.err
}

func TestChooseFolder(t *testing.T) {
	boom := errors.New("folder dialog: no display")
	tests := []struct {
		name     string
		emit     Emitter
		want     string
		wantCode string // "" when it succeeds
	}{
		{"picked", &dialogs{recorder: newRecorder(), dir: "/home/me/src/app"}, "/home/me/src/app", ""},
		{"cancelled", &dialogs{recorder: newRecorder()}, "", ""},
		{"dialog fails", &dialogs{recorder: newRecorder(), err: boom}, "", hub.CodeInternal},
		{"no dialog in this build", newRecorder(), "", hub.CodeInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBindings(context.Background(), hub.Services{}, tc.emit, nil)
			got, err := b.ChooseFolder("Folder for the new thread")
			if got != tc.want || hub.ErrorCode(err) != tc.wantCode {
				t.Fatalf("ChooseFolder = %q, %v; want %q, code %q", got, err, tc.want, tc.wantCode)
			}
			if d, ok := tc.emit.(*dialogs); ok && (len(d.titles) != 1 || d.titles[0] != "Folder for the new thread") {
				t.Errorf("dialog titles %q", d.titles)
			}
			if err != nil {
				// The window gets the error as the JSON string of every binding.
				if s, _ := formatError(err).(string); s == "" || !strings.Contains(s, `"code":"INTERNAL"`) {
					t.Errorf("formatError = %v", formatError(err))
				}
			}
		})
	}
}
