package hub

import "context"

// AgentAuth signs agents in (POST /v1/agents/{id}/auth): Services.AgentAuth.
// hub/agentsetup implements it; nil in a hub without one (its routes
// answer 404).
type AgentAuth interface {
	// SignIn runs the agent's sign-in method methodID: an agent method
	// runs ACP authenticate and answers once it succeeded (AuthSessionID
	// ""); a terminal method starts the agent's own command with the
	// method's args and env in a terminal (a PTY) in the hub and answers
	// its AuthSessionID at once. INVALID_ARGUMENT for an unknown agent or
	// method (or an env_var method: the client stores the key in the
	// agent's env through the settings).
	SignIn(ctx context.Context, agentID, methodID string) (SignInResult, error)
	// WatchAuth streams a sign-in terminal (the API calls it an auth session): first everything it printed so
	// far, then live output, then its exit; the channel closes after the
	// exit frame or when ctx ends. NOT_FOUND for an unknown session.
	WatchAuth(ctx context.Context, id string) (<-chan AuthFrame, error)
	// AuthInput types data into the session's terminal.
	AuthInput(ctx context.Context, id, data string) error
	// AuthResize sets the terminal's size.
	AuthResize(ctx context.Context, id string, cols, rows int) error
	// CloseAuth kills the session's program and forgets it.
	CloseAuth(ctx context.Context, id string) error
	// SignOut signs the agent out with ACP logout (POST
	// /v1/agents/{id}/logout): its threads' next turns find it signed out
	// and ask to sign in. NOT_FOUND for an unknown agent; CONFLICT with
	// details.reason LOGOUT_UNSUPPORTED when it does not advertise
	// agentCapabilities.auth.logout.
	SignOut(ctx context.Context, agentID string) error
}

// ReasonAuthRequired is details.reason of a turn that failed because its
// agent needs signing in (its `error` event carries it with `agent`, the
// agent's id): the client offers "Sign in to <agent>", and the turn is
// retried once the sign-in succeeds (hub/engine/authretry.go).
const ReasonAuthRequired = "AUTH_REQUIRED"

// ReasonLogoutUnsupported is details.reason of a 409 sign-out of an agent
// that does not advertise agentCapabilities.auth.logout.
const ReasonLogoutUnsupported = "LOGOUT_UNSUPPORTED"

// ReasonRateLimited is details.reason of a turn that failed because the
// agent's provider refused it until a reset time: its `error` event
// carries limitedUntil (RFC 3339), and Thread.LimitedUntil is set.
const ReasonRateLimited = "RATE_LIMITED"

// SignInResult is the answer of POST /v1/agents/{id}/auth.
type SignInResult struct {
	// AuthSessionID names the sign-in terminal of a terminal method; "" for
	// an agent method, which has then succeeded.
	AuthSessionID string `json:"authSessionId,omitempty"`
}

// AuthFrame is one message of a sign-in terminal's stream: Output (text the
// program printed) or, last, Exit (its exit code; 0: signed in, and the
// agent's idle processes were restarted).
type AuthFrame struct {
	Output string `json:"output,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
}
