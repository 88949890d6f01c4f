//go:build headless

package app

import "context"

// runDesktop: a headless build (-tags headless) has no window and links no
// GUI library; it serves the hub only.
func runDesktop(context.Context, *env, Options) error {
	return notBuiltError("the desktop app is not in this build (built with -tags headless): run `switchboard serve`")
}
