//go:build !unix

package engine

import "os"

// tryLockFile: no session lock outside unix (XDG_RUNTIME_DIR is a unix
// convention); always succeeds.
func tryLockFile(f *os.File) error { return nil }
