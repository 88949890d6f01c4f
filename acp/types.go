package acp

import "encoding/json"

// ProtocolVersion is the only ACP version this client speaks. Asking for
// more makes newer agents answer with v2 shapes.
const ProtocolVersion = 1

// Implementation names a client or an agent. Name and Version are both
// required by the schema: Qwen Code refuses an initialize whose clientInfo
// has no version.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ClientCapabilities is what we advertise in initialize.
type ClientCapabilities struct {
	FS       FileSystemCapabilities `json:"fs"`
	Terminal bool                   `json:"terminal"`
	// Auth says which sign-in methods the client runs: terminal methods
	// (the agent's own command in a terminal the client shows).
	Auth *AuthCapabilities `json:"auth,omitempty"`
	// Elicitation says which elicitation/create modes the client serves
	// (set when the Client is an Elicitor; elicitation.go).
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	// Session says which optional session/update kinds the client renders:
	// notices and compaction (the agent sends them only when advertised).
	Session *ClientSessionCapabilities `json:"session,omitempty"`
	// Subagents and Plan (unstable ACP, {} when set) let the agent send
	// subagent_update and child sessions' traffic (acp/subagent.go), and
	// plan_update / plan_removed.
	Subagents *struct{} `json:"subagents,omitempty"`
	Plan      *struct{} `json:"plan,omitempty"`
	// Meta carries "terminal-auth": true, the older name of the same
	// capability that some agents read.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ClientSessionCapabilities is clientCapabilities.session: a non-nil
// field is supported.
type ClientSessionCapabilities struct {
	Notices    *struct{} `json:"notices,omitempty"`
	Compaction *struct{} `json:"compaction,omitempty"`
	// ConfigOptions.Boolean: the client sets boolean config options
	// (SetBoolConfigOption).
	ConfigOptions *ConfigOptionsCapabilities `json:"configOptions,omitempty"`
}

// ConfigOptionsCapabilities is clientCapabilities.session.configOptions.
type ConfigOptionsCapabilities struct {
	Boolean *struct{} `json:"boolean,omitempty"`
}

// AuthCapabilities is clientCapabilities.auth.
type AuthCapabilities struct {
	Terminal bool `json:"terminal"`
}

// FileSystemCapabilities says which fs/* methods the client serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// InitializeRequest is the params of initialize.
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
}

// InitializeResponse is the agent's answer to initialize. Raw keeps the
// whole answer as sent, for callers that pass capabilities on unchanged.
type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	AuthMethods       []AuthMethod      `json:"authMethods,omitempty"`
	Raw               json.RawMessage   `json:"-"`
}

// AgentCapabilities is what the agent advertised. Unset means unsupported.
type AgentCapabilities struct {
	LoadSession         bool                `json:"loadSession,omitempty"`
	PromptCapabilities  PromptCapabilities  `json:"promptCapabilities"`
	SessionCapabilities SessionCapabilities `json:"sessionCapabilities"`
	MCPCapabilities     json.RawMessage     `json:"mcpCapabilities,omitempty"`
	Auth                AgentAuthCaps       `json:"auth,omitempty"`
}

// AgentAuthCaps is agentCapabilities.auth: Logout non-null when the agent
// serves logout.
type AgentAuthCaps struct {
	Logout json.RawMessage `json:"logout,omitempty"`
}

// PromptCapabilities lists content types beyond text and resource links.
type PromptCapabilities struct {
	Image           bool `json:"image,omitempty"`
	Audio           bool `json:"audio,omitempty"`
	EmbeddedContext bool `json:"embeddedContext,omitempty"`
}

// SessionCapabilities: a non-nil field means the method is supported.
type SessionCapabilities struct {
	List   json.RawMessage `json:"list,omitempty"`
	Resume json.RawMessage `json:"resume,omitempty"`
	Close  json.RawMessage `json:"close,omitempty"`
	Delete json.RawMessage `json:"delete,omitempty"`
	// AdditionalDirectories: session/new, load and resume take
	// additionalDirectories.
	AdditionalDirectories json.RawMessage `json:"additionalDirectories,omitempty"`
	// SystemPrompt (unstable): session/new, load and resume take
	// systemPrompt; its mode.override, in override mode too (sysprompt.go).
	SystemPrompt json.RawMessage `json:"systemPrompt,omitempty"`
}

func advertised(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// AuthMethod is one way the agent can authenticate.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Type is "agent" (or empty: the agent signs in itself on
	// authenticate), "terminal" (the client runs the agent's command with
	// Args and Env in a terminal) or "env_var" (the user provides a key in
	// the variable VarName, or each of Vars).
	Type    string            `json:"type,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	VarName string            `json:"varName,omitempty"`
	Vars    []AuthVar         `json:"vars,omitempty"`
	Link    string            `json:"link,omitempty"`
}

// AuthVar is one variable of an env_var auth method.
type AuthVar struct {
	Name     string `json:"name"`
	Label    string `json:"label,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// Auth method types.
const (
	AuthAgent    = "agent"
	AuthTerminal = "terminal"
	AuthEnvVar   = "env_var"
)

// Kind is m's type, "agent" when the agent gave none.
func (m AuthMethod) Kind() string {
	if m.Type == "" {
		return AuthAgent
	}
	return m.Type
}

// MCPServer is passed through to the agent as given.
type MCPServer = json.RawMessage

// SessionMode is one operating mode an agent offers.
type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SessionModeState is the agent's modes and the current one.
type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// SessionSetup is what session/new, session/load and session/resume return.
// ConfigOptions is kept raw: the hub forwards it unchanged.
type SessionSetup struct {
	SessionID     string            `json:"sessionId,omitempty"`
	Modes         *SessionModeState `json:"modes,omitempty"`
	ConfigOptions json.RawMessage   `json:"configOptions,omitempty"`
}

// SessionInfo is one entry of session/list.
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// ListSessionsResponse is a page of session/list.
type ListSessionsResponse struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// ContentBlock is an ACP content block (text, image, audio, resource,
// resource_link). Fields not used by the block's type stay empty.
type ContentBlock struct {
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	Data        string          `json:"data,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	URI         string          `json:"uri,omitempty"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// MarshalJSON writes the block's fields, leaving out the empty ones, except
// that a text block always has its "text": the schema requires it, and
// agents refuse {"type":"text"} (an empty caption, say) as invalid params.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	type plain ContentBlock // without this method
	if b.Type != "text" || b.Text != "" {
		return json.Marshal(plain(b))
	}
	return json.Marshal(struct {
		plain
		Text string `json:"text"` // shadows plain's omitempty field
	}{plain: plain(b)})
}

// StopReason values an agent ends a turn with.
const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
)

// PermissionOption is one choice the agent offers.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

// Permission option kinds.
const (
	AllowOnce    = "allow_once"
	AllowAlways  = "allow_always"
	RejectOnce   = "reject_once"
	RejectAlways = "reject_always"
)

// RequestPermissionRequest is the params of session/request_permission.
// ToolCall is kept exactly as the agent sent it.
type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  json.RawMessage    `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// OptionOfKind returns the first option of the given kind.
func (r RequestPermissionRequest) OptionOfKind(kind string) (PermissionOption, bool) {
	for _, o := range r.Options {
		if o.Kind == kind {
			return o, true
		}
	}
	return PermissionOption{}, false
}

// PermissionOutcome is the client's answer: Outcome "selected" with an
// OptionID, or "cancelled".
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// RequestPermissionResponse is the result of session/request_permission.
type RequestPermissionResponse struct {
	Outcome PermissionOutcome `json:"outcome"`
}

// Selected answers a permission request with the given option.
func Selected(optionID string) RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: PermissionOutcome{Outcome: "selected", OptionID: optionID}}
}

// Cancelled answers a permission request as cancelled.
func Cancelled() RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: PermissionOutcome{Outcome: "cancelled"}}
}
