package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

func wantCode(t *testing.T, err error, code int, contains string) {
	t.Helper()
	got, ok := ErrorCode(err)
	if !ok || got != code {
		t.Fatalf("err = %v, want *Error with code %d", err, code)
	}
	if !strings.Contains(err.Error(), contains) {
		t.Fatalf("err = %v, want it to mention %q", err, contains)
	}
}

func TestReadTextFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	const text = "one\ntwo\r\nthree\nfour\nfive"
	os.WriteFile(file, []byte(text), 0o644)
	binary := filepath.Join(dir, "bin")
	os.WriteFile(binary, []byte{0, 0xff, 0xfe, '\n', 0x80}, 0o644)
	long := filepath.Join(dir, "long")
	os.WriteFile(long, []byte(strings.Repeat("x", 200<<10)+"\nshort\n"), 0o644)

	tests := []struct {
		name        string
		path        string
		line, limit *int
		want        string
	}{
		{"whole", file, nil, nil, text},
		{"from line 2", file, intp(2), nil, "two\r\nthree\nfour\nfive"},
		{"line 0 is line 1", file, intp(0), intp(1), "one\n"},
		{"limit 2", file, nil, intp(2), "one\ntwo\r\n"},
		{"line 3 limit 2", file, intp(3), intp(2), "three\nfour\n"},
		{"last line without newline", file, intp(5), intp(10), "five"},
		{"past the end", file, intp(9), nil, ""},
		{"limit 0", file, nil, intp(0), ""},
		{"binary as is", binary, nil, nil, "\x00\xff\xfe\n\x80"},
		{"line longer than the buffer skipped", long, intp(2), intp(1), "short\n"},
		{"line longer than the buffer kept", long, nil, intp(1), strings.Repeat("x", 200<<10) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := LocalFS{}.ReadTextFile(context.Background(), ReadTextFileRequest{SessionID: "s", Path: tt.path, Line: tt.line, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tt.want {
				t.Errorf("Content = %.80q, want %.80q", resp.Content, tt.want)
			}
		})
	}
}

func TestReadTextFileErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("x\n"), 0o644)
	huge := filepath.Join(dir, "huge")
	f, _ := os.Create(huge)
	f.Truncate(MaxReadBytes + 1) // sparse: costs no disk
	f.Close()
	missing := filepath.Join(dir, "missing.txt")

	tests := []struct {
		name     string
		req      ReadTextFileRequest
		code     int
		contains string
	}{
		{"relative", ReadTextFileRequest{Path: "f.txt"}, CodeInvalidParams, "absolute"},
		{"empty", ReadTextFileRequest{}, CodeInvalidParams, "absolute"},
		{"missing", ReadTextFileRequest{Path: missing}, CodeResourceNotFound, missing},
		{"directory", ReadTextFileRequest{Path: dir}, CodeInvalidParams, "directory"},
		{"negative line", ReadTextFileRequest{Path: file, Line: intp(-1)}, CodeInvalidParams, "line"},
		{"negative limit", ReadTextFileRequest{Path: file, Limit: intp(-2)}, CodeInvalidParams, "limit"},
		{"too large", ReadTextFileRequest{Path: huge}, CodeInvalidParams, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LocalFS{}.ReadTextFile(context.Background(), tt.req)
			wantCode(t, err, tt.code, tt.contains)
		})
	}
}

func TestWriteTextFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.sh")
	os.WriteFile(existing, []byte("old content that is longer\n"), 0o700)
	target := filepath.Join(dir, "target.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.txt")
	os.Symlink(target, link)

	tests := []struct {
		name     string
		path     string
		content  string
		check    string // the file whose content and mode are checked
		wantMode os.FileMode
	}{
		{"new file", filepath.Join(dir, "new.txt"), "hello\n", "", 0o644},
		{"missing parents", filepath.Join(dir, "a", "b", "c.txt"), "deep", "", 0o644},
		{"replace keeps mode", existing, "#!/bin/sh\n", "", 0o700},
		{"empty content truncates", existing, "", "", 0o700},
		{"empty new file", filepath.Join(dir, "empty"), "", "", 0o644},
		{"non-UTF-8 bytes", filepath.Join(dir, "raw"), "\xff\x00é", "", 0o644},
		{"through a symlink", link, "via link", target, 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := LocalFS{}.WriteTextFile(context.Background(), WriteTextFileRequest{SessionID: "s", Path: tt.path, Content: tt.content})
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(resp); string(b) != "{}" {
				t.Errorf("response = %s, want {}", b)
			}
			check := tt.path
			if tt.check != "" {
				check = tt.check
			}
			got, err := os.ReadFile(check)
			if err != nil || string(got) != tt.content {
				t.Errorf("content = %q, %v; want %q", got, err, tt.content)
			}
			if fi, _ := os.Stat(check); runtime.GOOS != "windows" && fi.Mode().Perm() != tt.wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.wantMode)
			}
		})
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink replaced: %v %v", fi, err)
	}
	// No temporary file is left behind.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.HasSuffix(p, ".tmp") {
			t.Errorf("leftover temp file %s", p)
		}
		return nil
	})
}

func TestWriteTextFileErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	tests := []struct {
		name     string
		path     string
		code     int
		contains string
	}{
		{"relative", "rel/x.txt", CodeInvalidParams, "absolute"},
		{"directory", dir, CodeInvalidParams, "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LocalFS{}.WriteTextFile(context.Background(), WriteTextFileRequest{Path: tt.path, Content: "x"})
			wantCode(t, err, tt.code, tt.contains)
		})
	}
	// A parent that is a file: a plain (internal) error naming the path.
	path := filepath.Join(blocker, "x.txt")
	_, err := LocalFS{}.WriteTextFile(context.Background(), WriteTextFileRequest{Path: path, Content: "x"})
	if _, isCoded := ErrorCode(err); err == nil || isCoded || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a plain error naming %s", err, path)
	}
}

func TestFSJSON(t *testing.T) {
	var req ReadTextFileRequest
	in := `{"sessionId":"sess","path":"/a","line":3,"limit":5,"_meta":{"k":1}}`
	if err := json.Unmarshal([]byte(in), &req); err != nil {
		t.Fatal(err)
	}
	if req.SessionID != "sess" || req.Path != "/a" || *req.Line != 3 || *req.Limit != 5 || string(req.Meta) != `{"k":1}` {
		t.Fatalf("decoded %+v", req)
	}
	var w WriteTextFileRequest
	json.Unmarshal([]byte(`{"sessionId":"s","path":"/b","content":""}`), &w)
	if w.Path != "/b" || w.Content != "" {
		t.Fatalf("decoded %+v", w)
	}
	b, _ := json.Marshal(ReadTextFileResponse{Content: ""})
	if string(b) != `{"content":""}` {
		t.Fatalf("encoded %s", b)
	}
	b, _ = json.Marshal(ReadTextFileRequest{SessionID: "s", Path: "/p"})
	if string(b) != `{"sessionId":"s","path":"/p"}` {
		t.Fatalf("encoded %s", b)
	}
}

// A whole read past MaxReadBytes (4 MiB) is refused with FILE_TOO_LARGE
// telling the agent to use line and limit; a window of the same file is
// served, streaming past the lines before it (issue 28).
func TestReadTextFileCapAndWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	line := strings.Repeat("y", 99) + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 50_000)), 0o600); err != nil { // 5 MB
		t.Fatal(err)
	}
	_, err := LocalFS{}.ReadTextFile(context.Background(), ReadTextFileRequest{Path: path})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams || !strings.Contains(e.Message, "line and limit") ||
		!strings.Contains(string(e.Data), `"reason":"FILE_TOO_LARGE"`) {
		t.Fatalf("a whole 5 MB read: %v (data %s)", err, dataOf(e))
	}
	start, limit := 45_000, 3
	r, err := LocalFS{}.ReadTextFile(context.Background(), ReadTextFileRequest{Path: path, Line: &start, Limit: &limit})
	if err != nil || r.Content != strings.Repeat(line, 3) {
		t.Fatalf("a window: %q, %v", r.Content, err)
	}
}

func dataOf(e *Error) string {
	if e == nil {
		return ""
	}
	return string(e.Data)
}
