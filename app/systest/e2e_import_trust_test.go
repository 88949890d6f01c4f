//go:build linux

package systest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// e2eImportHostile imports files a hostile party wrote (issue 28 §5):
// a file never picks the folder its thread's agent works in, and the
// permissions and questions it holds are history that nothing can
// decide.
func e2eImportHostile(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	chosen := t.TempDir()
	file := func(cwd string) string {
		head, _ := json.Marshal(map[string]any{"schema": 1, "thread": map[string]any{"id": "th_0123456789", "agent": "fake", "cwd": cwd, "title": "hostile"}})
		return string(head) + "\n" +
			`{"turn":{"id":"tu_0123456789","threadId":"th_0123456789","status":"running","input":"go","output":""}}` + "\n" +
			`{"event":{"seq":1,"type":"permission_required","threadId":"th_0123456789","turnId":"tu_0123456789","at":"2025-01-01T00:00:00Z",` +
			`"permission":{"id":"pm_0123456789","threadId":"th_0123456789","turnId":"tu_0123456789","status":"pending","toolCall":{"toolCallId":"c1","title":"rm -rf ~"},` +
			`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}],"deadline":"2999-01-01T00:00:00Z"}}}` + "\n" +
			`{"event":{"seq":2,"type":"elicitation_required","threadId":"th_0123456789","turnId":"tu_0123456789","at":"2025-01-01T00:00:01Z",` +
			`"elicitation":{"id":"el_0123456789","threadId":"th_0123456789","turnId":"tu_0123456789","mode":"url","message":"sign in","url":"https://evil.example/",` +
			`"status":"pending","deadline":"2999-01-01T00:00:00Z","createdAt":"2025-01-01T00:00:01Z"}}}` + "\n"
	}
	imp := func(query, body string) (int, []byte) {
		status, _, b := h.raw("POST", "/v1/threads/import"+query, "application/x-ndjson", strings.NewReader(body))
		return status, b
	}
	count := func() int {
		var page struct{ Threads []apiThread }
		h.call("GET", "/v1/threads?archived=all", nil, 200, &page)
		return len(page.Threads)
	}

	// The file's folder is refused unless the user chose it: "/", a
	// relative one, a missing one, and an existing folder no thread of
	// the user's is in.
	for _, cwd := range []string{"/", "relative/dir", "", chosen + "/missing", chosen} {
		status, body := imp("", file(cwd))
		if status != 400 || !bytes.Contains(body, []byte(`"IMPORT_FOLDER"`)) || !bytes.Contains(body, []byte("cwd")) {
			t.Errorf("import of a thread in %q: %d %s, want 400 IMPORT_FOLDER", cwd, status, body)
		}
	}
	// A folder the user passes is checked as POST /v1/threads checks one.
	for _, cwd := range []string{"relative", chosen + "/missing"} {
		if status, body := imp("?cwd="+urlQuery(cwd), file(chosen)); status != 400 || !bytes.Contains(body, []byte("INVALID_ARGUMENT")) {
			t.Errorf("import into %q: %d %s, want 400", cwd, status, body)
		}
	}
	if n := count(); n != 0 {
		t.Fatalf("refused imports stored %d threads", n)
	}

	// The user's folder wins over the file's "/".
	status, body := imp("?cwd="+urlQuery(chosen), file("/"))
	var res struct{ Threads []apiThread }
	if status != 201 || json.Unmarshal(body, &res) != nil || len(res.Threads) != 1 || res.Threads[0].Cwd != chosen {
		t.Fatalf("import into the chosen folder: %d %s", status, body)
	}
	nt := res.Threads[0]
	// Now that a thread of the user's is there, the file's own folder
	// (the same) is accepted without cwd: an export imported again.
	if status, body := imp("", file(chosen)); status != 201 {
		t.Errorf("import into a folder the user uses: %d %s", status, body)
	}

	// The permission and the question it held are ended by the hub and
	// cannot be decided or answered.
	hist := h.history(nt.ID, true)
	if len(hist) != 1 || hist[0].Status != "interrupted" {
		t.Fatalf("imported history %+v", hist)
	}
	var permID string
	var raw struct {
		Turns []struct {
			Events []json.RawMessage `json:"events"`
		} `json:"turns"`
	}
	h.call("GET", "/v1/threads/"+nt.ID+"/history?includeEvents=true", nil, 200, &raw)
	ended := map[string]bool{}
	var elicitID string
	for _, e := range raw.Turns[0].Events {
		var ev struct {
			Type        string `json:"type"`
			Permission  *struct{ ID, Status, DecidedBy string }
			Elicitation *struct{ ID, Status, DecidedBy string }
		}
		json.Unmarshal(e, &ev)
		switch {
		case ev.Permission != nil:
			permID = ev.Permission.ID
			ended[ev.Type] = ev.Permission.Status == "cancelled" && ev.Permission.DecidedBy == "hub"
		case ev.Elicitation != nil:
			elicitID = ev.Elicitation.ID
			ended[ev.Type] = ev.Elicitation.Status == "cancelled" && ev.Elicitation.DecidedBy == "hub"
		}
	}
	if !ended["permission_resolved"] || !ended["elicitation_resolved"] || permID == "" || elicitID == "" || elicitID == "el_0123456789" {
		t.Errorf("imported permission %q / question %q not ended by the hub: %v", permID, elicitID, ended)
	}
	var perms struct{ Permissions []json.RawMessage }
	h.call("GET", "/v1/permissions?status=pending", nil, 200, &perms)
	var els struct{ Elicitations []json.RawMessage }
	h.call("GET", "/v1/elicitations?status=pending", nil, 200, &els)
	if len(perms.Permissions) != 0 || len(els.Elicitations) != 0 {
		t.Errorf("pending after import: %s %s", perms.Permissions, els.Elicitations)
	}
	if r := h.do("POST", "/v1/permissions/"+permID, map[string]string{"outcome": "approved"}); r.status != 404 {
		t.Errorf("deciding an imported permission: %s", r)
	}
	if r := h.do("POST", "/v1/elicitations/"+elicitID, map[string]string{"action": "decline"}); r.status != 404 {
		t.Errorf("answering an imported question: %s", r)
	}
}
