//go:build !headless && !production && !dev && !bindings

package app

// wailsBuilt: without the production, dev or bindings tag Wails compiles a
// stub whose Run always fails; go test and go vet use it and need no GTK.
const wailsBuilt = false
