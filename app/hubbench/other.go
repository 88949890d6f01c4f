//go:build !linux

// Command hubbench measures the hub from outside; it reads /proc and so
// runs on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "hubbench: Linux only (it reads /proc)")
	os.Exit(2)
}
