//go:build !unix && !windows

package engine

func killGroup(int) {}
