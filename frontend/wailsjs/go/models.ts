export namespace hub {
	
	export class SessionDefaults {
	    mode?: string;
	    options?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new SessionDefaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.options = source["options"];
	    }
	}
	export class AgentInstalled {
	    version: string;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentInstalled(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.path = source["path"];
	    }
	}
	export class AgentPackage {
	    package: string;
	    version: string;
	    minNode?: number;
	
	    static createFrom(source: any = {}) {
	        return new AgentPackage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.package = source["package"];
	        this.version = source["version"];
	        this.minNode = source["minNode"];
	    }
	}
	export class AgentMCPServer {
	    name: string;
	    transport: string;
	    skipped?: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentMCPServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.skipped = source["skipped"];
	    }
	}
	export class AgentProbeError {
	    message: string;
	    stderr?: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentProbeError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.message = source["message"];
	        this.stderr = source["stderr"];
	    }
	}
	export class Agent {
	    id: string;
	    name: string;
	    status: string;
	    command: string;
	    version?: string;
	    capabilities?: number[];
	    probeError?: AgentProbeError;
	    reason?: string;
	    install?: string;
	    mcpServers?: AgentMCPServer[];
	    npm?: AgentPackage;
	    installed?: AgentInstalled;
	    update?: string;
	    authMethods?: any[];
	    defaults?: SessionDefaults;
	    icon?: string;
	
	    static createFrom(source: any = {}) {
	        return new Agent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.status = source["status"];
	        this.command = source["command"];
	        this.version = source["version"];
	        this.capabilities = source["capabilities"];
	        this.probeError = this.convertValues(source["probeError"], AgentProbeError);
	        this.reason = source["reason"];
	        this.install = source["install"];
	        this.mcpServers = this.convertValues(source["mcpServers"], AgentMCPServer);
	        this.npm = this.convertValues(source["npm"], AgentPackage);
	        this.installed = this.convertValues(source["installed"], AgentInstalled);
	        this.update = source["update"];
	        this.authMethods = source["authMethods"];
	        this.defaults = this.convertValues(source["defaults"], SessionDefaults);
	        this.icon = source["icon"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentBudget {
	    daily?: number;
	    monthly?: number;
	
	    static createFrom(source: any = {}) {
	        return new AgentBudget(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.daily = source["daily"];
	        this.monthly = source["monthly"];
	    }
	}
	
	
	
	export class Instructions {
	    mode?: string;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new Instructions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.text = source["text"];
	    }
	}
	export class AgentPatch {
	    name?: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string | null>;
	    enabled?: boolean;
	    mcpServers?: Record<string, MCPServerPatch | null>;
	    defaults?: SessionDefaults;
	    instructions?: Instructions;
	
	    static createFrom(source: any = {}) {
	        return new AgentPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.enabled = source["enabled"];
	        this.mcpServers = source["mcpServers"];
	        this.defaults = this.convertValues(source["defaults"], SessionDefaults);
	        this.instructions = this.convertValues(source["instructions"], Instructions);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class AgentSession {
	    sessionId: string;
	    cwd: string;
	    title: string;
	    // Go type: time
	    updatedAt?: any;
	    threadId?: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentSession(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.cwd = source["cwd"];
	        this.title = source["title"];
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.threadId = source["threadId"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentSessionPage {
	    sessions: AgentSession[];
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentSessionPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessions = this.convertValues(source["sessions"], AgentSession);
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPServerSetting {
	    name: string;
	    type?: string;
	    command?: string;
	    args?: string[];
	    url?: string;
	    envKeys?: string[];
	    headerKeys?: string[];
	
	    static createFrom(source: any = {}) {
	        return new MCPServerSetting(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.type = source["type"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.url = source["url"];
	        this.envKeys = source["envKeys"];
	        this.headerKeys = source["headerKeys"];
	    }
	}
	export class AgentSettings {
	    id: string;
	    name?: string;
	    command?: string;
	    args?: string[];
	    envKeys?: string[];
	    enabled?: boolean;
	    builtin: boolean;
	    mcpServers?: MCPServerSetting[];
	    defaults?: SessionDefaults;
	    instructions?: Instructions;
	
	    static createFrom(source: any = {}) {
	        return new AgentSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.envKeys = source["envKeys"];
	        this.enabled = source["enabled"];
	        this.builtin = source["builtin"];
	        this.mcpServers = this.convertValues(source["mcpServers"], MCPServerSetting);
	        this.defaults = this.convertValues(source["defaults"], SessionDefaults);
	        this.instructions = this.convertValues(source["instructions"], Instructions);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ArchiveRequest {
	    cwd?: string;
	    agent?: string;
	    // Go type: time
	    idleBefore?: any;
	
	    static createFrom(source: any = {}) {
	        return new ArchiveRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.cwd = source["cwd"];
	        this.agent = source["agent"];
	        this.idleBefore = this.convertValues(source["idleBefore"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ArchiveResult {
	    archived: number;
	
	    static createFrom(source: any = {}) {
	        return new ArchiveResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.archived = source["archived"];
	    }
	}
	export class BatchDecision {
	    ids: string[];
	    outcome: string;
	    remember?: string;
	
	    static createFrom(source: any = {}) {
	        return new BatchDecision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ids = source["ids"];
	        this.outcome = source["outcome"];
	        this.remember = source["remember"];
	    }
	}
	export class ItemError {
	    code: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new ItemError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.message = source["message"];
	    }
	}
	export class PermissionOption {
	    optionId: string;
	    name: string;
	    kind: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionOption(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.optionId = source["optionId"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	    }
	}
	export class SubagentRef {
	    sessionId: string;
	    title?: string;
	
	    static createFrom(source: any = {}) {
	        return new SubagentRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.title = source["title"];
	    }
	}
	export class BudgetDetails {
	    budget: string;
	    measure?: string;
	    spent: number;
	    limit: number;
	    allowMore: number;
	    grace: number;
	    currency?: string;
	
	    static createFrom(source: any = {}) {
	        return new BudgetDetails(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.budget = source["budget"];
	        this.measure = source["measure"];
	        this.spent = source["spent"];
	        this.limit = source["limit"];
	        this.allowMore = source["allowMore"];
	        this.grace = source["grace"];
	        this.currency = source["currency"];
	    }
	}
	export class EnvVar {
	    name: string;
	    value?: string;
	    hidden?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new EnvVar(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.value = source["value"];
	        this.hidden = source["hidden"];
	    }
	}
	export class PermissionRequest {
	    kind?: string;
	    title?: string;
	    command?: string;
	    argv?: string[];
	    cwd?: string;
	    env?: EnvVar[];
	    paths?: string[];
	    flags?: string[];
	    budget?: BudgetDetails;
	    subagent?: SubagentRef;
	
	    static createFrom(source: any = {}) {
	        return new PermissionRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.title = source["title"];
	        this.command = source["command"];
	        this.argv = source["argv"];
	        this.cwd = source["cwd"];
	        this.env = this.convertValues(source["env"], EnvVar);
	        this.paths = source["paths"];
	        this.flags = source["flags"];
	        this.budget = this.convertValues(source["budget"], BudgetDetails);
	        this.subagent = this.convertValues(source["subagent"], SubagentRef);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Permission {
	    id: string;
	    threadId: string;
	    turnId: string;
	    status: string;
	    kind?: string;
	    request?: PermissionRequest;
	    toolCall: number[];
	    options: PermissionOption[];
	    // Go type: time
	    deadline: any;
	    decidedBy?: string;
	    optionId?: string;
	    // Go type: time
	    decidedAt?: any;
	    // Go type: time
	    createdAt: any;
	    agent?: string;
	    host?: string;
	    // Go type: time
	    escalatedAt?: any;
	
	    static createFrom(source: any = {}) {
	        return new Permission(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.threadId = source["threadId"];
	        this.turnId = source["turnId"];
	        this.status = source["status"];
	        this.kind = source["kind"];
	        this.request = this.convertValues(source["request"], PermissionRequest);
	        this.toolCall = source["toolCall"];
	        this.options = this.convertValues(source["options"], PermissionOption);
	        this.deadline = this.convertValues(source["deadline"], null);
	        this.decidedBy = source["decidedBy"];
	        this.optionId = source["optionId"];
	        this.decidedAt = this.convertValues(source["decidedAt"], null);
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.agent = source["agent"];
	        this.host = source["host"];
	        this.escalatedAt = this.convertValues(source["escalatedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BatchItem {
	    id: string;
	    permission?: Permission;
	    error?: ItemError;
	
	    static createFrom(source: any = {}) {
	        return new BatchItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.permission = this.convertValues(source["permission"], Permission);
	        this.error = this.convertValues(source["error"], ItemError);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BatchResult {
	    results: BatchItem[];
	
	    static createFrom(source: any = {}) {
	        return new BatchResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.results = this.convertValues(source["results"], BatchItem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class BudgetLimits {
	    daily?: number;
	    monthly?: number;
	    perThread?: number;
	    agents?: Record<string, AgentBudget>;
	
	    static createFrom(source: any = {}) {
	        return new BudgetLimits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.daily = source["daily"];
	        this.monthly = source["monthly"];
	        this.perThread = source["perThread"];
	        this.agents = this.convertValues(source["agents"], AgentBudget, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BudgetOverride {
	    id: string;
	    budget: string;
	    threadId?: string;
	    decidedBy: string;
	    // Go type: time
	    at: any;
	    usedBy?: string;
	
	    static createFrom(source: any = {}) {
	        return new BudgetOverride(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.budget = source["budget"];
	        this.threadId = source["threadId"];
	        this.decidedBy = source["decidedBy"];
	        this.at = this.convertValues(source["at"], null);
	        this.usedBy = source["usedBy"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Price {
	    input: number;
	    output: number;
	
	    static createFrom(source: any = {}) {
	        return new Price(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input = source["input"];
	        this.output = source["output"];
	    }
	}
	export class Budgets {
	    currency: string;
	    daily?: number;
	    monthly?: number;
	    perThread?: number;
	    agents?: Record<string, AgentBudget>;
	    tokens: BudgetLimits;
	    minutes: BudgetLimits;
	    prices?: Record<string, Price>;
	    grace?: number;
	    allowMore?: number;
	
	    static createFrom(source: any = {}) {
	        return new Budgets(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.currency = source["currency"];
	        this.daily = source["daily"];
	        this.monthly = source["monthly"];
	        this.perThread = source["perThread"];
	        this.agents = this.convertValues(source["agents"], AgentBudget, true);
	        this.tokens = this.convertValues(source["tokens"], BudgetLimits);
	        this.minutes = this.convertValues(source["minutes"], BudgetLimits);
	        this.prices = this.convertValues(source["prices"], Price, true);
	        this.grace = source["grace"];
	        this.allowMore = source["allowMore"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileChange {
	    path: string;
	    status: string;
	    oldPath?: string;
	    diff: string;
	
	    static createFrom(source: any = {}) {
	        return new FileChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.oldPath = source["oldPath"];
	        this.diff = source["diff"];
	    }
	}
	export class Changes {
	    source: string;
	    base?: string;
	    files: FileChange[];
	
	    static createFrom(source: any = {}) {
	        return new Changes(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.source = source["source"];
	        this.base = source["base"];
	        this.files = this.convertValues(source["files"], FileChange);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChangesQuery {
	    turn?: string;
	    since?: string;
	
	    static createFrom(source: any = {}) {
	        return new ChangesQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turn = source["turn"];
	        this.since = source["since"];
	    }
	}
	export class Checkpoint {
	    turnId: string;
	    commit: string;
	    ref: string;
	
	    static createFrom(source: any = {}) {
	        return new Checkpoint(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turnId = source["turnId"];
	        this.commit = source["commit"];
	        this.ref = source["ref"];
	    }
	}
	export class FSCapabilities {
	    readTextFile: boolean;
	    writeTextFile: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FSCapabilities(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.readTextFile = source["readTextFile"];
	        this.writeTextFile = source["writeTextFile"];
	    }
	}
	export class ClientCapabilities {
	    fs: FSCapabilities;
	    terminal: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ClientCapabilities(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.fs = this.convertValues(source["fs"], FSCapabilities);
	        this.terminal = source["terminal"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CommitRequest {
	    message?: string;
	    confirm?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CommitRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.message = source["message"];
	        this.confirm = source["confirm"];
	    }
	}
	export class ImportedSession {
	    sessionId: string;
	    history: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportedSession(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.history = source["history"];
	    }
	}
	export class Overlap {
	    path: string;
	    threadId: string;
	    conflict?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Overlap(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.threadId = source["threadId"];
	        this.conflict = source["conflict"];
	    }
	}
	export class WorktreeSetup {
	    commands: string[];
	    status: string;
	    output: string;
	    exitCode?: number;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeSetup(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.commands = source["commands"];
	        this.status = source["status"];
	        this.output = source["output"];
	        this.exitCode = source["exitCode"];
	    }
	}
	export class Worktree {
	    path: string;
	    branch: string;
	    base: string;
	    baseCommit: string;
	    top: string;
	    repo: string;
	    ahead?: number;
	    behind?: number;
	    dirty?: number;
	    merged?: boolean;
	    adopted?: boolean;
	    pullRequestUrl?: string;
	    setup?: WorktreeSetup;
	    discarded?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Worktree(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.branch = source["branch"];
	        this.base = source["base"];
	        this.baseCommit = source["baseCommit"];
	        this.top = source["top"];
	        this.repo = source["repo"];
	        this.ahead = source["ahead"];
	        this.behind = source["behind"];
	        this.dirty = source["dirty"];
	        this.merged = source["merged"];
	        this.adopted = source["adopted"];
	        this.pullRequestUrl = source["pullRequestUrl"];
	        this.setup = this.convertValues(source["setup"], WorktreeSetup);
	        this.discarded = source["discarded"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ThreadInstructions {
	    mode: string;
	    text: string;
	    from: string[];
	    delivery?: string;
	
	    static createFrom(source: any = {}) {
	        return new ThreadInstructions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.text = source["text"];
	        this.from = source["from"];
	        this.delivery = source["delivery"];
	    }
	}
	export class Thread {
	    id: string;
	    agent: string;
	    cwd: string;
	    title: string;
	    clientId: string;
	    status: string;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    archived: boolean;
	    host?: string;
	    modes?: number[];
	    configOptions?: number[];
	    availableCommands?: number[];
	    clientCapabilities?: ClientCapabilities;
	    additionalDirectories?: string[];
	    instructions?: ThreadInstructions;
	    worktree?: Worktree;
	    overlaps?: Overlap[];
	    summary?: string;
	    // Go type: time
	    compactedAt?: any;
	    // Go type: time
	    limitedUntil?: any;
	    queued?: number;
	    queuePaused?: string;
	    imported?: ImportedSession;
	
	    static createFrom(source: any = {}) {
	        return new Thread(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.agent = source["agent"];
	        this.cwd = source["cwd"];
	        this.title = source["title"];
	        this.clientId = source["clientId"];
	        this.status = source["status"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.archived = source["archived"];
	        this.host = source["host"];
	        this.modes = source["modes"];
	        this.configOptions = source["configOptions"];
	        this.availableCommands = source["availableCommands"];
	        this.clientCapabilities = this.convertValues(source["clientCapabilities"], ClientCapabilities);
	        this.additionalDirectories = source["additionalDirectories"];
	        this.instructions = this.convertValues(source["instructions"], ThreadInstructions);
	        this.worktree = this.convertValues(source["worktree"], Worktree);
	        this.overlaps = this.convertValues(source["overlaps"], Overlap);
	        this.summary = source["summary"];
	        this.compactedAt = this.convertValues(source["compactedAt"], null);
	        this.limitedUntil = this.convertValues(source["limitedUntil"], null);
	        this.queued = source["queued"];
	        this.queuePaused = source["queuePaused"];
	        this.imported = this.convertValues(source["imported"], ImportedSession);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CommitResult {
	    commit: string;
	    files: string[];
	    thread: Thread;
	
	    static createFrom(source: any = {}) {
	        return new CommitResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.commit = source["commit"];
	        this.files = source["files"];
	        this.thread = this.convertValues(source["thread"], Thread);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CommitSuggestion {
	    message: string;
	    files: string[];
	
	    static createFrom(source: any = {}) {
	        return new CommitSuggestion(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.message = source["message"];
	        this.files = source["files"];
	    }
	}
	export class WorktreeRequest {
	    On: boolean;
	    Branch: string;
	    Path: string;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.On = source["On"];
	        this.Branch = source["Branch"];
	        this.Path = source["Path"];
	    }
	}
	export class CreateThreadRequest {
	    agent: string;
	    cwd: string;
	    title?: string;
	    host?: string;
	    openSession?: boolean;
	    additionalDirectories?: string[];
	    clientCapabilities?: ClientCapabilities;
	    mcpServers?: number[][];
	    worktree?: WorktreeRequest;
	
	    static createFrom(source: any = {}) {
	        return new CreateThreadRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.agent = source["agent"];
	        this.cwd = source["cwd"];
	        this.title = source["title"];
	        this.host = source["host"];
	        this.openSession = source["openSession"];
	        this.additionalDirectories = source["additionalDirectories"];
	        this.clientCapabilities = this.convertValues(source["clientCapabilities"], ClientCapabilities);
	        this.mcpServers = source["mcpServers"];
	        this.worktree = this.convertValues(source["worktree"], WorktreeRequest);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Decision {
	    outcome?: string;
	    optionId?: string;
	    remember?: string;
	
	    static createFrom(source: any = {}) {
	        return new Decision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.outcome = source["outcome"];
	        this.optionId = source["optionId"];
	        this.remember = source["remember"];
	    }
	}
	export class RememberedRule {
	    id: string;
	    scope: string;
	    threadId?: string;
	    cwd?: string;
	    agent: string;
	    kind: string;
	    command?: string;
	    runsIn?: string;
	    envKey?: string;
	    decision: string;
	    title?: string;
	    // Go type: time
	    createdAt: any;
	    createdBy: string;
	    permissionId: string;
	    clientId?: string;
	
	    static createFrom(source: any = {}) {
	        return new RememberedRule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.scope = source["scope"];
	        this.threadId = source["threadId"];
	        this.cwd = source["cwd"];
	        this.agent = source["agent"];
	        this.kind = source["kind"];
	        this.command = source["command"];
	        this.runsIn = source["runsIn"];
	        this.envKey = source["envKey"];
	        this.decision = source["decision"];
	        this.title = source["title"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.createdBy = source["createdBy"];
	        this.permissionId = source["permissionId"];
	        this.clientId = source["clientId"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DecisionResult {
	    permission: Permission;
	    rule?: RememberedRule;
	    shadowedBy?: string;
	
	    static createFrom(source: any = {}) {
	        return new DecisionResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.permission = this.convertValues(source["permission"], Permission);
	        this.rule = this.convertValues(source["rule"], RememberedRule);
	        this.shadowedBy = source["shadowedBy"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DeleteOptions {
	    Discard: boolean;
	    KeepBranch: boolean;
	
	    static createFrom(source: any = {}) {
	        return new DeleteOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.Discard = source["Discard"];
	        this.KeepBranch = source["KeepBranch"];
	    }
	}
	export class ElicitationEnum {
	    const: string;
	    title?: string;
	
	    static createFrom(source: any = {}) {
	        return new ElicitationEnum(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.const = source["const"];
	        this.title = source["title"];
	    }
	}
	export class ElicitationProperty {
	    type: string;
	    title?: string;
	    description?: string;
	    enum?: string[];
	    oneOf?: ElicitationEnum[];
	    default?: number[];
	    minimum?: number;
	    maximum?: number;
	    minLength?: number;
	    maxLength?: number;
	    format?: string;
	    pattern?: string;
	
	    static createFrom(source: any = {}) {
	        return new ElicitationProperty(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.enum = source["enum"];
	        this.oneOf = this.convertValues(source["oneOf"], ElicitationEnum);
	        this.default = source["default"];
	        this.minimum = source["minimum"];
	        this.maximum = source["maximum"];
	        this.minLength = source["minLength"];
	        this.maxLength = source["maxLength"];
	        this.format = source["format"];
	        this.pattern = source["pattern"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ElicitationSchema {
	    type: string;
	    title?: string;
	    description?: string;
	    properties: ElicitationProperty[];
	    required?: string[];
	
	    static createFrom(source: any = {}) {
	        return new ElicitationSchema(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.properties = this.convertValues(source["properties"], ElicitationProperty);
	        this.required = source["required"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Elicitation {
	    id: string;
	    threadId: string;
	    turnId: string;
	    mode: string;
	    message: string;
	    requestedSchema?: ElicitationSchema;
	    url?: string;
	    toolCallId?: string;
	    status: string;
	    // Go type: time
	    deadline: any;
	    decidedBy?: string;
	    // Go type: time
	    decidedAt?: any;
	    // Go type: time
	    createdAt: any;
	    agent?: string;
	
	    static createFrom(source: any = {}) {
	        return new Elicitation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.threadId = source["threadId"];
	        this.turnId = source["turnId"];
	        this.mode = source["mode"];
	        this.message = source["message"];
	        this.requestedSchema = this.convertValues(source["requestedSchema"], ElicitationSchema);
	        this.url = source["url"];
	        this.toolCallId = source["toolCallId"];
	        this.status = source["status"];
	        this.deadline = this.convertValues(source["deadline"], null);
	        this.decidedBy = source["decidedBy"];
	        this.decidedAt = this.convertValues(source["decidedAt"], null);
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.agent = source["agent"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ElicitationAnswer {
	    action: string;
	    content?: Record<string, Array<number>>;
	
	    static createFrom(source: any = {}) {
	        return new ElicitationAnswer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.action = source["action"];
	        this.content = source["content"];
	    }
	}
	
	export class ElicitationPage {
	    elicitations: Elicitation[];
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new ElicitationPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.elicitations = this.convertValues(source["elicitations"], Elicitation);
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class ElicitationQuery {
	    status?: string;
	    decidedBy?: string;
	    agent?: string;
	    threadId?: string;
	    from?: string;
	    to?: string;
	    limit?: number;
	    cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new ElicitationQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.decidedBy = source["decidedBy"];
	        this.agent = source["agent"];
	        this.threadId = source["threadId"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	}
	
	
	export class Event {
	    Seq: number;
	    Type: string;
	    ThreadID: string;
	    TurnID: string;
	    // Go type: time
	    At: any;
	    ClientID: string;
	    Payload: number[];
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.Seq = source["Seq"];
	        this.Type = source["Type"];
	        this.ThreadID = source["ThreadID"];
	        this.TurnID = source["TurnID"];
	        this.At = this.convertValues(source["At"], null);
	        this.ClientID = source["ClientID"];
	        this.Payload = source["Payload"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ExportRequest {
	    threadId?: string;
	    cwd?: string;
	    format: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.threadId = source["threadId"];
	        this.cwd = source["cwd"];
	        this.format = source["format"];
	    }
	}
	
	
	export class Folder {
	    name: string;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new Folder(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.path = source["path"];
	    }
	}
	export class FolderList {
	    path: string;
	    parent?: string;
	    folders: Folder[];
	    truncated?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FolderList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.parent = source["parent"];
	        this.folders = this.convertValues(source["folders"], Folder);
	        this.truncated = source["truncated"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FolderPatch {
	    mcpServers?: Record<string, MCPServerPatch | null>;
	    instructions?: Instructions;
	
	    static createFrom(source: any = {}) {
	        return new FolderPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mcpServers = source["mcpServers"];
	        this.instructions = this.convertValues(source["instructions"], Instructions);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FolderSettings {
	    glob: string;
	    mcpServers?: MCPServerSetting[];
	    instructions?: Instructions;
	
	    static createFrom(source: any = {}) {
	        return new FolderSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.glob = source["glob"];
	        this.mcpServers = this.convertValues(source["mcpServers"], MCPServerSetting);
	        this.instructions = this.convertValues(source["instructions"], Instructions);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class GitFolder {
	    git: boolean;
	    repo?: string;
	
	    static createFrom(source: any = {}) {
	        return new GitFolder(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.git = source["git"];
	        this.repo = source["repo"];
	    }
	}
	export class TurnHistory {
	    id: string;
	    threadId: string;
	    status: string;
	    input: string;
	    content?: number[];
	    output: string;
	    outputBytes?: number;
	    outputTruncated?: boolean;
	    stopReason?: string;
	    error?: string;
	    // Go type: time
	    startedAt: any;
	    // Go type: time
	    endedAt?: any;
	    internal?: boolean;
	    events?: Event[];
	
	    static createFrom(source: any = {}) {
	        return new TurnHistory(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.threadId = source["threadId"];
	        this.status = source["status"];
	        this.input = source["input"];
	        this.content = source["content"];
	        this.output = source["output"];
	        this.outputBytes = source["outputBytes"];
	        this.outputTruncated = source["outputTruncated"];
	        this.stopReason = source["stopReason"];
	        this.error = source["error"];
	        this.startedAt = this.convertValues(source["startedAt"], null);
	        this.endedAt = this.convertValues(source["endedAt"], null);
	        this.internal = source["internal"];
	        this.events = this.convertValues(source["events"], Event);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryPage {
	    turns: TurnHistory[];
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new HistoryPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turns = this.convertValues(source["turns"], TurnHistory);
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryQuery {
	    includeEvents?: boolean;
	    includeInternal?: boolean;
	    limit?: number;
	    cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new HistoryQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.includeEvents = source["includeEvents"];
	        this.includeInternal = source["includeInternal"];
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	}
	export class Host {
	    name: string;
	    ssh: string;
	    state: string;
	    // Go type: time
	    since: any;
	    version: string;
	    error?: string;
	    fingerprint?: string;
	    note?: string;
	
	    static createFrom(source: any = {}) {
	        return new Host(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.ssh = source["ssh"];
	        this.state = source["state"];
	        this.since = this.convertValues(source["since"], null);
	        this.version = source["version"];
	        this.error = source["error"];
	        this.fingerprint = source["fingerprint"];
	        this.note = source["note"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HostConnect {
	    trustKey?: string;
	
	    static createFrom(source: any = {}) {
	        return new HostConnect(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.trustKey = source["trustKey"];
	    }
	}
	export class ImportResult {
	    threads: Thread[];
	    turns: number;
	    events: number;
	
	    static createFrom(source: any = {}) {
	        return new ImportResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.threads = this.convertValues(source["threads"], Thread);
	        this.turns = source["turns"];
	        this.events = source["events"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ImportSessionRequest {
	    agent: string;
	    sessionId: string;
	    cwd: string;
	    title?: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportSessionRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.agent = source["agent"];
	        this.sessionId = source["sessionId"];
	        this.cwd = source["cwd"];
	        this.title = source["title"];
	    }
	}
	export class ImportSessionResult {
	    thread: Thread;
	    created: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ImportSessionResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.thread = this.convertValues(source["thread"], Thread);
	        this.created = source["created"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class MCPServerPatch {
	    type?: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    url?: string;
	    headers?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new MCPServerPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.url = source["url"];
	        this.headers = source["headers"];
	    }
	}
	
	export class MergeResult {
	    how: string;
	    commit: string;
	    committed?: string;
	    thread: Thread;
	
	    static createFrom(source: any = {}) {
	        return new MergeResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.how = source["how"];
	        this.commit = source["commit"];
	        this.committed = source["committed"];
	        this.thread = this.convertValues(source["thread"], Thread);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NodeStatus {
	    path?: string;
	    version?: string;
	    major?: number;
	    own?: boolean;
	    required?: number;
	    ok: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NodeStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.version = source["version"];
	        this.major = source["major"];
	        this.own = source["own"];
	        this.required = source["required"];
	        this.ok = source["ok"];
	    }
	}
	export class NotificationSettings {
	    enabled: boolean;
	    turnCompleted: boolean;
	    permission: boolean;
	    question: boolean;
	    error: boolean;
	    budget: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NotificationSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.turnCompleted = source["turnCompleted"];
	        this.permission = source["permission"];
	        this.question = source["question"];
	        this.error = source["error"];
	        this.budget = source["budget"];
	    }
	}
	export class NotificationSettingsPatch {
	    enabled?: boolean;
	    turnCompleted?: boolean;
	    permission?: boolean;
	    question?: boolean;
	    error?: boolean;
	    budget?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NotificationSettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.turnCompleted = source["turnCompleted"];
	        this.permission = source["permission"];
	        this.question = source["question"];
	        this.error = source["error"];
	        this.budget = source["budget"];
	    }
	}
	
	export class OverrideRequest {
	    budget: string;
	    threadId?: string;
	
	    static createFrom(source: any = {}) {
	        return new OverrideRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.budget = source["budget"];
	        this.threadId = source["threadId"];
	    }
	}
	
	
	export class PermissionPage {
	    permissions: Permission[];
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.permissions = this.convertValues(source["permissions"], Permission);
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionQuery {
	    status?: string;
	    decidedBy?: string;
	    agent?: string;
	    threadId?: string;
	    from?: string;
	    to?: string;
	    limit?: number;
	    cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.decidedBy = source["decidedBy"];
	        this.agent = source["agent"];
	        this.threadId = source["threadId"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	}
	
	export class PermissionRule {
	    name: string;
	    agents?: string[];
	    folders?: string[];
	    kinds?: string[];
	    match?: string;
	    inside?: string;
	    decision: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionRule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.agents = source["agents"];
	        this.folders = source["folders"];
	        this.kinds = source["kinds"];
	        this.match = source["match"];
	        this.inside = source["inside"];
	        this.decision = source["decision"];
	    }
	}
	export class PermissionSettings {
	    timeout: string;
	    escalateAfter?: string;
	    rules: PermissionRule[];
	
	    static createFrom(source: any = {}) {
	        return new PermissionSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.timeout = source["timeout"];
	        this.escalateAfter = source["escalateAfter"];
	        this.rules = this.convertValues(source["rules"], PermissionRule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionSettingsPatch {
	    timeout?: string;
	    escalateAfter?: string;
	    rules?: PermissionRule[];
	
	    static createFrom(source: any = {}) {
	        return new PermissionSettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.timeout = source["timeout"];
	        this.escalateAfter = source["escalateAfter"];
	        this.rules = this.convertValues(source["rules"], PermissionRule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class PushResult {
	    remote: string;
	    branch: string;
	    pullRequestUrl?: string;
	    thread: Thread;
	
	    static createFrom(source: any = {}) {
	        return new PushResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.remote = source["remote"];
	        this.branch = source["branch"];
	        this.pullRequestUrl = source["pullRequestUrl"];
	        this.thread = this.convertValues(source["thread"], Thread);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class QueueEdit {
	    input?: string;
	    position?: number;
	
	    static createFrom(source: any = {}) {
	        return new QueueEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input = source["input"];
	        this.position = source["position"];
	    }
	}
	export class QueuedPrompt {
	    id: string;
	    threadId: string;
	    position: number;
	    input?: string;
	    content?: number[][];
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	
	    static createFrom(source: any = {}) {
	        return new QueuedPrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.threadId = source["threadId"];
	        this.position = source["position"];
	        this.input = source["input"];
	        this.content = source["content"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RedactionSettings {
	    enabled: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RedactionSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	    }
	}
	export class RedactionSettingsPatch {
	    enabled?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RedactionSettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	    }
	}
	
	export class RestoreResult {
	    files: string[];
	
	    static createFrom(source: any = {}) {
	        return new RestoreResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.files = source["files"];
	    }
	}
	export class RevertRequest {
	    path?: string;
	    sinceTurn?: string;
	    force?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RevertRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.sinceTurn = source["sinceTurn"];
	        this.force = source["force"];
	    }
	}
	export class SnippetPart {
	    text: string;
	    match?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SnippetPart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.match = source["match"];
	    }
	}
	export class SearchHit {
	    threadId: string;
	    turnId?: string;
	    seq: number;
	    kind: string;
	    // Go type: time
	    at: any;
	    threadTitle: string;
	    agent: string;
	    cwd: string;
	    archived?: boolean;
	    snippet: SnippetPart[];
	
	    static createFrom(source: any = {}) {
	        return new SearchHit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.threadId = source["threadId"];
	        this.turnId = source["turnId"];
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.at = this.convertValues(source["at"], null);
	        this.threadTitle = source["threadTitle"];
	        this.agent = source["agent"];
	        this.cwd = source["cwd"];
	        this.archived = source["archived"];
	        this.snippet = this.convertValues(source["snippet"], SnippetPart);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchPage {
	    hits: SearchHit[];
	    nextCursor?: string;
	    indexing: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SearchPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hits = this.convertValues(source["hits"], SearchHit);
	        this.nextCursor = source["nextCursor"];
	        this.indexing = source["indexing"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchQuery {
	    q: string;
	    agent?: string;
	    folder?: string;
	    // Go type: time
	    from: any;
	    // Go type: time
	    to: any;
	    limit?: number;
	    cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new SearchQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.q = source["q"];
	        this.agent = source["agent"];
	        this.folder = source["folder"];
	        this.from = this.convertValues(source["from"], null);
	        this.to = this.convertValues(source["to"], null);
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class TraySettings {
	    autostart: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TraySettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.autostart = source["autostart"];
	    }
	}
	export class UISettings {
	    theme: string;
	
	    static createFrom(source: any = {}) {
	        return new UISettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.theme = source["theme"];
	    }
	}
	export class Settings {
	    configFile: string;
	    configError?: string;
	    permissions: PermissionSettings;
	    notifications: NotificationSettings;
	    ui: UISettings;
	    tray: TraySettings;
	    redaction: RedactionSettings;
	    agents: AgentSettings[];
	    mcpServers?: MCPServerSetting[];
	    folders?: FolderSettings[];
	    budgets: Budgets;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.configFile = source["configFile"];
	        this.configError = source["configError"];
	        this.permissions = this.convertValues(source["permissions"], PermissionSettings);
	        this.notifications = this.convertValues(source["notifications"], NotificationSettings);
	        this.ui = this.convertValues(source["ui"], UISettings);
	        this.tray = this.convertValues(source["tray"], TraySettings);
	        this.redaction = this.convertValues(source["redaction"], RedactionSettings);
	        this.agents = this.convertValues(source["agents"], AgentSettings);
	        this.mcpServers = this.convertValues(source["mcpServers"], MCPServerSetting);
	        this.folders = this.convertValues(source["folders"], FolderSettings);
	        this.budgets = this.convertValues(source["budgets"], Budgets);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TraySettingsPatch {
	    autostart?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TraySettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.autostart = source["autostart"];
	    }
	}
	export class UISettingsPatch {
	    theme?: string;
	
	    static createFrom(source: any = {}) {
	        return new UISettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.theme = source["theme"];
	    }
	}
	export class SettingsPatch {
	    permissions?: PermissionSettingsPatch;
	    notifications?: NotificationSettingsPatch;
	    ui?: UISettingsPatch;
	    tray?: TraySettingsPatch;
	    redaction?: RedactionSettingsPatch;
	    agents?: Record<string, AgentPatch>;
	    mcpServers?: Record<string, MCPServerPatch | null>;
	    folders?: Record<string, FolderPatch>;
	    budgets?: Budgets;
	
	    static createFrom(source: any = {}) {
	        return new SettingsPatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.permissions = this.convertValues(source["permissions"], PermissionSettingsPatch);
	        this.notifications = this.convertValues(source["notifications"], NotificationSettingsPatch);
	        this.ui = this.convertValues(source["ui"], UISettingsPatch);
	        this.tray = this.convertValues(source["tray"], TraySettingsPatch);
	        this.redaction = this.convertValues(source["redaction"], RedactionSettingsPatch);
	        this.agents = this.convertValues(source["agents"], AgentPatch, true);
	        this.mcpServers = source["mcpServers"];
	        this.folders = this.convertValues(source["folders"], FolderPatch, true);
	        this.budgets = this.convertValues(source["budgets"], Budgets);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SignInResult {
	    authSessionId?: string;
	
	    static createFrom(source: any = {}) {
	        return new SignInResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.authSessionId = source["authSessionId"];
	    }
	}
	
	
	
	
	export class ThreadPage {
	    threads: Thread[];
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new ThreadPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.threads = this.convertValues(source["threads"], Thread);
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ThreadQuery {
	    limit?: number;
	    cursor?: string;
	    archived?: string;
	
	    static createFrom(source: any = {}) {
	        return new ThreadQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	        this.archived = source["archived"];
	    }
	}
	
	
	export class Turn {
	    id: string;
	    threadId: string;
	    status: string;
	    input: string;
	    content?: number[];
	    output: string;
	    outputBytes?: number;
	    outputTruncated?: boolean;
	    stopReason?: string;
	    error?: string;
	    // Go type: time
	    startedAt: any;
	    // Go type: time
	    endedAt?: any;
	    internal?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Turn(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.threadId = source["threadId"];
	        this.status = source["status"];
	        this.input = source["input"];
	        this.content = source["content"];
	        this.output = source["output"];
	        this.outputBytes = source["outputBytes"];
	        this.outputTruncated = source["outputTruncated"];
	        this.stopReason = source["stopReason"];
	        this.error = source["error"];
	        this.startedAt = this.convertValues(source["startedAt"], null);
	        this.endedAt = this.convertValues(source["endedAt"], null);
	        this.internal = source["internal"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class TurnInput {
	    input?: string;
	    content?: number[][];
	
	    static createFrom(source: any = {}) {
	        return new TurnInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input = source["input"];
	        this.content = source["content"];
	    }
	}
	
	
	export class UsageBucket {
	    key: string;
	    cost: Record<string, number>;
	    inputTokens: number;
	    outputTokens: number;
	    cachedTokens?: number;
	    minutes?: number;
	    estimate?: number;
	    agents?: Record<string, any>;
	    agentTokens?: Record<string, number>;
	    agent?: string;
	    title?: string;
	    threadId?: string;
	    used?: number;
	    size?: number;
	
	    static createFrom(source: any = {}) {
	        return new UsageBucket(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.cost = source["cost"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.cachedTokens = source["cachedTokens"];
	        this.minutes = source["minutes"];
	        this.estimate = source["estimate"];
	        this.agents = source["agents"];
	        this.agentTokens = source["agentTokens"];
	        this.agent = source["agent"];
	        this.title = source["title"];
	        this.threadId = source["threadId"];
	        this.used = source["used"];
	        this.size = source["size"];
	    }
	}
	export class UsageParams {
	    by?: string;
	    from?: string;
	    to?: string;
	    tz?: string;
	    threadId?: string;
	    limit?: number;
	    cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new UsageParams(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.by = source["by"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.tz = source["tz"];
	        this.threadId = source["threadId"];
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	}
	export class UsageReport {
	    buckets: UsageBucket[];
	    // Go type: time
	    from: any;
	    // Go type: time
	    to: any;
	    currency?: string;
	    agentsWithoutCost: string[];
	    heldBy: Record<string, string>;
	    nextCursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new UsageReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.buckets = this.convertValues(source["buckets"], UsageBucket);
	        this.from = this.convertValues(source["from"], null);
	        this.to = this.convertValues(source["to"], null);
	        this.currency = source["currency"];
	        this.agentsWithoutCost = source["agentsWithoutCost"];
	        this.heldBy = source["heldBy"];
	        this.nextCursor = source["nextCursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

