package hostmirror

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// FileLink is <hosts-dir>/<name>/link.json, the interim way to name a
// host's hub until the hosts registry (issue 30, "the link") makes links
// itself: the URL its hub answers on (a loopback port, or what a tunnel
// forwards there) and the files holding its token and its link secret.
// The files are read at every dial, so a rotated token or a restarted hub
// (a new link secret) is followed; neither is copied anywhere.
type FileLink struct {
	URL            string `json:"url"`
	TokenFile      string `json:"tokenFile"`
	LinkSecretFile string `json:"linkSecretFile"`
}

// AddFileLinks adds to hs every host named by a <dir>/<name>/link.json
// (FileLink); a missing dir adds none. A bad entry is an error naming it
// (the others are added).
func AddFileLinks(hs *Hosts, dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hosts: %w", err)
	}
	var errs []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name(), "link.json")
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		var l FileLink
		if err == nil {
			err = json.Unmarshal(b, &l)
		}
		if err == nil && (l.URL == "" || l.TokenFile == "" || l.LinkSecretFile == "") {
			err = fmt.Errorf("want url, tokenFile and linkSecretFile")
		}
		if err == nil {
			err = hs.Add(e.Name(), l.Dial)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", path, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("hosts: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Dial is the link's Dial: a Client of the hub at l.URL with the token
// and link secret read now; the hub proves it knows the token before any
// request carries it (hub/client's proof), and the health check makes a
// hub that is not there an error here.
func (l FileLink) Dial(ctx context.Context) (*client.Client, error) {
	tok, err := readSecret(l.TokenFile)
	if err != nil {
		return nil, err
	}
	secret, err := readSecret(l.LinkSecretFile)
	if err != nil {
		return nil, err
	}
	c := client.ForHub(client.NewHub(l.URL, tok), client.Options{ClientID: linkCaller.ClientID, All: true, LinkSecret: secret})
	if err := c.Healthz(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func readSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("host link: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", hub.Errorf(hub.CodeInvalidArgument, "host link: %s is empty", path)
	}
	return s, nil
}
