package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// linkChain returns the paths a symlink at path leads through, its final
// target last (symlinked folders along the way resolved), or nil when path
// is not a symlink.
func linkChain(path string) []string {
	var chain []string
	p := path
	for range 40 { // like the kernel's ELOOP limit
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
		chain = append(chain, p)
	}
	if len(chain) > 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil && real != p {
			chain = append(chain, real)
		}
	}
	return chain
}

// resolveConfigLink returns the file a symlinked config path leads to, or
// path itself: writing there keeps the link.
func resolveConfigLink(path string) string {
	if chain := linkChain(path); len(chain) > 0 {
		return chain[len(chain)-1]
	}
	return path
}

// readConfigFile returns the content and permission bits of the config
// file at path; a missing file is empty with mode 0600, and its folder is
// created (0700).
func readConfigFile(path string) ([]byte, os.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, 0, fmt.Errorf("settings: %w", err)
		}
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("settings: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("settings: %w", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		data = nil
	}
	return data, fi.Mode().Perm(), nil
}

// writeFileAtomic replaces the file at path with data, mode perm: a temp
// file in the same folder, written, fsynced and renamed over path, then
// the folder fsynced. A reader sees the old content or the new, never a
// mix; on error path is untouched and the temp file removed.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // best effort: not every OS syncs folders
		d.Close()
	}
	return nil
}
