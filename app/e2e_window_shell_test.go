//go:build linux

package app

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The shell is a fixed layout in the real window (WebKitGTK, issue 29):
// the toolbar and the composer are docked, only the thread (and the thread
// list) scroll, never the page. A thread far taller than the window is
// shown in a window made smaller after it opened (900×600); the mouse
// wheel over the thread scrolls up, then down well past its end (where a
// page that can scroll takes the rest of the wheel: scroll chaining). The
// toolbar's strip and the composer's strip of the window's pictures stay
// as they were, while the thread's part changed; and the bottom edge is
// still the composer, not a band of page background. A root taller than
// the web view (height: calc(100vh + 3rem)) fails every one of these
// checks. .ci/desktop-smoke runs it; the same geometry in Chromium is
// frontend/e2e/shell.mjs.
func TestWindowShellFixed(t *testing.T) {
	bin := desktopE2EBin(t)
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	config := benchConfig(t, dir)
	ctx := context.Background()
	pid, _ := launchApp(t, bin, dataDir, config, desktopEnv(dir))
	c := client.New(dataDir, client.Options{ClientID: "bench"})
	testkit.Eventually(t, 60*time.Second, "the app to serve the API", func() bool {
		_, err := c.Connect(ctx)
		return err == nil
	})
	w := findAppWindow(t, pid)

	// A thread of many long turns.
	th := newThread(t, c, dir)
	if _, err := c.RenameThread(ctx, th.ID, "Long"); err != nil {
		t.Fatal(err)
	}
	para := strings.Repeat("a long line of the agent's answer, to fill the window ", 12)
	for i := range 14 {
		turn, err := c.StartTurn(ctx, th.ID, hub.TurnInput{Input: fmt.Sprintf("echo turn %d: %s", i+1, para)})
		if err != nil {
			t.Fatal(err)
		}
		waitUntil(t, 30*time.Second, "turn "+turn.ID+" to end", func() bool {
			hist, err := c.History(ctx, th.ID, false)
			if err != nil || len(hist) != i+1 {
				return false
			}
			for _, h := range hist {
				if !h.Ended() {
					return false
				}
			}
			return true
		})
	}
	w.key("ctrl+1")
	w.waitTitle("Long — Switchboard")
	w.settled() // the history is drawn and scrolled to its end

	// A window made smaller after it opened, as a user does (the layout
	// must follow the new size).
	if _, err := xdotool(t, "windowsize", "--sync", w.id, "900", "600"); err != nil {
		t.Fatalf("xdotool windowsize: %v", err)
	}
	w.settled()
	width, height := w.size()
	x, y := width*2/3, height/2 // over the thread, right of the thread list
	before := w.picture()
	w.wheel(x, y, 4, 15) // up
	up := w.picture()
	w.wheel(x, y, 5, 60) // down, well past the end
	down := w.picture()

	const toolbar, composer = 36, 70 // px: inside the toolbar (40) and the composer (≥ 100 at 1200×800)
	strips := []struct {
		name   string
		y0, y1 int
	}{
		{"the toolbar", 2, toolbar},
		{"the composer", height - composer, height},
	}
	for _, p := range []struct {
		name string
		img  image.Image
	}{{"after scrolling up", up}, {"after scrolling down past the end", down}} {
		for _, s := range strips {
			// A few pixels may differ: a caret blinking in the composer.
			if n := differ(before, p.img, 0, s.y0, width, s.y1); n > 60 {
				w.shot()
				t.Errorf("%s: %s moved (%d pixels of its strip changed): the page scrolled", p.name, s.name, n)
			}
		}
	}
	// Whether the thread opened at its end or its start, one of the two
	// wheels moved it.
	if n := differ(up, down, width/3, toolbar+60, width, height-composer-60); n < 2000 {
		w.shot()
		t.Errorf("the wheel over the thread did not scroll it (%d pixels changed)", n)
	}
	// The bottom edge is the composer's background, as before any wheel:
	// no band of the page's background under it.
	for _, img := range []image.Image{up, down} {
		if n := differ(before, img, 0, height-3, width, height); n > 0 {
			t.Errorf("the window's bottom rows changed (%d pixels): a band under the composer", n)
		}
	}
}

// size answers the window's inner width and height in pixels.
func (w *xwindow) size() (int, int) {
	w.t.Helper()
	out, err := xdotool(w.t, "getwindowgeometry", "--shell", w.id)
	if err != nil {
		w.t.Fatalf("xdotool getwindowgeometry: %v", err)
	}
	var width, height int
	for line := range strings.FieldsSeq(out) {
		if v, ok := strings.CutPrefix(line, "WIDTH="); ok {
			width, _ = strconv.Atoi(v)
		} else if v, ok := strings.CutPrefix(line, "HEIGHT="); ok {
			height, _ = strconv.Atoi(v)
		}
	}
	if width < 400 || height < 300 {
		w.t.Fatalf("window geometry %q", out)
	}
	return width, height
}

// wheel turns the mouse wheel n notches (X button 4 up, 5 down) with the
// pointer at x, y in the window, then waits for the page to settle.
func (w *xwindow) wheel(x, y, button, n int) {
	w.t.Helper()
	if _, err := xdotool(w.t, "windowfocus", "--sync", w.id); err != nil {
		w.t.Fatalf("xdotool windowfocus: %v", err)
	}
	if _, err := xdotool(w.t, "mousemove", "--window", w.id, "--sync", strconv.Itoa(x), strconv.Itoa(y)); err != nil {
		w.t.Fatalf("xdotool mousemove: %v", err)
	}
	// Real (XTEST) button events: WebKitGTK ignores the synthetic ones
	// `click --window` sends.
	if _, err := xdotool(w.t, "click", "--repeat", strconv.Itoa(n), "--delay", "40", strconv.Itoa(button)); err != nil {
		w.t.Fatalf("xdotool click %d: %v", button, err)
	}
	w.settled() // smooth scrolling ends
}

// settled waits until what the window shows stops changing (three
// pictures in a row alike, but for a caret's few pixels) and returns the
// last: the page has drawn what it was given and any smooth scroll ended.
func (w *xwindow) settled() image.Image {
	w.t.Helper()
	last, calm := w.picture(), 0
	waitUntil(w.t, 20*time.Second, "the window to stop changing", func() bool {
		now := w.picture()
		b := now.Bounds()
		if b == last.Bounds() && differ(last, now, b.Min.X, b.Min.Y, b.Max.X, b.Max.Y) <= 60 {
			calm++
		} else {
			calm = 0
		}
		last = now
		return calm >= 2
	})
	return last
}

// picture is what the window shows now (ImageMagick's import).
func (w *xwindow) picture() image.Image {
	w.t.Helper()
	out, err := exec.Command("import", "-window", w.id, "png:-").Output()
	if err != nil {
		w.t.Fatalf("import -window %s: %v", w.id, err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		w.t.Fatalf("the window's picture: %v", err)
	}
	return img
}

// differ counts the pixels of the rectangle x0,y0–x1,y1 that a and b do
// not have alike.
func differ(a, b image.Image, x0, y0, x1, y1 int) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				n++
			}
		}
	}
	return n
}
