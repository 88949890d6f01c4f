//go:build !headless

package app

import (
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// SaveFile asks where to save a file (Bindings.SaveExport); "" when the
// user cancelled.
func (e wailsEmitter) SaveFile(title, defaultName string) (string, error) {
	ctx := e.w.ctx()
	if ctx == nil {
		return "", hub.Errorf(hub.CodeInternal, "the window is not open yet")
	}
	p, err := wailsruntime.SaveFileDialog(ctx, wailsruntime.SaveDialogOptions{Title: title, DefaultFilename: defaultName, CanCreateDirectories: true})
	if err != nil {
		return "", fmt.Errorf("save dialog: %w", err)
	}
	return p, nil
}

// OpenURL opens url in the user's browser (Bindings.OpenInBrowser) as
// `switchboard open` does (openBrowser: xdg-open on Linux), so that a
// browser that cannot be started is an error the window shows, where
// Wails' BrowserOpenURL only logs it.
func (e wailsEmitter) OpenURL(url string) error { return openBrowser(url) }

// ChooseFolder opens Wails' native directory dialog on the window (see
// Bindings.ChooseFolder); "" when the user cancelled.
func (e wailsEmitter) ChooseFolder(title string) (string, error) {
	ctx := e.w.ctx()
	if ctx == nil {
		return "", hub.Errorf(hub.CodeInternal, "the window is not open yet")
	}
	dir, err := wailsruntime.OpenDirectoryDialog(ctx, wailsruntime.OpenDialogOptions{
		Title:                title,
		CanCreateDirectories: true,
	})
	if err != nil {
		return "", fmt.Errorf("folder dialog: %w", err)
	}
	return dir, nil
}
