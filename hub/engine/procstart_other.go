//go:build !linux && !darwin && !windows

package engine

import "time"

// processStartTime cannot tell here: recorded agents are then never killed
// on restart (a reused pid must not be signalled).
func processStartTime(int) time.Time { return time.Time{} }
