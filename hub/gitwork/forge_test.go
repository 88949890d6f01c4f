package gitwork

import "testing"

func TestCompareURL(t *testing.T) {
	for _, c := range []struct{ remote, want string }{
		{"https://github.com/acme/app.git", "https://github.com/acme/app/compare/main...switchboard/fix-1?expand=1"},
		{"git@github.com:acme/app.git", "https://github.com/acme/app/compare/main...switchboard/fix-1?expand=1"},
		{"ssh://git@github.com/acme/app", "https://github.com/acme/app/compare/main...switchboard/fix-1?expand=1"},
		{"https://gitlab.com/group/sub/app.git", "https://gitlab.com/group/sub/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=switchboard%2Ffix-1&merge_request%5Btarget_branch%5D=main"},
		{"git@gitea.example.org:acme/app.git", "https://gitea.example.org/acme/app/compare/main...switchboard/fix-1"},
		{"https://codeberg.org/acme/app", "https://codeberg.org/acme/app/compare/main...switchboard/fix-1"},
		{"https://git.example.org/acme/app.git", ""},
		{"/srv/git/app.git", ""},
		{"file:///srv/git/app.git", ""},
	} {
		if got := CompareURL(c.remote, "main", "switchboard/fix-1"); got != c.want {
			t.Errorf("CompareURL(%q) = %q, want %q", c.remote, got, c.want)
		}
	}
}
