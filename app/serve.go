package app

import "context"

// serve runs the hub headless until ctx is done: it will open the store,
// start the engine and serve hub/httpapi on o.Listen. The desktop app runs
// the same hub behind its window.
//
// TODO(hub): replace this placeholder with the real wiring.
func serve(_ context.Context, _ *env, _ Options) error {
	return errHubNotBuilt
}

// bridge runs the editor bridge until ctx is done or stdin closes: an ACP
// agent on stdio that relays to the hub found through <data-dir>/hub.json.
//
// TODO(bridge): replace this placeholder once the hub serves its API.
func bridge(_ context.Context, _ *env, _ Options) error {
	return errHubNotBuilt
}

// errHubNotBuilt is what serve and acp answer until the hub exists.
const errHubNotBuilt = notBuiltError("the hub engine is not built yet")
