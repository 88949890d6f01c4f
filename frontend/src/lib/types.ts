// Resources of the hub's API, as docs/openapi.yaml describes them (its
// components.schemas). Written by hand, held to the spec by
// hub/httpapi's TestOpenAPIMatchesTypeScript: an interface named as a
// schema has exactly its fields (docs/DECISIONS.md 0031). Fields the hub
// may add later are tolerated: every object is read, never validated.

export type AgentStatus = 'available' | 'unavailable';
export interface Agent {
  id: string;
  name: string;
  status: AgentStatus;
  command: string;
  version?: string;
  capabilities?: Record<string, unknown>;
  /** Why the hub's last probe of it failed (a sentence, and the end of its stderr); absent once it answered. */
  probeError?: { message: string; stderr?: string };
  reason?: string;
  /** How to install it (a command, or where to get it), for catalogue agents. */
  install?: string;
  /** The npm package it installs from (Settings → Agents → Install), when it does. */
  npm?: { package: string; version: string; minNode?: number };
  /** What the hub installed into its data dir; the agent's command resolves there first. */
  installed?: { version: string; path: string };
  /** The registry's newer latest version, when there is one. */
  update?: string;
  /** The sign-in methods of its last initialize answer, raw. */
  authMethods?: unknown[];
  /** The MCP servers the config gives it, with why one is skipped. */
  mcpServers?: { name: string; transport: string; skipped?: string }[];
  /** The session defaults in force: the catalogue's own with agents.<id>.defaults over them. */
  defaults?: SessionDefaults;
  /** The registry's logo as a data: URL; absent: a monogram. */
  icon?: string;
}

/** The Node runtime installed agents run with (GET /v1/agents' node). */
export interface NodeStatus {
  path?: string;
  version?: string;
  major?: number;
  own?: boolean;
  required?: number;
  ok: boolean;
}

/** An agent_install event's payload: an install's progress or end. */
export interface AgentInstallProgress {
  agent: string;
  phase: 'queued' | 'resolving' | 'downloading' | 'verifying' | 'done' | 'failed' | 'removed' | string;
  fraction: number;
  version?: string;
  error?: string;
  reason?: string;
}

/** A worktree thread's worktree (docs/API.md "Worktrees, changes and checkpoints"). */
export interface Worktree {
  path: string;
  branch: string;
  /** The branch it was made from; "" for a detached HEAD. */
  base: string;
  baseCommit: string;
  top: string;
  repo: string;
  /** Commits of branch not in base / of base not in branch (computed: thread reads, and the thread_updated the hub emits when they change). */
  ahead?: number;
  behind?: number;
  /** Uncommitted files in the worktree (issue 31; computed, as ahead). */
  dirty?: number;
  /** The branch has commits, all of them in base (issue 31; computed, as ahead). */
  merged?: boolean;
  /** The thread started in an existing worktree it shares: deleting it leaves the worktree (issue 31). */
  adopted?: boolean;
  /** The forge's page to open a pull request, once pushed to a GitHub, GitLab or Gitea remote (issue 31). */
  pullRequestUrl?: string;
  /** The folder's worktreeSetup, run before the agent starts (issue 31). */
  setup?: WorktreeSetup;
  discarded?: boolean;
}

/** A new worktree's setup commands and how they went (issue 31; docs/API.md "Land the work"). */
export interface WorktreeSetup {
  commands: string[];
  status: 'running' | 'done' | 'failed' | 'cancelled';
  /** The commands' output, each after a "$ <command>" line; its last 64 KiB. */
  output: string;
  exitCode?: number;
}

/** The ACP clientCapabilities of the editor behind a thread (extension): what is true is delegated to the thread's owner. */
export interface ClientCapabilities {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
}

export type ThreadStatus = 'idle' | 'running' | 'closed';
export interface Thread {
  id: string;
  agent: string;
  cwd: string;
  title: string;
  clientId: string;
  status: ThreadStatus;
  /** The host the thread runs on (its id is `<id>@<host>`); absent on this machine. */
  host?: string;
  createdAt: string;
  updatedAt: string;
  /** The agent session's ACP SessionModeState, as the agent last reported it. */
  modes?: SessionModeState;
  /** The agent session's ACP config options (the model, …), raw. */
  configOptions?: ConfigOption[];
  /** The agent's slash commands as it last reported them (kept by the hub). */
  availableCommands?: AvailableCommand[];
  /** A worktree thread's worktree: its agent runs in worktree.path (lib/work.ts). */
  worktree?: Worktree;
  /** Hidden from the thread list unless asked for; its status is unchanged (issue 21). */
  archived?: boolean;
  /** The summary of the thread's last compaction, and when it was. */
  summary?: string;
  compactedAt?: string;
  /** When the agent's provider accepts requests again (RFC 3339), after a rate limit it reported (issue 32). */
  limitedUntil?: string;
  /** How many prompts wait in the thread's queue (issue 33); absent when none. */
  queued?: number;
  /** Why the queue waits for the user (issue 33): nothing is sent until "Send next" (POST …/queue/next). */
  queuePaused?: QueuePaused;
  /** Made from the agent's own session (issue 16): history "stored" (replayed here) or "agent" (kept by the agent). */
  imported?: { sessionId: string; history: 'stored' | 'agent' };
  /** The editor's clientCapabilities the thread was made with (the editor bridge's threads). */
  clientCapabilities?: ClientCapabilities;
  /** The thread's extra folders (issue 32): its agent may use them as it uses cwd. */
  additionalDirectories?: string[];
  /** The client system prompt its agent sessions are opened with (issue 32, ADR 0050); absent when none. */
  instructions?: ThreadInstructions;
  /** Files this thread changed that another live thread of the repository changed too (issue 31); absent when none. */
  overlaps?: Overlap[];
}

/**
 * One file two live threads of a repository both changed (Thread.overlaps, issue 31).
 * conflict: for threads in different checkouts, whether merging their latest
 * turn-end snapshots conflicts in path; absent for two threads in the same checkout.
 */
export interface Overlap {
  path: string;
  threadId: string;
  conflict?: boolean;
}
export interface SessionMode {
  id: string;
  name: string;
  description?: string | null;
}
export interface SessionModeState {
  currentModeId: string;
  availableModes: SessionMode[];
}
/** One value of a select config option. */
export interface ConfigOptionValue {
  value: string;
  name: string;
  description?: string | null;
}
/** A named group of values (ACP allows grouped select options). */
export interface ConfigOptionGroup {
  group: string;
  name: string;
  options: ConfigOptionValue[];
}
/** An ACP SessionConfigOption; only type "select" is shown today. */
export interface ConfigOption {
  id: string;
  name: string;
  description?: string | null;
  category?: string | null;
  type: 'select' | 'boolean' | string;
  /** A select option's value id; a boolean option's true or false. */
  currentValue?: string | boolean;
  options?: (ConfigOptionValue | ConfigOptionGroup)[];
  [key: string]: unknown;
}
/** GET /v1/threads?archived=: "false" (the default) hides archived threads, "true" shows only them, "all" both. */
export type ArchivedFilter = 'false' | 'true' | 'all';
/** POST /v1/threads/archive: the caller's threads matching every field given. */
export interface ArchiveRequest {
  cwd?: string;
  agent?: string;
  idleBefore?: string;
}
/** GET /v1/threads/{id}/export, or a folder's threads (cwd). */
export interface ExportRequest {
  threadId?: string;
  cwd?: string;
  format: 'md' | 'jsonl';
}
/** POST /v1/threads/import's answer. */
export interface ImportResult {
  threads: Thread[];
  turns: number;
  events: number;
}
export interface ThreadPage {
  threads: Thread[];
  nextCursor?: string;
}

export type TurnStatus = 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';
export interface Turn {
  id: string;
  threadId: string;
  status: TurnStatus;
  input: string;
  output: string;
  /** In a turn_completed event, an output over 64 KiB is its first 64 KiB:
   * outputTruncated is set and outputBytes is the whole size (the history has it whole). */
  outputBytes?: number;
  outputTruncated?: boolean;
  stopReason?: string;
  error?: string;
  startedAt: string;
  endedAt?: string;
  content?: unknown[];
  internal?: boolean;
}
export interface TurnHistory extends Turn {
  events?: HubEvent[];
}
/** A page of a thread's history (GET …/history?limit&cursor), oldest first. */
export interface HistoryQuery {
  includeEvents?: boolean;
  includeInternal?: boolean;
  /** Turns per page; 0 or absent: the hub's default (50). */
  limit?: number;
  /** A previous page's nextCursor; absent for the first page. */
  cursor?: string;
}
export interface HistoryPage {
  turns: TurnHistory[];
  /** Set while more turns follow. */
  nextCursor?: string;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: string;
}
export type PermissionStatus = 'pending' | 'approved' | 'declined' | 'cancelled' | 'expired';
export interface Permission {
  id: string;
  threadId: string;
  turnId: string;
  status: PermissionStatus;
  /** The host whose agent asks (its id is `<id>@<host>`); absent on this machine. */
  host?: string;
  /**
   * Who raised it and about what (hub/permission_request.go); absent in
   * permissions stored before the hub described requests.
   */
  kind?: PermissionKind;
  /**
   * The hub's own description of what an approval allows: what every
   * surface shows first. Absent in permissions stored before it existed
   * (then the tool call is all there is).
   */
  request?: PermissionRequest;
  /** The agent's own account of the call: its title is the agent's words, never what runs. */
  toolCall: ToolCall;
  options: PermissionOption[];
  deadline: string;
  decidedBy?: string;
  optionId?: string;
  decidedAt?: string;
  createdAt?: string;
  /** The id of the thread's agent (for the inbox and the audit). */
  agent?: string;
  /** When the request, still pending after permissions.escalateAfter, was escalated. */
  escalatedAt?: string;
}

/** Who raised a permission (Permission.kind). */
export type PermissionKind = 'agent' | 'terminal' | 'file' | 'git' | 'budget';

/** What a PermissionRequest's card must point out (PermissionRequest.flags). */
export type PermissionFlag =
  | 'shell'
  | 'conflicting_command'
  | 'title_differs'
  | 'malformed'
  | 'dot_dot'
  | 'outside_folder'
  | 'git_settings'
  | 'env_changes_program'
  | 'overlap';

/**
 * The hub's description of what a permission allows (hub.PermissionRequest):
 * paths and cwd resolved, argv the program and arguments as they run.
 */
export interface PermissionRequest {
  /** The tool call's ACP kind (read, edit, execute, …). */
  kind?: string;
  /** The agent's title: its words, shown as such. */
  title?: string;
  /** The command line as the agent wrote it. */
  command?: string;
  /** What runs; with the shell flag, ["/bin/sh", "-c", command]. */
  argv?: string[];
  /** The folder the command runs in. */
  cwd?: string;
  /** The environment the agent sets, in order; a value only for variables that change what runs. */
  env?: EnvVar[];
  /** The files the request touches. */
  paths?: string[];
  /** Sorted; unknown ones may come from a newer hub. */
  flags?: (PermissionFlag | string)[];
  /** A budget permission's amounts. */
  budget?: BudgetDetails;

  /** The agent's sub-agent session that asked (issue 32). */
  subagent?: SubagentRef;
}

/** A sub-agent session of the thread's agent (hub.SubagentRef). */
export interface SubagentRef {
  sessionId: string;
  title?: string;
}

/** One variable an agent sets for a command (hub.EnvVar). */
export interface EnvVar {
  name: string;
  value?: string;
  hidden?: boolean;
}

/** An ACP tool call (or the fields of an update to one), as the agent sent it. */
export interface ToolCall {
  toolCallId: string;
  title?: string;
  /** The tool's own name ("Bash"), where title says what it does (ACP ToolCall.name). */
  name?: string | null;
  kind?: string;
  status?: string;
  content?: ToolCallContent[] | null;
  locations?: { path: string; line?: number | null }[] | null;
  rawInput?: unknown;
  rawOutput?: unknown;
  [key: string]: unknown;
}
export type ToolCallContent =
  | { type: 'content'; content: { type: string; text?: string; [k: string]: unknown } }
  | { type: 'diff'; path: string; oldText?: string | null; newText: string }
  | { type: 'terminal'; terminalId: string }
  | { type: string; [k: string]: unknown };

/** How a terminal's command ended (ACP): exactly one of the two is non-null. */
export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/**
 * The payload of a `terminal_output` event (extension): what a command run
 * in a terminal the hub hosts printed since the previous such event. The
 * last one of a terminal has `exitStatus`; `dropped` says the hub stopped
 * streaming it (1 MiB).
 */
export interface TerminalOutputPayload {
  terminalId: string;
  text: string;
  exitStatus?: TerminalExitStatus;
  dropped?: boolean;
}

export interface PlanEntry {
  content: string;
  priority?: string;
  status: 'pending' | 'in_progress' | 'completed' | string;
}

/** One stored event: {seq,type,threadId,turnId,at} plus its type's payload. */
export interface HubEvent {
  seq: number;
  type: string;
  threadId: string;
  turnId: string;
  at: string;
  [key: string]: unknown;
}

export interface CreateThreadRequest {
  agent: string;
  cwd: string;
  title?: string;
  /** The host to run the thread on; none or "local": this machine. */
  host?: string;
  /** Run the agent in a new git worktree of the folder's repository; or start on an existing branch or worktree (issue 31). */
  worktree?: boolean | { branch: string } | { path: string };
  /** Start the agent and open its session before answering (the thread then carries its modes and configOptions). */
  openSession?: boolean;
  /** The editor's clientCapabilities: what is true is delegated to the thread's owner. */
  clientCapabilities?: ClientCapabilities;
  /** MCP servers for the thread's agent sessions, in ACP's session/new shape; kept in memory only. */
  mcpServers?: Record<string, unknown>[];
  /** Extra folders the agent may use besides cwd (absolute, existing; at most 16). */
  additionalDirectories?: string[];
}
export type TurnInput = { input: string } | { content: unknown[] };

// ---- Queued prompts (issue 33, docs/API.md "Queued prompts") ----
export type QueuePaused = 'cancelled' | 'failed' | 'limited';
/** A prompt in a thread's queue: position 0 is the next one sent. */
export interface QueuedPrompt {
  id: string;
  threadId: string;
  position: number;
  input?: string;
  content?: unknown[];
  createdAt: string;
  updatedAt: string;
}
export interface QueuedAnswer {
  queued: QueuedPrompt;
}
export interface QueueAnswer {
  queue: QueuedPrompt[];
}
/** PATCH …/queue/{qid}: at least one field. */
export interface QueueEdit {
  input?: string;
  position?: number;
}
/** Where a remembered decision applies: later requests of this thread, of its folder (cwd), or of its agent. */
export type RememberScope = 'thread' | 'folder' | 'agent';
export type Outcome = 'approved' | 'declined';
export type Decision = ({ outcome: Outcome } | { optionId: string }) & { remember?: RememberScope };

/** ACP tool kinds, as rules name them. */
export const toolKinds = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'] as const;
export type RuleDecision = 'allow' | 'allow_always' | 'deny' | 'ask';

/** One entry of the config file's permissions.rules (first match wins). Empty lists match everything. */
export interface PermissionRule {
  name: string;
  agents?: string[];
  folders?: string[];
  kinds?: string[];
  /** A regular expression (Go syntax) over the request's command, else its title. */
  match?: string;
  /** "folder": every location (at least one) lies inside the thread's folder. */
  inside?: '' | 'folder';
  decision: RuleDecision;
}

/** A decision a person asked the hub to remember (GET /v1/rules). */
export interface RememberedRule {
  id: string;
  scope: RememberScope;
  threadId?: string;
  cwd?: string;
  agent: string;
  kind: string;
  /** Kind execute: the exact command it matches. */
  command?: string;
  /** Kind execute: the folder the command must run in. */
  runsIn?: string;
  /** Kind execute: a digest of the environment the agent sets (unset: none). */
  envKey?: string;
  decision: 'allow' | 'deny';
  /** The deciding request's title. */
  title?: string;
  createdAt: string;
  /** The decidedBy of the decision that made it. */
  createdBy: string;
  permissionId: string;
  /** Set: it applies only to this client's threads. */
  clientId?: string;
}

/** The answer to one decision: the permission, the rule remembered, and the config rule that shadows it. */
export interface DecisionResult {
  permission: Permission;
  rule?: RememberedRule;
  shadowedBy?: string;
}

/** POST /v1/permissions/decide. */
export interface BatchDecision {
  ids: string[];
  outcome: Outcome;
  remember?: RememberScope;
}
/** One id's result: its permission as decided, or why not (CONFLICT: already decided; NOT_FOUND). */
export interface BatchItem {
  id: string;
  permission?: Permission;
  error?: { code: string; message: string };
}
export interface BatchResult {
  results: BatchItem[];
}

/** GET /v1/permissions filters (the audit); empty fields match everything. */
export interface PermissionQuery {
  status?: PermissionStatus | '';
  /** A prefix: "rule:" matches every config rule. */
  decidedBy?: string;
  agent?: string;
  threadId?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}
export interface PermissionPage {
  permissions: Permission[];
  nextCursor?: string;
}

/** An ACP AvailableCommand, from an `available_commands` event. */
export interface AvailableCommand {
  name: string;
  description?: string;
  input?: { hint?: string } | null;
  [key: string]: unknown;
}

/**
 * The payload of a `usage` event: the agent's ACP `usage_update`, raw.
 * `used`/`size` are the context window (tokens), `cost` what the session
 * has cost so far; some agents report token counts instead.
 */
export interface Usage {
  used?: number;
  size?: number;
  cost?: { amount: number; currency: string } | null;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
  [key: string]: unknown;
}

/** ACP promptCapabilities: which content blocks the agent accepts beyond text and resource_link. */
export interface PromptCapabilities {
  image?: boolean;
  audio?: boolean;
  embeddedContext?: boolean;
}

/** ui.theme: light, dark, or follow the OS. */
export type Theme = 'light' | 'dark' | 'system';

/** One entry of the config file's agents: map (GET /v1/settings). Env values are never sent: only their names. */
export interface AgentSettings {
  id: string;
  name?: string;
  command?: string;
  args?: string[];
  envKeys?: string[];
  enabled?: boolean;
  /** The id is a built-in agent's: the entry changes it. Else a custom agent. */
  builtin: boolean;
  /** agents.<id>.mcpServers (values left out). */
  mcpServers?: MCPServerSetting[];
  defaults?: SessionDefaults;
  /** agents.<id>.instructions (issue 32). */
  instructions?: Instructions;
}

/**
 * agents.<id>.defaults: the mode and config option values a new thread's
 * session is set to before its first prompt (a default the session does
 * not offer refuses the prompt: SESSION_DEFAULTS_NOT_OFFERED).
 */
export interface SessionDefaults {
  mode?: string;
  /** Config option id (as the agent spells it) → value. */
  options?: Record<string, string>;
}

/** An MCP server as the settings show it: env and header names only, never their values. */
export interface MCPServerSetting {
  name: string;
  type?: 'http' | 'sse';
  command?: string;
  args?: string[];
  url?: string;
  envKeys?: string[];
  headerKeys?: string[];
}

/** A whole MCP server for PATCH /v1/settings ({command, args?, env?} or {type, url, headers?}), or null (removed). */
export type MCPServerPatch = {
  type?: 'http' | 'sse';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
} | null;

/** The settings page's part of the config file (GET /v1/settings). */
export interface Settings {
  configFile: string;
  /** Why the file on disk was refused while the hub runs on its last good version; absent when it is in force. */
  configError?: string;
  /** A duration string: "10m", "90s", "1h30m". */
  permissions: {
    timeout: string;
    /** A duration string, shorter than timeout; absent or "" for never. */
    escalateAfter?: string;
    rules?: PermissionRule[];
  };
  notifications: {
    enabled: boolean;
    turnCompleted: boolean;
    /** Per reason (issue 16); absent from an older hub: on. */
    permission?: boolean;
    question?: boolean;
    error?: boolean;
    budget?: boolean;
  };
  ui: { theme: Theme };
  /** tray.autostart: the hub keeps the tray's autostart entry (absent from a hub without the setting). */
  tray?: { autostart: boolean };
  /** redaction.enabled: secrets are hidden before anything is stored (absent from a hub without the setting). */
  redaction?: { enabled: boolean };
  agents: AgentSettings[];
  /** The spending limits (budgets); absent from a hub without them. */
  budgets?: Budgets;
  /** The config's top-level mcpServers, by name. */
  mcpServers?: MCPServerSetting[];
  /** The config's folders.<glob> sections that hold MCP servers or instructions. */
  folders?: { glob: string; mcpServers?: MCPServerSetting[]; instructions?: Instructions }[];
}

/** Spending limits in currency, and the same in tokens and agent minutes; 0 or absent is none (config budgets). */
export interface Budgets {
  currency: string;
  daily?: number;
  monthly?: number;
  perThread?: number;
  agents?: Record<string, { daily?: number; monthly?: number }>;
  /** Limits in input + output tokens. */
  tokens?: BudgetLimits;
  /** Limits in agent time: running turns less the time a person was asked. */
  minutes?: BudgetLimits;
  /** Per model, the price per million tokens: an estimate for agents that report no cost. */
  prices?: Record<string, { input: number; output: number }>;
  /** Share of a limit a turn that asks nothing may spend past it (absent: 0.1). */
  grace?: number;
  /** Share of a limit "allow more" adds for the turn (absent: 0.2). */
  allowMore?: number;
}

/** Limits in one measure (budgets.tokens, budgets.minutes); 0 or absent is none. */
export interface BudgetLimits {
  daily?: number;
  monthly?: number;
  perThread?: number;
  agents?: Record<string, { daily?: number; monthly?: number }>;
}

/** A budget permission's amounts (PermissionRequest.budget). */
export interface BudgetDetails {
  /** daily, tokens.perThread, minutes.agents.<id>.monthly … */
  budget: string;
  /** "" money, tokens, minutes. */
  measure?: '' | 'tokens' | 'minutes';
  spent: number;
  /** The limit crossed, raised by what allow-more already added. */
  limit: number;
  /** What allow-more adds for this turn. */
  allowMore: number;
  /** Past the limit, a turn that asks nothing is cancelled at this much more. */
  grace: number;
  currency?: string;
}

/** A whole agents entry for PATCH /v1/settings; env is merged (null removes a variable). */
export interface AgentPatch {
  name?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string | null>;
  enabled?: boolean;
  /** Server name → a whole server, or null (removed); servers not named stay. */
  mcpServers?: Record<string, MCPServerPatch>;
  /** Replaces agents.<id>.defaults whole; {} removes them. */
  defaults?: SessionDefaults;
  /** Replaces agents.<id>.instructions; an empty text removes them. */
  instructions?: Instructions;
}

/** The body of PATCH /v1/settings: only the fields present change. */
export interface SettingsPatch {
  /** rules replaces the whole list; escalateAfter "" removes it. */
  permissions?: { timeout?: string; escalateAfter?: string; rules?: PermissionRule[] };
  notifications?: { enabled?: boolean; turnCompleted?: boolean; permission?: boolean; question?: boolean; error?: boolean; budget?: boolean };
  ui?: { theme?: Theme };
  tray?: { autostart?: boolean };
  redaction?: { enabled?: boolean };
  /** id → entry (added or replaced), or null (removed). */
  agents?: Record<string, AgentPatch | null>;
  /** Replaces the budgets section whole. */
  budgets?: Budgets;
  /** Server name → a whole server, or null (removed); servers not named stay. */
  mcpServers?: Record<string, MCPServerPatch>;
  /** Folder glob (as written) → its MCP servers merged by name, or null (the section removed). */
  folders?: Record<string, { mcpServers?: Record<string, MCPServerPatch>; instructions?: Instructions } | null>;
}

/** GET /v1/search: q in SQLite FTS5 syntax; the rest narrow the hits. */
export interface SearchQuery {
  q: string;
  agent?: string;
  folder?: string;
  /** RFC 3339. */
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/** A piece of a hit's snippet; match marks what the query matched. Plain text, never markup. */
export interface SnippetPart {
  text: string;
  match?: boolean;
}

export type SearchKind = 'prompt' | 'message' | 'thought' | 'tool' | 'title';

export interface SearchHit {
  threadId: string;
  turnId?: string;
  /** The event the hit starts at (a message's first chunk). */
  seq: number;
  kind: SearchKind;
  at: string;
  threadTitle: string;
  agent: string;
  cwd: string;
  /** The hit's thread is archived (search includes archived threads, marked). */
  archived?: boolean;
  snippet: SnippetPart[];
}

export interface SearchPage {
  hits: SearchHit[];
  nextCursor?: string;
  /** Older history is still being indexed: older hits may be missing. */
  indexing: boolean;
}

// ---- Hosts (issue 30: one window for every host) ---------------------------

/** One folder of a FolderList. */
export interface Folder {
  name: string;
  path: string;
}

/** GET /v1/hosts/{name}/folders: a host's folder's subfolders. */
export interface FolderList {
  path: string;
  /** The folder above; absent at the root. */
  parent?: string;
  folders: Folder[];
  /** More than 1000: the first 1000 by name. */
  truncated?: boolean;
}

// --- Hosts (issue 30, hostlink): docs/API.md "Hosts" ---

/** Where the link to a host stands. */
export type HostState = 'connecting' | 'connected' | 'unreachable' | 'needs_attention';

/** A machine with a hub of its own, reached over the user's ssh; `local` is this machine. */
export interface Host {
  name: string;
  /** The ssh destination: a ~/.ssh/config alias or user@host[:port]; "" for local. */
  ssh: string;
  state: HostState;
  /** When `state` began. */
  since: string;
  /** The remote hub's version; "" until it answered once. */
  version: string;
  /** Why it is unreachable or needs attention (ssh's own message). */
  error?: string;
  /** The unknown host key's SHA256 fingerprint, to trust with connect. */
  fingerprint?: string;
  /** Install progress, logind at logout, an update waiting. */
  note?: string;
}

/** The body of POST /v1/hosts/{name}/connect. */
export interface HostConnect {
  /** The unknown host key's fingerprint the user trusts. */
  trustKey?: string;
}
// --- end Hosts ---

/* Issue 32, the client system prompt (ADR 0050). */

/** agents.<id>.instructions or folders.<glob>.instructions: a client system prompt for new threads. */
export interface Instructions {
  /** append (the default) adds to the agent's own instructions; override replaces them. */
  mode?: 'append' | 'override';
  text: string;
}

/** The instructions a thread's agent sessions are opened with (Thread.instructions). */
export interface ThreadInstructions {
  mode: 'append' | 'override';
  /** The agent's text, then the folder's, a blank line between. */
  text: string;
  from: ('agent' | 'folder')[];
  /** Whether the last session got them; not_sent: the agent does not take a system prompt. Absent before a session opened. */
  delivery?: 'sent' | 'not_sent';
}
