//go:build !bindings && !headless

package app

// generatingBindings: see bindings_gen.go.
const generatingBindings = false
