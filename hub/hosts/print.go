package hosts

import (
	"fmt"
	"io"

	"github.com/switchboard-hub/switchboard/hub"
)

// Print writes (`switchboard hosts list` and `status`) one line per host (name, state and since, version,
// ssh) and, with detail, its error, fingerprint and note below it.
func Print(w io.Writer, list []hub.Host, detail bool) {
	for _, h := range list {
		v := h.Version
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(w, "%-16s %-16s since %s  %-10s %s\n", h.Name, h.State, h.Since.Local().Format("2006-01-02 15:04:05"), v, h.SSH)
		if !detail {
			continue
		}
		if h.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", h.Error)
		}
		if h.Fingerprint != "" {
			fmt.Fprintf(w, "  key: %s — if it is the host's, trust it: switchboard hosts connect %s --trust %s\n", h.Fingerprint, h.Name, h.Fingerprint)
		}
		if h.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", h.Note)
		}
	}
}
