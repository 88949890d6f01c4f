package hub

import "time"

// Remember scopes (Decision.Remember): a remembered decision applies to
// later requests of the same thread, of any thread of the same folder
// (Thread.Cwd), or of any thread of the same agent.
const (
	RememberThread = "thread"
	RememberFolder = "folder"
	RememberAgent  = "agent"
)

// Rule decisions (PermissionRule.Decision). allow picks the request's
// allow_once option, allow_always its allow_always one, deny its
// reject_once one; ask (and any of the others when the request offers no
// option of that kind) leaves the request to a person.
const (
	RuleAllow       = "allow"
	RuleAllowAlways = "allow_always"
	RuleDeny        = "deny"
	RuleAsk         = "ask"
)

// RuleInsideFolder is PermissionRule.Inside's one value: the tool call has
// at least one location and every one, resolved, lies inside the thread's
// folder (its worktree's path for a worktree thread).
const RuleInsideFolder = "folder"

// PermissionRule is one entry of the config file's permissions.rules list.
// Rules are tried in order; the first that matches decides; no match
// means ask. Empty Agents, Folders or Kinds match everything.
type PermissionRule struct {
	Name    string   `json:"name"`
	Agents  []string `json:"agents,omitempty"`  // agent id globs
	Folders []string `json:"folders,omitempty"` // thread folder (cwd) globs, ~ expanded
	Kinds   []string `json:"kinds,omitempty"`   // ACP tool kinds
	// Match is a regular expression over the request's command (the hub's
	// terminal command line, else the tool call's rawInput.command, cmd or
	// argv joined), or its title when it has none.
	Match    string `json:"match,omitempty"`
	Inside   string `json:"inside,omitempty"` // "" or RuleInsideFolder
	Decision string `json:"decision"`
}

// RememberedRule is a decision a person asked the hub to remember
// (Decision.Remember). It lives in the database, not the config file, and
// is tried after every config rule. Decision is RuleAllow or RuleDeny.
type RememberedRule struct {
	ID       string `json:"id"` // "ru_…"
	Scope    string `json:"scope"`
	ThreadID string `json:"threadId,omitempty"` // Scope RememberThread
	Cwd      string `json:"cwd,omitempty"`      // Scope RememberFolder
	Agent    string `json:"agent"`
	Kind     string `json:"kind"`
	Command  string `json:"command,omitempty"` // kind execute: the exact command it matches
	// RunsIn and EnvKey pin a command rule (Command set, kind execute)
	// to exactly one run: the folder the command runs in, and the
	// environment the agent sets (policy.EnvKey: a digest of the names
	// and values in order; "" none). A request run elsewhere, or with
	// another environment, is asked again.
	RunsIn    string    `json:"runsIn,omitempty"`
	EnvKey    string    `json:"envKey,omitempty"`
	Decision  string    `json:"decision"`
	Title     string    `json:"title,omitempty"` // the deciding request's title, to show
	CreatedAt time.Time `json:"createdAt"`
	// CreatedBy is the decidedBy of the decision that made it ("window", …).
	CreatedBy    string `json:"createdBy"`
	PermissionID string `json:"permissionId"` // the request it was made from
	// ClientID, when set, limits the rule to that client's threads: a
	// token holder without scope=all remembers only for its own threads.
	// "" (a surface or a scope=all caller) applies to every client's.
	ClientID string `json:"clientId,omitempty"`
}

// MaxPermissionPage is the most permissions one audit page holds (and
// the page size without PermissionQuery.Limit); MaxBatch the most ids one
// BatchDecision names.
const (
	MaxPermissionPage = 500
	MaxBatch          = 500
)

// DecisionResult answers one decision (POST /v1/permissions/{id}).
type DecisionResult struct {
	Permission Permission `json:"permission"`
	// Rule is the rule a Decision with Remember added.
	Rule *RememberedRule `json:"rule,omitempty"`
	// ShadowedBy names the config rule that matches the same requests
	// first, so the remembered rule will not decide them.
	ShadowedBy string `json:"shadowedBy,omitempty"`
}

// BatchDecision is the body of POST /v1/permissions/decide: the same words
// as one decision, for several pending requests.
type BatchDecision struct {
	IDs      []string `json:"ids"`
	Outcome  string   `json:"outcome"`
	Remember string   `json:"remember,omitempty"`
}

// BatchResult answers a BatchDecision: one entry per id, in the order given.
type BatchResult struct {
	Results []BatchItem `json:"results"`
}

// BatchItem is one id's result: its permission as decided, or why not
// (CONFLICT: already decided; NOT_FOUND: unknown or another client's).
type BatchItem struct {
	ID         string      `json:"id"`
	Permission *Permission `json:"permission,omitempty"`
	Error      *ItemError  `json:"error,omitempty"`
}

// ItemError is one failed item of a batch: an error's code and message.
type ItemError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// PermissionQuery filters GET /v1/permissions (the audit). Empty fields
// match everything; DecidedBy matches a prefix ("rule:" matches every
// config rule). From and To are RFC 3339 times on CreatedAt. Newest first.
type PermissionQuery struct {
	Status    string `json:"status,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"`
	Agent     string `json:"agent,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Limit     int    `json:"limit,omitempty"` // 0: at most 500
	Cursor    string `json:"cursor,omitempty"`
}

// PermissionPage is a page of the audit. NextCursor is set when more follow.
type PermissionPage struct {
	Permissions []Permission `json:"permissions"`
	NextCursor  string       `json:"nextCursor,omitempty"`
}
