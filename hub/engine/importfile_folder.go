package engine

import (
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// folder is the folder of an imported thread whose file says fileCwd
// (the thread's line is line): the one the user chose for the import
// (im.cwd), else the file's own when checkCwd — the check of
// POST /v1/threads — accepts it and one of the caller's threads (any
// client's for a scope=all caller) is already there. Anything else is
// INVALID_ARGUMENT, reason IMPORT_FOLDER (hub.ImportRequest): a file
// never picks a folder the user did not.
func (im *fileImporter) folder(line int, fileCwd string) (string, error) {
	if im.cwd != "" {
		return im.cwd, nil
	}
	cwd, err := checkCwd(fileCwd)
	if err != nil {
		return "", importFolderError(line, fileCwd, hub.ErrorMessage(err))
	}
	ths, _, err := im.e.store.ListThreads(im.ctx, hub.ThreadFilter{ClientID: im.c.ClientID, All: im.c.All, Cwd: cwd, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(ths) == 0 {
		return "", importFolderError(line, cwd, "no thread of yours is in "+cwd)
	}
	return cwd, nil
}

func importFolderError(line int, cwd, why string) error {
	return &hub.Error{Code: hub.CodeInvalidArgument,
		Message: fmt.Sprintf("import line %d: the file's folder is not one you chose (%s): import again with cwd set to the folder for its threads", line, why),
		Details: map[string]any{"reason": hub.ReasonImportFolder, "line": line, "cwd": cwd}}
}
