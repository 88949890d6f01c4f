package acptest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// NPMPackage is a package version a test registry serves: its files
// (path → content, under the tarball's package/ folder; a path under
// bin/ is made executable) beside the package.json NPMRegistry writes
// from Name, Version and Bin (program name → file).
type NPMPackage struct {
	Name    string
	Version string
	Bin     map[string]string
	Files   map[string]string
}

// NPMRegistry is a minimal npm registry on 127.0.0.1 for tests: the
// packument of each package (GET /<name>, scoped names escaped as npm
// does) and its tarballs. Fetches counts the requests served.
type NPMRegistry struct {
	URL string

	mu       sync.Mutex
	docs     map[string]map[string]any // name → packument
	tarballs map[string][]byte         // path → tgz
	Fetches  int
}

// NewNPMRegistry serves pkgs until the test ends; the last version of a
// package is its `latest`.
func NewNPMRegistry(t testing.TB, pkgs ...NPMPackage) *NPMRegistry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &NPMRegistry{URL: "http://" + ln.Addr().String() + "/", docs: map[string]map[string]any{}, tarballs: map[string][]byte{}}
	for _, p := range pkgs {
		r.Add(t, p)
	}
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return r
}

// Add serves one more package version, which becomes its latest.
func (r *NPMRegistry) Add(t testing.TB, p NPMPackage) {
	t.Helper()
	tgz := packTarball(t, p)
	base := p.Name[strings.LastIndex(p.Name, "/")+1:]
	path := "/" + p.Name + "/-/" + base + "-" + p.Version + ".tgz"
	sum512 := sha512.Sum512(tgz)
	sum1 := sha1.Sum(tgz)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tarballs[path] = tgz
	doc := r.docs[p.Name]
	if doc == nil {
		doc = map[string]any{"name": p.Name, "versions": map[string]any{}, "dist-tags": map[string]string{}}
		r.docs[p.Name] = doc
	}
	doc["versions"].(map[string]any)[p.Version] = map[string]any{
		"name": p.Name, "version": p.Version, "bin": p.Bin,
		"dist": map[string]string{
			"tarball":   strings.TrimSuffix(r.URL, "/") + path,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]),
			"shasum":    hex.EncodeToString(sum1[:]),
		},
	}
	doc["dist-tags"].(map[string]string)["latest"] = p.Version
}

func (r *NPMRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Fetches++
	path, _ := url.PathUnescape(req.URL.EscapedPath())
	if tgz, ok := r.tarballs[path]; ok {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(tgz)
		return
	}
	if doc, ok := r.docs[strings.TrimPrefix(path, "/")]; ok {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
		return
	}
	http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
}

// packTarball is what `npm pack` makes of p: package/package.json and
// p's files, gzipped.
func packTarball(t testing.TB, p NPMPackage) []byte {
	t.Helper()
	pj, _ := json.Marshal(map[string]any{"name": p.Name, "version": p.Version, "bin": p.Bin})
	files := map[string]string{"package.json": string(pj)}
	for k, v := range p.Files {
		files[k] = v
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		mode := int64(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: mode, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// FixtureAgentPackage is an npm package whose program, bin/<bin>, runs
// the program named by the FIXTURE_AGENT_BIN variable with its arguments
// (a test points it at the fake agent, FakeAgentArgv).
func FixtureAgentPackage(name, version, bin string) NPMPackage {
	return NPMPackage{Name: name, Version: version, Bin: map[string]string{bin: "bin/" + bin},
		Files: map[string]string{"bin/" + bin: "#!/bin/sh\n# " + name + " " + version + "\nexec \"$FIXTURE_AGENT_BIN\" \"$@\"\n"}}
}
