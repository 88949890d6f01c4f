//go:build bindings

package app

// generatingBindings: this binary is `wails generate module`'s (built with
// the bindings tag), run only to list the bound methods.
const generatingBindings = true
