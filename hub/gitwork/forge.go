package gitwork

import (
	"net/url"
	"regexp"
	"strings"
)

// scpLike is git's user@host:path remote form.
var scpLike = regexp.MustCompile(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// CompareURL is the forge's page for opening a pull request of branch
// into base from the remote whose URL is remote: GitHub's and Gitea's
// (Forgejo, Codeberg) compare page, GitLab's new merge request page. The
// forge is told by the remote's host name (github.com, gitlab.*, gitea.*,
// codeberg.org, a host with "github", "gitlab", "gitea" or "forgejo" in
// its name); any other is "" (no button). base "" leaves the forge's
// default branch.
func CompareURL(remote, base, branch string) string {
	host, path := "", ""
	if u, err := url.Parse(remote); err == nil && u.Host != "" && (u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "ssh" || u.Scheme == "git") {
		host, path = u.Hostname(), u.Path
	} else if m := scpLike.FindStringSubmatch(remote); m != nil && !strings.Contains(remote, "://") {
		host, path = m[1], m[2]
	} else {
		return ""
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || strings.Count(path, "/") < 1 {
		return ""
	}
	web := "https://" + host + "/" + path
	h := strings.ToLower(host)
	esc := func(s string) string { // a branch's "/" stays one: the forges read the rest of the path as the branch
		parts := strings.Split(s, "/")
		for i := range parts {
			parts[i] = url.PathEscape(parts[i])
		}
		return strings.Join(parts, "/")
	}
	switch {
	case strings.Contains(h, "gitlab"):
		q := url.Values{"merge_request[source_branch]": {branch}}
		if base != "" {
			q.Set("merge_request[target_branch]", base)
		}
		return web + "/-/merge_requests/new?" + q.Encode()
	case strings.Contains(h, "github"):
		if base == "" {
			return web + "/compare/" + esc(branch) + "?expand=1"
		}
		return web + "/compare/" + esc(base) + "..." + esc(branch) + "?expand=1"
	case strings.Contains(h, "gitea"), strings.Contains(h, "forgejo"), h == "codeberg.org":
		if base == "" {
			return web + "/compare/" + esc(branch)
		}
		return web + "/compare/" + esc(base) + "..." + esc(branch)
	}
	return ""
}
