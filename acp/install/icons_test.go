package install_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/install"
)

const logoSVG = `<?xml version="1.0"?>
<!-- a logo -->
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="8"/></svg>`

// The registry's logos: fetched once each, kept, listed as data: URLs by
// npm package and by id; a logo that is not an image, too large, not
// http(s) or unreachable is dropped (the agent keeps its monogram), and
// one already kept is not fetched again until the registry names another
// URL for it.
func TestRegistryIcons(t *testing.T) {
	var hits atomic.Int32
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/logo.svg":
			w.Header().Set("Content-Type", "text/html") // not trusted either way
			w.Write([]byte(logoSVG))
		case "/logo2.svg":
			w.Write([]byte(strings.Replace(logoSVG, "r=\"8\"", "r=\"7\"", 1)))
		case "/logo.png":
			w.Write(png)
		case "/page.html":
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Write([]byte("<html><script>alert(1)</script></html>"))
		case "/huge.svg":
			w.Write([]byte("<svg " + strings.Repeat("x", 70<<10) + "/>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	in := &install.Installer{Dir: filepath.Join(t.TempDir(), "agents")}
	agents := func(svg string) []install.RegistryAgent {
		var list []install.RegistryAgent
		add := func(id, icon, pkg string) {
			doc := `{"id":"` + id + `","icon":"` + icon + `"`
			if pkg != "" {
				doc += `,"distribution":{"npx":{"package":"` + pkg + `"}}`
			}
			var a install.RegistryAgent
			if err := json.Unmarshal([]byte(doc+"}"), &a); err != nil {
				t.Fatal(err)
			}
			list = append(list, a)
		}
		add("svg-agent", srv.URL+svg, "@org/svg-agent@1.2.3")
		add("png-agent", srv.URL+"/logo.png", "")
		add("html-agent", srv.URL+"/page.html", "")
		add("huge-agent", srv.URL+"/huge.svg", "")
		add("file-agent", "file:///etc/passwd", "")
		add("gone-agent", srv.URL+"/missing.svg", "")
		return list
	}
	err := in.FetchIcons(context.Background(), agents("/logo.svg"))
	for _, bad := range []string{"html-agent", "huge-agent", "file-agent", "gone-agent"} {
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("the error does not name %s: %v", bad, err)
		}
	}
	want := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(logoSVG))
	if got := in.Icon("svg-agent", ""); got != want {
		t.Fatalf("by id: %q", got)
	}
	// A built-in agent of the same npm package (another id) finds it too.
	if got := in.Icon("svg", "@org/svg-agent"); got != want {
		t.Fatalf("by npm package: %q", got)
	}
	if got := in.Icon("png-agent", ""); !strings.HasPrefix(got, "data:image/png;base64,") {
		t.Fatalf("png: %q", got)
	}
	for _, none := range []string{"html-agent", "huge-agent", "file-agent", "gone-agent", "never-listed"} {
		if got := in.Icon(none, ""); got != "" {
			t.Errorf("%s has a logo: %.60q", none, got)
		}
	}
	files, _ := os.ReadDir(filepath.Join(in.Dir, "icons"))
	for _, f := range files {
		if fi, _ := f.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, not 0600", f.Name(), fi.Mode().Perm())
		}
	}

	// Fetched again: the kept ones are not asked for; a new URL is.
	before := hits.Load()
	if err := in.FetchIcons(context.Background(), agents("/logo.svg")); err == nil {
		t.Fatal("the bad ones are bad again")
	}
	if asked := hits.Load() - before; asked != 3 { // html, huge, missing (file: never asks)
		t.Fatalf("a second fetch asked the server %d times, want 3 (the bad ones only)", asked)
	}
	_ = in.FetchIcons(context.Background(), agents("/logo2.svg"))
	if got := in.Icon("svg-agent", ""); got == want || !strings.HasPrefix(got, "data:image/svg+xml;base64,") {
		t.Fatalf("a new URL did not replace the logo: %.60q", got)
	}
}
