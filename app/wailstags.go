//go:build !headless && (production || dev || bindings)

package app

// wailsBuilt: Wails was built for real: a window (production, dev) or the
// binding generator of `wails generate module` (bindings).
const wailsBuilt = true
