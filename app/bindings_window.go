package app

import "github.com/switchboard-hub/switchboard/hub"

// folderChooser is what the window's Emitter also implements when it can
// open the native folder dialog: the desktop build's wailsEmitter. The
// headless build and tests have none (or a fake).
type folderChooser interface {
	ChooseFolder(title string) (string, error)
}

// ChooseFolder opens the native "choose a folder" dialog, titled title, and
// answers the absolute path of the folder picked, or "" when the user
// cancelled. It is the window's own binding, not a hub.Service operation:
// a browser has no such dialog and types the path instead. Without a
// dialog (a build with no window) it fails with INTERNAL.
func (b *Bindings) ChooseFolder(title string) (string, error) {
	fc, ok := b.emit.(folderChooser)
	if !ok {
		return "", hub.Errorf(hub.CodeInternal, "this window cannot open a folder dialog")
	}
	return fc.ChooseFolder(title)
}
