//go:build !desktop

package tray

import "context"

func run(context.Context, Options) error { return errNoTray }
