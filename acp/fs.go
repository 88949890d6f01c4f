package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// MaxReadBytes caps the content one fs/read_text_file returns (issue 28:
// every answer is held in memory until the agent reads it). Past it the
// agent gets CodeInvalidParams with data {"reason":"FILE_TOO_LARGE",
// "maxBytes":…}, telling it to read by line and limit. A window (line,
// limit) is read by streaming the file, never whole.
const MaxReadBytes = 4 << 20

// ReadTextFileRequest is the params of fs/read_text_file.
type ReadTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	// Line is the 1-based line to start at; nil (or 0) means 1.
	Line *int `json:"line,omitempty"`
	// Limit is the maximum number of lines to return; nil means all.
	Limit *int            `json:"limit,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// ReadTextFileResponse is the result of fs/read_text_file.
type ReadTextFileResponse struct {
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileRequest is the params of fs/write_text_file.
type WriteTextFileRequest struct {
	SessionID string          `json:"sessionId"`
	Path      string          `json:"path"`
	Content   string          `json:"content"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileResponse is the result of fs/write_text_file; it serialises
// as {}.
type WriteTextFileResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// LocalFS serves the ACP fs methods from the local file system, with the
// hub's permissions. It has no state; the zero value is ready.
//
// Errors a caller (the agent) can fix are *Error: CodeInvalidParams for a
// relative path, a directory or a bad line/limit, CodeResourceNotFound for a
// missing file. Anything else (permissions, I/O) is a plain error.
type LocalFS struct{}

// ReadTextFile returns the file's content, or Limit lines of it starting at
// Line. Lines keep their terminators ("\n" or "\r\n"); a Line past the end
// gives "". Bytes are returned as they are, valid UTF-8 or not. A read
// returning more than MaxReadBytes fails. A done ctx stops it with ctx's
// error (wrapped).
func (LocalFS) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error) {
	if err := checkPath(req.Path); err != nil {
		return ReadTextFileResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return ReadTextFileResponse{}, fmt.Errorf("acp: read %s: %w", req.Path, err)
	}
	start, limit := 1, -1
	if req.Line != nil {
		if *req.Line < 0 {
			return ReadTextFileResponse{}, NewError(CodeInvalidParams, "line must not be negative: %d", *req.Line)
		}
		start = max(*req.Line, 1)
	}
	if req.Limit != nil {
		if *req.Limit < 0 {
			return ReadTextFileResponse{}, NewError(CodeInvalidParams, "limit must not be negative: %d", *req.Limit)
		}
		limit = *req.Limit
	}
	fi, err := os.Stat(req.Path)
	if err != nil {
		return ReadTextFileResponse{}, fsError("read", req.Path, err)
	}
	switch {
	case fi.IsDir():
		return ReadTextFileResponse{}, NewError(CodeInvalidParams, "is a directory: %s", req.Path)
	case fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		// Opening a FIFO would block until someone writes to it.
		return ReadTextFileResponse{}, NewError(CodeInvalidParams, "not a regular file: %s", req.Path)
	}
	f, err := os.Open(req.Path)
	if err != nil {
		return ReadTextFileResponse{}, fsError("read", req.Path, err)
	}
	defer f.Close()
	if start == 1 && limit < 0 && fi.Size() > MaxReadBytes {
		return ReadTextFileResponse{}, tooLarge(req.Path)
	}
	content, err := readLines(ctx, f, start, limit)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return ReadTextFileResponse{}, tooLarge(req.Path)
		}
		return ReadTextFileResponse{}, fsError("read", req.Path, err)
	}
	return ReadTextFileResponse{Content: string(content)}, nil
}

var errTooLarge = errors.New("content too large")

func tooLarge(path string) error {
	e := NewError(CodeInvalidParams, "file too large to read at once (over %d MiB): %s; read it by lines with line and limit", MaxReadBytes>>20, path)
	e.Data = json.RawMessage(`{"reason":"FILE_TOO_LARGE","maxBytes":` + strconv.Itoa(MaxReadBytes) + `}`)
	return e
}

// readLines returns limit lines (all when limit < 0) of r from the 1-based
// line start, up to MaxReadBytes.
func readLines(ctx context.Context, r io.Reader, start, limit int) ([]byte, error) {
	if limit == 0 {
		return nil, nil
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var out []byte
	for line := 1; ; {
		chunk, err := br.ReadSlice('\n')
		if line >= start {
			if len(out)+len(chunk) > MaxReadBytes {
				return nil, errTooLarge
			}
			out = append(out, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue // the same line goes on
		case errors.Is(err, io.EOF):
			return out, nil
		case err != nil:
			return nil, err
		}
		line++
		if limit > 0 && line >= start+limit {
			return out, nil
		}
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
}

// WriteTextFile replaces the file's content with req.Content (which may be
// empty), atomically: readers see the old file or the new one, never a mix.
// Missing parent directories are created (0755). An existing file keeps its
// permission bits, a new one gets 0644; when the path is a symlink, its
// target is written and the link kept. The new file is a new inode: hard
// links to the old one and its owner (when the hub's user differs) are not
// preserved.
func (LocalFS) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error) {
	if err := checkPath(req.Path); err != nil {
		return WriteTextFileResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return WriteTextFileResponse{}, fmt.Errorf("acp: write %s: %w", req.Path, err)
	}
	path, mode := req.Path, fs.FileMode(0o644)
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return WriteTextFileResponse{}, NewError(CodeInvalidParams, "is a directory: %s", req.Path)
		}
		mode = fi.Mode().Perm()
	}
	if err := writeAtomic(path, []byte(req.Content), mode); err != nil {
		return WriteTextFileResponse{}, fsError("write", req.Path, err)
	}
	return WriteTextFileResponse{}, nil
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, then syncs the directory.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Make the rename durable; not every platform can sync a directory.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

func checkPath(path string) error {
	if path == "" || !filepath.IsAbs(path) {
		return NewError(CodeInvalidParams, "path must be absolute: %q", path)
	}
	return nil
}

// fsError maps a missing file to CodeResourceNotFound and wraps the rest.
func fsError(op, path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return NewError(CodeResourceNotFound, "file not found: %s", path)
	}
	return fmt.Errorf("acp: %s %s: %w", op, path, err)
}
