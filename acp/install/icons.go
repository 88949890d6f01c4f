package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Agent logos from the ACP registry (its agents' "icon": an image URL).
// The window loads nothing from the network (its CSP), so the hub fetches
// each logo once, when it fetches the registry, keeps it in Dir/icons, and
// lists it as a data: URL (hub.Agent.icon) that the window shows in an
// <img>, where an SVG runs no script and loads nothing.
//
// What is guaranteed: a logo is an http(s) URL's answer of at most
// maxIconBytes that starts as an SVG document or a PNG or WebP image does
// (the server's Content-Type is not trusted); anything else is dropped,
// and a logo that cannot be fetched leaves the agent its monogram. A logo
// is fetched again only when the registry names another URL for it.

// maxIconBytes bounds one logo.
const maxIconBytes = 64 << 10

// iconKeys are the names a registry agent's logo is found by: its npm
// package (how a built-in agent of the same package finds it) and its id.
func iconKeys(a RegistryAgent) []string {
	keys := []string{"id:" + a.ID}
	if d := a.Distribution.NPX; d != nil && d.Package != "" {
		name, _ := splitPackage(d.Package)
		keys = append(keys, "npm:"+name)
	}
	return keys
}

// iconPath is where the logo known by key is kept (a hash: a key holds
// characters a file name must not).
func (in *Installer) iconPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(in.Dir, "icons", hex.EncodeToString(sum[:8]))
}

// FetchIcons fetches the logos of agents the registry names and Dir/icons
// does not hold yet (or holds from another URL). Errors are per logo and
// only returned joined for the log: an agent without its logo keeps its
// monogram.
func (in *Installer) FetchIcons(ctx context.Context, agents []RegistryAgent) error {
	var errs []error
	for _, a := range agents {
		if a.Icon == "" || a.ID == "" {
			continue
		}
		keys := iconKeys(a)
		if src, err := os.ReadFile(in.iconPath(keys[0]) + ".src"); err == nil && string(src) == a.Icon {
			continue
		}
		img, err := fetchIcon(ctx, a.Icon)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		_ = os.MkdirAll(filepath.Join(in.Dir, "icons"), 0o700)
		for _, k := range keys {
			p := in.iconPath(k)
			writeAtomic(p, img)
			writeAtomic(p+".src", []byte(a.Icon))
		}
	}
	in.iconMu.Lock()
	in.icons = nil // read again from Dir/icons
	in.iconMu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("agent logos not fetched: %v", errs)
	}
	return nil
}

// Icon is the logo kept for an agent as a data: URL, looked up by its npm
// package (when it has one) and then its id; "" when none is kept.
func (in *Installer) Icon(id, npmPackage string) string {
	keys := []string{"id:" + id}
	if npmPackage != "" {
		keys = []string{"npm:" + npmPackage, "id:" + id}
	}
	in.iconMu.Lock()
	defer in.iconMu.Unlock()
	if in.icons == nil {
		in.icons = map[string]string{}
	}
	for _, k := range keys {
		u, seen := in.icons[k]
		if !seen {
			u = ""
			if b, err := os.ReadFile(in.iconPath(k)); err == nil {
				if mime := iconType(b); mime != "" {
					u = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
				}
			}
			in.icons[k] = u
		}
		if u != "" {
			return u
		}
	}
	return ""
}

// fetchIcon reads one logo: http(s) only, at most maxIconBytes, an image
// by its bytes.
func fetchIcon(ctx context.Context, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the logo's address %q is not an http(s) URL", raw)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the logo's server answered %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxIconBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxIconBytes {
		return nil, fmt.Errorf("the logo is larger than %d KB", maxIconBytes>>10)
	}
	if iconType(b) == "" {
		return nil, fmt.Errorf("the logo is not an SVG, PNG or WebP image")
	}
	return b, nil
}

// iconType is the MIME type of an image by its first bytes, "" when it is
// not an SVG document, a PNG or a WebP.
func iconType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case len(b) > 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	s := bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for {
		s = bytes.TrimLeft(s, " \t\r\n")
		switch {
		case bytes.HasPrefix(s, []byte("<?xml")), bytes.HasPrefix(s, []byte("<!--")), bytes.HasPrefix(s, []byte("<!DOCTYPE svg")):
			end := []byte("?>")
			if bytes.HasPrefix(s, []byte("<!--")) {
				end = []byte("-->")
			} else if bytes.HasPrefix(s, []byte("<!DOCTYPE")) {
				end = []byte(">")
			}
			i := bytes.Index(s, end)
			if i < 0 {
				return ""
			}
			s = s[i+len(end):]
		case bytes.HasPrefix(s, []byte("<svg")) && len(s) > 4 && (s[4] == ' ' || s[4] == '>' || s[4] == '\n' || s[4] == '\t' || s[4] == '\r'):
			return "image/svg+xml"
		default:
			return ""
		}
	}
}

// writeAtomic writes b to path through a temporary file (0600) and a
// rename: a reader sees the old file or the new one, never half of one.
func writeAtomic(path string, b []byte) {
	tmp := path + "." + randHex()
	if os.WriteFile(tmp, b, 0o600) == nil {
		if os.Rename(tmp, path) != nil {
			_ = os.Remove(tmp)
		}
	}
}
