//go:build !linux

package hosts

// watchNetwork: nothing tells of network changes here (netwatch.go).
func watchNetwork(notify func()) {}
