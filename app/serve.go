package app

import "context"

// bridge runs the editor bridge until ctx is done or stdin closes: an ACP
// agent on stdio that relays to the hub found through <data-dir>/hub.json.
//
// TODO(bridge): replace this placeholder once the hub serves its API.
func bridge(_ context.Context, _ *env, _ Options) error {
	return errHubNotBuilt
}

// errHubNotBuilt is what acp answers until the editor bridge exists.
const errHubNotBuilt = notBuiltError("the editor bridge is not built yet")
