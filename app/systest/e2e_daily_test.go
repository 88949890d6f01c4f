//go:build linux

package systest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// TestE2EDaily: issue 21 against the real binary: export and import,
// archive, `switchboard open`, the editor bridge's link to its thread.
func TestE2EDaily(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"ExportImport", e2eExportImport},
		{"ImportRefused", e2eImportRefused},
		{"ImportHostile", e2eImportHostile},
		{"Archive", e2eArchive},
		{"Open", e2eOpen},
		{"BridgeThreadLink", e2eBridgeThreadLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// raw sends a request with a raw body and content type and returns the
// status, headers and body.
func (h *hubProc) raw(method, path, contentType string, body io.Reader) (int, http.Header, []byte) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("X-Client-ID", "alice")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// turnDone starts a turn and waits for its end; with approve it approves
// the permission the turn asks for first.
func (h *hubProc) turnDone(threadID, input string, approve bool) {
	h.t.Helper()
	turn := h.startTurn(threadID, input)
	if approve {
		p := h.waitPermission(turn.ID, 30*time.Second)
		h.decide(p.ID, map[string]string{"outcome": "approved"})
	}
	h.waitTurn(threadID, turn.ID, 30*time.Second)
}

func e2eExportImport(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	cwd := t.TempDir()
	th := h.newThread("fake", cwd)
	h.turnDone(th.ID, "echo first answer", false)
	h.turnDone(th.ID, "tools", false)
	h.turnDone(th.ID, "permission", true)

	status, hdr, md := h.raw("GET", "/v1/threads/"+th.ID+"/export?format=md", "", nil)
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/markdown") ||
		!strings.HasPrefix(hdr.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("export md: %d %v\n%s", status, hdr, md)
	}
	for _, want := range []string{"> echo first answer", "first answer", "**Tool call:** Write hello.txt", "```diff", "+hello",
		"Permission for Run make clean: **approved**"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	status, hdr, jl := h.raw("GET", "/v1/threads/"+th.ID+"/export?format=jsonl", "", nil)
	if status != 200 || hdr.Get("Content-Type") != "application/x-ndjson" || !bytes.HasPrefix(jl, []byte(`{"schema":1,"thread":{"id":"`+th.ID+`"`)) {
		t.Fatalf("export jsonl: %d %v\n%.300s", status, hdr, jl)
	}

	// Round trip: the import is a new thread with the same conversation,
	// and its Markdown export is the original's but for the id.
	status, _, body := h.raw("POST", "/v1/threads/import", "application/x-ndjson", bytes.NewReader(jl))
	var res struct {
		Threads []apiThread
		Turns   int
	}
	if status != 201 || json.Unmarshal(body, &res) != nil || len(res.Threads) != 1 || res.Turns != 3 {
		t.Fatalf("import: %d %s", status, body)
	}
	nt := res.Threads[0]
	if nt.ID == th.ID || nt.Cwd != cwd || nt.ClientID != "alice" {
		t.Errorf("imported thread %+v", nt)
	}
	orig, imp := h.history(th.ID, true), h.history(nt.ID, true)
	if len(imp) != 3 {
		t.Fatalf("imported history: %+v", imp)
	}
	for i := range orig {
		if imp[i].Input != orig[i].Input || imp[i].Output != orig[i].Output || imp[i].ID == orig[i].ID {
			t.Errorf("turn %d: %+v, from %+v", i, imp[i], orig[i])
		}
	}
	_, _, md2 := h.raw("GET", "/v1/threads/"+nt.ID+"/export?format=md", "", nil)
	if got := strings.ReplaceAll(string(md2), nt.ID, th.ID); got != string(md) {
		t.Errorf("the imported thread's markdown differs:\n%s\n---\n%s", got, md)
	}
	// The imported thread takes turns like any other.
	h.turnDone(nt.ID, "echo after the import", false)

	// A folder: both threads, one export.
	status, _, folder := h.raw("GET", "/v1/threads/export?format=jsonl&cwd="+urlQuery(cwd), "", nil)
	if status != 200 || bytes.Count(folder, []byte(`{"schema":1,`)) != 2 {
		t.Errorf("folder export: %d, %d threads", status, bytes.Count(folder, []byte(`{"schema":1,`)))
	}
}

func urlQuery(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "%", "%25"), " ", "%20")
}

func e2eImportRefused(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"limits": map[string]any{"importMaxBytes": 8192}})
	count := func() int {
		var page struct{ Threads []apiThread }
		h.call("GET", "/v1/threads?archived=all", nil, 200, &page)
		return len(page.Threads)
	}
	head := `{"schema":1,"thread":{"id":"th_0123456789","agent":"fake","cwd":"/tmp","title":"imported"}}` + "\n"
	into := "?cwd=" + urlQuery(t.TempDir()) // the folder the user chose
	event := `{"event":{"seq":1,"type":"message_delta","threadId":"th_0123456789","turnId":"","at":"2025-01-01T00:00:00Z","text":"` + strings.Repeat("x", 200) + `"}}` + "\n"

	status, _, body := h.raw("POST", "/v1/threads/import", "application/x-ndjson", strings.NewReader(`{"schema":7,"thread":{"id":"th_0123456789"}}`+"\n"))
	if status != 400 || !bytes.Contains(body, []byte("schema 7")) || !bytes.Contains(body, []byte("schema 1")) || !bytes.Contains(body, []byte("SCHEMA_TOO_NEW")) {
		t.Errorf("newer schema: %d %s", status, body)
	}
	status, _, body = h.raw("POST", "/v1/threads/import"+into, "application/x-ndjson", strings.NewReader(head+event+"{oops\n"))
	if status != 400 || !bytes.Contains(body, []byte(`"line":3`)) {
		t.Errorf("a malformed third line: %d %s", status, body)
	}
	// Over limits.importMaxBytes, streamed (no Content-Length): 413 and
	// the part already stored is gone.
	big := head + strings.Repeat(event, 60) // ~16 KiB
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < len(big); i += 1000 {
			pw.Write([]byte(big[i:min(i+1000, len(big))]))
		}
		pw.Close()
	}()
	status, _, body = h.raw("POST", "/v1/threads/import"+into, "application/x-ndjson", pr)
	if status != 413 || !bytes.Contains(body, []byte("IMPORT_TOO_LARGE")) {
		t.Errorf("an import over the bound: %d %s", status, body)
	}
	if status, _, body := h.raw("POST", "/v1/threads/import", "application/json", strings.NewReader(head)); status != 415 {
		t.Errorf("import as JSON: %d %s", status, body)
	}
	if n := count(); n != 0 {
		t.Errorf("refused imports left %d threads", n)
	}
	// Under the bound it goes through: the 10 MiB body cap is not the
	// import's, and this one is far below both.
	if status, _, body := h.raw("POST", "/v1/threads/import"+into, "application/x-ndjson", strings.NewReader(head+event)); status != 201 {
		t.Errorf("a small import: %d %s", status, body)
	}
}

func e2eArchive(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	cwdA, cwdB := t.TempDir(), t.TempDir()
	a1, a2, b1 := h.newThread("fake", cwdA), h.newThread("fake", cwdA), h.newThread("fakeload", cwdB)
	list := func(q string) map[string]bool {
		var page struct {
			Threads []struct {
				ID       string
				Archived bool
			}
		}
		h.call("GET", "/v1/threads"+q, nil, 200, &page)
		m := map[string]bool{}
		for _, th := range page.Threads {
			m[th.ID] = th.Archived
		}
		return m
	}
	// A running turn's thread archived: the turn goes on, its permission
	// stays pending and can still be decided.
	turn := h.startTurn(b1.ID, "permission")
	p := h.waitPermission(turn.ID, 30*time.Second)
	var got struct {
		Thread struct {
			Archived bool
			Status   string
		}
	}
	h.call("PATCH", "/v1/threads/"+b1.ID, map[string]bool{"archived": true}, 200, &got)
	if !got.Thread.Archived || got.Thread.Status != "running" {
		t.Errorf("PATCH archived: %+v", got.Thread)
	}
	if ps := h.permissions("pending"); len(ps) != 1 || ps[0].ID != p.ID {
		t.Errorf("pending after archiving: %+v", ps)
	}
	h.decide(p.ID, map[string]string{"outcome": "approved"})
	if done := h.waitTurn(b1.ID, turn.ID, 30*time.Second); done.Status != "completed" {
		t.Errorf("the archived thread's turn: %+v", done)
	}
	if l := list(""); len(l) != 2 || l[b1.ID] {
		t.Errorf("default list %v: want a1, a2", l)
	}
	if l := list("?archived=true"); len(l) != 1 || !l[b1.ID] {
		t.Errorf("?archived=true %v: want b1", l)
	}
	var n struct{ Archived int }
	h.call("POST", "/v1/threads/archive", map[string]string{"cwd": cwdA}, 200, &n)
	if n.Archived != 2 {
		t.Errorf("archive cwd A: %+v", n)
	}
	h.call("POST", "/v1/threads/archive", map[string]string{"idleBefore": time.Now().Add(time.Hour).Format(time.RFC3339)}, 200, &n)
	if n.Archived != 0 {
		t.Errorf("archive again: %+v (all were archived)", n)
	}
	if l := list("?archived=all"); len(l) != 3 || !l[a1.ID] || !l[a2.ID] || !l[b1.ID] {
		t.Errorf("?archived=all %v", l)
	}
	h.call("PATCH", "/v1/threads/"+a1.ID, map[string]bool{"archived": false}, 200, nil)
	if l := list(""); len(l) != 1 || l[a1.ID] {
		t.Errorf("after unarchiving a1: %v", l)
	}
	if r := h.do("GET", "/v1/threads?archived=maybe", nil); r.status != 400 {
		t.Errorf("?archived=maybe: %s", r)
	}
	// Archived threads survive a restart as archived (stored, migration 0008).
	h.stop()
	h.start()
	if l := list("?archived=true"); len(l) != 2 || !l[a2.ID] || !l[b1.ID] {
		t.Errorf("after a restart: %v", l)
	}
}

func e2eOpen(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bins.switchboard, append([]string{"open", "--data-dir", h.dataDir}, args...)...)
		cmd.Env = hubEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	out, errText, code := run("--print", th.ID)
	link := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(link, h.url+"/auth?code=") || strings.Contains(out+errText, h.token) {
		t.Fatalf("open --print: %d %q %q", code, out, errText)
	}
	// The link signs a browser in, once, and lands on the thread.
	resp, err := h.client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !sessionSecretRE.Match(page) || !bytes.Contains(page, []byte(strconv.Quote("/#/t/"+th.ID))) {
		t.Errorf("following the link: %d\n%s", resp.StatusCode, page)
	}
	// A link to the thread works as well as its id.
	if out, _, code := run("--print", h.url+"/#/t/"+th.ID); code != 0 || !strings.Contains(out, "/auth?code=") {
		t.Errorf("open with a link: %d %q", code, out)
	}
	if _, errText, code := run("--print", "th_nope"); code == 0 || !strings.Contains(errText, "no thread th_nope") {
		t.Errorf("an unknown thread: %d %q", code, errText)
	}
	if _, errText, code := run(); code == 0 || !strings.Contains(errText, "usage: switchboard open") {
		t.Errorf("no thread: %d %q", code, errText)
	}
	h.stop()
	if _, errText, code := run("--print", th.ID); code == 0 || !strings.Contains(errText, "no hub is running") {
		t.Errorf("no hub: %d %q", code, errText)
	}
}

func e2eBridgeThreadLink(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	r, err := b.conn.NewSession(bridgeCtx(t), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := r.Meta["switchboard"].(map[string]any)
	link, _ := sb["url"].(string)
	if !strings.HasPrefix(link, h.url+"/auth?code=") || sb["threadId"] != string(r.SessionId) {
		t.Fatalf("session/new _meta: %+v", r.Meta)
	}
	// On stderr (the editor's log) too; on stdout only inside the answer:
	// every line there is JSON-RPC.
	if !b.stderr.WaitFor(10*time.Second, link) {
		t.Errorf("the link is not in the bridge's stderr:\n%s", b.stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(b.raw.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("a stdout line that is not JSON-RPC: %q", line)
		}
	}
	// The link opens that thread in a browser.
	resp, err := h.client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte(strconv.Quote("/#/t/"+string(r.SessionId)))) {
		t.Errorf("the bridge's link: %d\n%s", resp.StatusCode, page)
	}
	b.stop()
}
