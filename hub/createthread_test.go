package hub

import (
	"encoding/json"
	"strings"
	"testing"
)

// A request that gives no extra folders ([]) keeps saying so when it is
// marshalled again (a host's forwarded create, ADR 0051): only an absent
// list lets the folder's configured extra folders apply.
func TestCreateThreadRequestKeepsAnEmptyExtraDirs(t *testing.T) {
	for _, tt := range []struct {
		dirs []string
		want string
	}{{nil, ""}, {[]string{}, `"additionalDirectories":[]`}, {[]string{"/a"}, `"additionalDirectories":["/a"]`}} {
		b, err := json.Marshal(CreateThreadRequest{Agent: "a", Cwd: "/w", AdditionalDirectories: tt.dirs})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "additionalDirectories"); got != (tt.want != "") || !strings.Contains(string(b), tt.want) {
			t.Errorf("%#v marshalled %s, want %q", tt.dirs, b, tt.want)
		}
		var back CreateThreadRequest
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if (back.AdditionalDirectories == nil) != (tt.dirs == nil) {
			t.Errorf("%#v came back as %#v", tt.dirs, back.AdditionalDirectories)
		}
	}
}
