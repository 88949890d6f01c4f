//go:build !headless

package app

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub/httpapi"
)

func TestWindowOptions(t *testing.T) {
	frontend := fstest.MapFS{"frontend/dist/index.html": {Data: []byte("<title>Switchboard</title>")}}
	w := &window{dataDir: t.TempDir()}
	opts, err := w.options(context.Background(), Assets{Frontend: frontend, Icon: []byte("png")})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Title != "Switchboard" {
		t.Errorf("title %q, want Switchboard", opts.Title)
	}
	// The asset server is rooted at frontend/dist.
	if _, err := fs.Stat(opts.AssetServer.Assets, "index.html"); err != nil {
		t.Errorf("assets: %v", err)
	}
	if opts.Linux == nil || string(opts.Linux.Icon) != "png" {
		t.Errorf("linux options %+v, want the icon", opts.Linux)
	}
	if opts.OnStartup == nil || opts.OnShutdown == nil || opts.OnBeforeClose == nil {
		t.Error("no OnStartup/OnShutdown/OnBeforeClose: SIGTERM would not close the window")
	}
	if !opts.HideWindowOnClose {
		t.Error("closing the window would quit the hub")
	}
	if opts.SingleInstanceLock == nil || opts.SingleInstanceLock.UniqueId != instanceID(w.dataDir) {
		t.Errorf("single instance lock %+v, want one per data dir", opts.SingleInstanceLock)
	}
	if len(opts.Bind) != 1 {
		t.Fatalf("bound %v, want the Bindings", opts.Bind)
	}
	if _, ok := opts.Bind[0].(*Bindings); !ok {
		t.Errorf("bound %T, want *Bindings", opts.Bind[0])
	}
	if opts.ErrorFormatter == nil {
		t.Error("no ErrorFormatter: errors would reach JS without their code")
	}
	if opts.Width != defaultWidth || opts.Height != defaultHeight {
		t.Errorf("size %dx%d, want the default", opts.Width, opts.Height)
	}
	// A remembered geometry is used.
	if err := saveWindowState(w.dataDir, windowState{X: 10, Y: 20, Width: 900, Height: 700}); err != nil {
		t.Fatal(err)
	}
	opts, _ = w.options(context.Background(), Assets{Frontend: frontend})
	if opts.Width != 900 || opts.Height != 700 {
		t.Errorf("size %dx%d, want the remembered 900x700", opts.Width, opts.Height)
	}
}

func TestWindowOptionsWithoutFrontend(t *testing.T) {
	// A fresh clone has only frontend/dist/.gitkeep until make frontend.
	frontend := fstest.MapFS{"frontend/dist/.gitkeep": {}}
	_, err := (&window{dataDir: t.TempDir()}).options(context.Background(), Assets{Frontend: frontend})
	if err == nil || !strings.Contains(err.Error(), "make frontend") {
		t.Fatalf("err %v, want one that says to run make frontend", err)
	}
}

// TestWindowAssetsCarryUICSP serves the window's assets through the asset
// server options the window is built with: the main page, another asset
// and a missing path each carry the browser UI's Content-Security-Policy.
// (window_csp_webkit_test.go does the same through Wails' own asset server.)
func TestWindowAssetsCarryUICSP(t *testing.T) {
	opts, err := (&window{dataDir: t.TempDir()}).options(context.Background(), Assets{Frontend: cspFrontend})
	if err != nil {
		t.Fatal(err)
	}
	if opts.AssetServer.Middleware == nil {
		t.Fatal("the window's asset server has no middleware: its pages carry no Content-Security-Policy")
	}
	h := opts.AssetServer.Middleware(http.FileServerFS(opts.AssetServer.Assets))
	for _, path := range []string{"/", "/index.html", "/assets/app.js", "/no/such/page"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "wails://wails"+path, nil))
		if got := rec.Header().Get("Content-Security-Policy"); got != httpapi.UICSP {
			t.Errorf("GET %s: %d, Content-Security-Policy %q, want %q", path, rec.Code, got, httpapi.UICSP)
		}
	}
}

var cspFrontend = fstest.MapFS{
	"frontend/dist/index.html":    {Data: []byte("<!doctype html><html><head><title>Switchboard</title></head><body></body></html>")},
	"frontend/dist/assets/app.js": {Data: []byte("console.log(1)")},
}

// A show asked for before the frontend listens (a `switchboard open` while
// the page loads) is kept, the last one only, until EventWindowReady; then
// nothing is kept any more. The events themselves are tested in the real
// window (TestWindowDailyE2E).
func TestWindowShowBeforeReady(t *testing.T) {
	w := &window{dataDir: t.TempDir()}
	w.show("thread", "", "th_1")
	w.show("", "", "") // only raising the window: nothing to keep
	w.show("thread", "", "th_2")
	if w.pending == nil || *w.pending != (showRequest{"thread", "", "th_2"}) {
		t.Fatalf("pending %+v, want the last thread asked for", w.pending)
	}
	w.frontendReady()
	if !w.ready || w.pending != nil {
		t.Fatalf("after ready: ready %v, pending %+v", w.ready, w.pending)
	}
	w.show("thread", "", "th_3")
	if w.pending != nil {
		t.Errorf("kept %+v once the frontend listens", w.pending)
	}
}

// On macOS and Windows the app menu has the Thread menu, whose items are
// the frontend's EventMenu actions; on Linux there is no native menu bar
// (ADR 0034: the toolbar, the thread's actions menu and the palette have
// every item), and the window built for this machine follows its OS.
func TestWindowThreadMenu(t *testing.T) {
	frontend := fstest.MapFS{"frontend/dist/index.html": {Data: []byte("<title>Switchboard</title>")}}
	w := &window{dataDir: t.TempDir()}
	for _, goos := range []string{"darwin", "windows"} {
		var labels []string
		for _, m := range w.appMenu(goos, nil).Items {
			if m.Label != "Thread" || m.SubMenu == nil {
				continue
			}
			for _, it := range m.SubMenu.Items {
				labels = append(labels, it.Label)
			}
		}
		want := []string{"Export as Markdown…", "Export as JSON Lines…", "Open in Browser"}
		if strings.Join(labels, "|") != strings.Join(want, "|") {
			t.Errorf("%s: Thread menu %q, want %q", goos, labels, want)
		}
	}
	if m := w.appMenu("linux", nil); m != nil {
		t.Errorf("linux: a native menu bar %+v, want none", m.Items)
	}
	opts, err := w.options(context.Background(), Assets{Frontend: frontend})
	if err != nil {
		t.Fatal(err)
	}
	if (opts.Menu == nil) != (runtime.GOOS == "linux") {
		t.Errorf("on %s the window's menu is %v", runtime.GOOS, opts.Menu)
	}
}

// A SIGTERM quits twice (Wails' own signal handler and the context's
// watcher), concurrently: only the first quit saves the geometry and lets
// the window close; the others are cancelled before they touch GTK, where
// a second gtk_main_quit off the main thread raced the main loop's end.
func TestWindowQuitsOnce(t *testing.T) {
	w := &window{dataDir: t.TempDir()}
	var saves atomic.Int32
	save := func(context.Context) { saves.Add(1) }
	const quits = 8
	cancels := make(chan bool, quits)
	var wg sync.WaitGroup
	for range quits {
		wg.Go(func() { cancels <- w.beforeClose(context.Background(), save) })
	}
	wg.Wait()
	close(cancels)
	proceeded := 0
	for c := range cancels {
		if !c {
			proceeded++
		}
	}
	if proceeded != 1 || saves.Load() != 1 {
		t.Errorf("%d of %d quits went on and the geometry was saved %d times, want 1 and 1", proceeded, quits, saves.Load())
	}
	// The options' OnBeforeClose is this guard: once a quit is under way
	// it returns at once (without it, the Wails calls of saveGeometry on a
	// context without a window would end this test binary).
	frontend := fstest.MapFS{"frontend/dist/index.html": {Data: []byte("<title>Switchboard</title>")}}
	opts, err := w.options(context.Background(), Assets{Frontend: frontend})
	if err != nil {
		t.Fatal(err)
	}
	if !opts.OnBeforeClose(context.Background()) {
		t.Error("OnBeforeClose let a second quit go on")
	}
}

// fakeNotifier counts its close calls.
type fakeNotifier struct{ closed atomic.Int32 }

func (*fakeNotifier) Send(notify.Notification) error { return nil }
func (*fakeNotifier) Remove(string)                  {}
func (f *fakeNotifier) close()                       { f.closed.Add(1) }

// The notifications OnStartup starts are closed by OnShutdown, also when
// the window quit (an early SIGTERM) before OnStartup got that far.
func TestWindowClosesNotifier(t *testing.T) {
	w := &window{}
	n := &fakeNotifier{}
	if !w.keepNotifier(n) {
		t.Fatal("a notifier started before shutdown was not kept")
	}
	w.closeNotifier()
	if n.closed.Load() != 1 {
		t.Errorf("closed %d times by OnShutdown, want 1", n.closed.Load())
	}
	late := &fakeNotifier{}
	if w.keepNotifier(late) {
		t.Error("a notifier started after shutdown was kept")
	}
	if late.closed.Load() != 1 {
		t.Errorf("a notifier started after shutdown was closed %d times, want 1", late.closed.Load())
	}
}
