//go:build webkit2_41 && !headless

package app

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/assetserver"

	"github.com/switchboard-hub/switchboard/hub/httpapi"
)

// Wails' asset server links WebKitGTK (cgo) on Linux: this test is in the
// webkit2_41 build only (go test -tags desktop,production,webkit2_41 ./app/).

// fakeRuntime is the Wails runtime scripts the asset server injects.
type fakeRuntime struct{}

func (fakeRuntime) DesktopIPC() []byte       { return []byte("/*ipc*/") }
func (fakeRuntime) WebsocketIPC() []byte     { return []byte("/*ws*/") }
func (fakeRuntime) RuntimeDesktopJS() []byte { return []byte("/*runtime*/") }

type discardWailsLog struct{}

func (discardWailsLog) Debug(string, ...any) {}
func (discardWailsLog) Error(string, ...any) {}

// TestWindowAssetServerCarriesUICSP serves the window's pages through
// Wails' own asset server built from the window's options, as the webview
// gets them: the main page (with the runtime injected), another asset and
// a missing path each carry the browser UI's Content-Security-Policy.
func TestWindowAssetServerCarriesUICSP(t *testing.T) {
	opts, err := (&window{dataDir: t.TempDir()}).options(context.Background(), Assets{Frontend: cspFrontend})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := assetserver.NewAssetServerMainPage("", opts, false, discardWailsLog{}, fakeRuntime{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/index.html", "/assets/app.js", "/no/such/page"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", "wails://wails"+path, nil))
		if got := rec.Header().Get("Content-Security-Policy"); got != httpapi.UICSP {
			t.Errorf("GET %s: %d, Content-Security-Policy %q, want %q", path, rec.Code, got, httpapi.UICSP)
		}
		if path == "/" && !strings.Contains(rec.Body.String(), "/wails/runtime.js") {
			t.Errorf("GET /: the page the window loads is not Wails' main page: %s", rec.Body)
		}
	}
}
