package engine

import (
	"crypto/rand"
	"encoding/hex"
	"sort"

	"github.com/switchboard-hub/switchboard/acp"
)

// newID returns prefix_ followed by 16 random bytes in hex.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("hub: no randomness: " + err.Error())
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}

func sortSpecs(s []acp.AgentSpec) {
	sort.Slice(s, func(i, j int) bool { return s[i].ID < s[j].ID })
}
