// Types of the CIS Auto-Call simulator (index.js). Kept by hand; see README.md.

export interface SimulatorUser {
	email: string;
	password: string;
}

export interface SimulatorOptions {
	/** 0 (default) = a free port */
	port?: number;
	/** the loopback address to listen on: 127.0.0.1 (default) or another 127.x.x.x (e.g. 127.0.0.2 for SSRF tests) */
	host?: string;
	/** static Bearer token accepted (default 'sim-token') */
	token?: string;
	/** accounts of the login endpoint (default [{ email: 'user@example.com', password: 'secret' }]) */
	users?: SimulatorUser[];
	/** multiplies every simulated duration: call playing, webhook delay, re-delivery, redial time, lifetime (default 1) */
	timeScale?: number;
	/** added latency per API request, ms (default 0) */
	latencyMs?: number;
	/** added before the first API request of each new connection, ms: a remote service's TCP + TLS handshakes (default 0) */
	connectionDelayMs?: number;
	/** settings of the default template; null = no default template (default: a template with no redials and no targets) */
	defaultTemplate?: Partial<Template> | null;
	/** largest batch the batch endpoints accept (default unlimited) */
	maxBatchSize?: number;
	/** webhook delivery attempts per event (default 8) */
	webhookMaxAttempts?: number;
	/** how long a webhook receiver may take to answer, ms (default 5000) */
	webhookTimeoutMs?: number;
	/** `independent` (default): each event re-sent on its own schedule; `perCandidate`: a candidate's event waits until its earlier ones to the same URL were taken or given up. */
	webhookOrder?: 'independent' | 'perCandidate';
	/** first attempts to one URL in flight at once (default 1: one after another) */
	webhookConcurrency?: number;
	/** 4.4 and 4.5 require `accept: application/json` (406 otherwise), as spec section 5 says they send it (default false) */
	strictHeaders?: boolean;
	/** answer of the batch endpoints: one inner array per candidate `[[A], [B]]` (default) or per task `[[A, B]]` */
	batchAnswerShape?: BatchAnswerShape;
}

export type BatchAnswerShape = 'perCandidate' | 'perTask';

export interface LoggedRequest {
	method: string;
	/** without the query string */
	path: string;
	query: Record<string, string>;
	/** lower-case names */
	headers: Record<string, string | string[] | undefined>;
	/** parsed JSON, undefined when empty or not JSON */
	body: any;
	rawBody: string;
	/** the status answered; 0 when the socket was dropped; null while in progress */
	status: number | null;
	/** Date.now() when it arrived */
	at: number;
	/** 'rate-limit', 'injected', or the random fault kind, when a fault hit it */
	fault?: string;
	/** ms the simulator added before answering: connection delay, latency, a fault's delay (0: none) */
	delayedMs: number;
}

export interface WebhookDeliveryRecord {
	url: string;
	event: EventName;
	body: any;
	/** HTTP status of the answer, 'error' (no answer), or 'blocked' (not a loopback URL) */
	status: number | 'error' | 'blocked';
	/** 1 for the first attempt */
	attempt: number;
	at: number;
	error?: string;
}

export interface SimulatorEvent {
	event: EventName;
	taskId: string | null;
	payload: any;
	/** number of targets it was queued for */
	targets: number;
	at: number;
}

/** A webhook event's name (spec section 6); the list is nodes/shared/events.json. */
export type EventName = string;

export type TaskStatus = 'BLANK' | 'READY' | 'PROCESS' | 'PAUSED' | 'HALTED';
export type CandidateStatus =
	'NEW' | 'CALLING' | 'RECALL_SCHEDULED' | 'SUCCESS' | 'FAILED' | 'CANCELLED';

export interface FaultSpec {
	method?: string;
	/** exact path (no query), a RegExp, or { regex, flags } (for the HTTP control API) */
	path?: string | RegExp | { regex: string; flags?: string };
	/** requests it hits (default 1; Infinity for all) */
	times?: number;
	status?: number;
	body?: any;
	headers?: Record<string, string>;
	delayMs?: number;
	/** destroy the socket without an answer */
	drop?: boolean;
	/** process the request (state changes) then answer with the fault */
	afterHandling?: boolean;
	/** only requests whose raw body contains this text (e.g. one phone number) */
	bodyIncludes?: string;
}

export type RandomFaultKind =
	'429' | '500' | '502' | '503' | '504' | 'drop' | 'slow' | 'after503' | 'afterDrop';

export interface FaultRate {
	rate: number;
	kinds?: RandomFaultKind[];
	seed?: number;
	slowMs?: number;
	path?: string | RegExp | { regex: string; flags?: string };
}

export interface RateLimit {
	perSecond?: number;
	inFlight?: number;
}

export type CallStatus =
	| 'CANCEL'
	| 'ANSWERED'
	| 'NOANSWER'
	| 'BUSY'
	| 'CONGESTION'
	| 'CHANUNAVAIL'
	| 'FAILED'
	| 'SCHEDULED'
	| 'BLACKLIST'
	| 'DIAL'
	| 'INPROGRESS'
	| 'INVALID'
	| 'UNAVAILABLE'
	| 'EXPIRED'
	| 'REJECTED';

export interface OutcomeAttempt {
	status: CallStatus;
	/** ANSWERED by an answering machine: redial rule answerMash */
	answeringMachine?: boolean;
	/** ANSWERED but not successful: redial rule answerNoList */
	successful?: boolean;
	redirect?: boolean;
	efficiency?: boolean;
	result?: Record<string, unknown>;
	durationSec?: number;
}

export interface OutcomeScript {
	/** outcome of each call in turn; the last one repeats (default ['ANSWERED']) */
	attempts?: Array<CallStatus | OutcomeAttempt>;
	/** CALL_REDIRECTED before CALL_ENDED of the successful call */
	redirect?: boolean;
	/** EFFICIENCY_REACHED after CALL_ENDED of the successful call */
	efficiency?: boolean;
	/** `result` of CALL_ENDED */
	result?: Record<string, unknown>;
	/** talk time in simulated seconds (default 3; dialling adds 1) */
	durationSec?: number;
	redirectDestination?: 'ch' | 'custom';
	redirectDestinationId?: string;
}

export type WebhookTarget =
	| string
	| {
			url?: string;
			partialResults?: boolean;
			delay?: number;
			events?: Partial<Record<EventName, { name?: string; value?: boolean }>>;
	  };

export interface Template {
	id: string;
	name: string;
	botSettingsId?: string;
	webhookUrls: WebhookTarget[];
	redialStrategyOptions: Record<string, any>;
	additionalOptions: Record<string, any>;
	[setting: string]: any;
}

export interface SimTask {
	id: string;
	name: string;
	status: TaskStatus;
	createdAt: string;
	updatedAt: string;
	source: 'autoCall' | 'single' | 'batch';
	templateId: string | null;
	webhooksFromTemplate: boolean;
	/** the creation body (4.6) or the body built from the template (4.4, 4.5) */
	body: Record<string, any>;
	candidateIds: string[];
	[key: string]: any;
}

export interface SimCandidate {
	id: string;
	taskId: string;
	phone: string[];
	variables: Record<string, string>;
	callbackData?: Record<string, unknown>;
	timezone?: number;
	clientExternalId?: string;
	botSettingsId?: string;
	status: CandidateStatus;
	attempts: number;
	callIds: string[];
	lastCallId: string | null;
	depersonalized: boolean;
	[key: string]: any;
}

export interface SimCall {
	id: string;
	taskId: string | null;
	candidateId: string | null;
	botId: string | null;
	callFrom: string | null;
	callTo: string | null;
	status: CallStatus;
	attempt: number;
	startedAt: string;
	endedAt: string | null;
	variables: Record<string, string>;
	result: Record<string, unknown>;
	redirected: boolean;
	record: { url: string } | null;
	depersonalized: boolean;
	depersonalizedAt: string | null;
	[key: string]: any;
}

export interface SimState {
	tasks: Map<string, SimTask>;
	candidates: Map<string, SimCandidate>;
	calls: Map<string, SimCall>;
	templates: Map<string, Template>;
	defaultTemplate: Template | null;
}

export interface Counts {
	createdByPhone: Record<string, number>;
	/** sum over phones of (count - 1) */
	duplicates: number;
	/** candidates created */
	total: number;
}

export interface Simulator {
	/** 'http://127.0.0.1:<port>' */
	readonly url: string;
	readonly port: number;
	readonly config: Required<
		Pick<
			SimulatorOptions,
			'port' | 'token' | 'users' | 'timeScale' | 'latencyMs' | 'strictHeaders' | 'batchAnswerShape'
		>
	>;
	readonly requests: LoggedRequest[];
	readonly state: SimState;
	readonly webhookDeliveries: WebhookDeliveryRecord[];
	readonly events: SimulatorEvent[];
	/** successful logins */
	readonly logins: number;
	/** successful refreshes */
	readonly refreshes: number;
	/** new connections that carried an API request since the start or the last reset */
	readonly connections: number;

	createdByPhone(): Record<string, number>;
	counts(): Counts;
	/** tasks, candidates, calls and templates as plain JSON */
	snapshot(): any;

	injectFault(spec: FaultSpec): void;
	setFaultRate(options: FaultRate | null): void;
	setRateLimit(limits: RateLimit | null): void;
	setLatency(ms: number): void;
	/** delay before the first API request of each new connection, ms */
	setConnectionDelay(ms: number): void;
	setBatchAnswerShape(shape: BatchAnswerShape): void;
	/** every login-issued token answers 401 "Token is expired."; refreshTokens: true also voids refresh tokens */
	expireTokens(options?: { refreshTokens?: boolean }): void;
	/** null removes the phone's script */
	setOutcome(phone: string, script: OutcomeScript | null): void;
	/** keeps the first attempts of webhook deliveries back until releaseDeliveries() */
	holdDeliveries(): void;
	releaseDeliveries(): void;
	/** merges into the default template (creates one if none); null removes it */
	setDefaultTemplate(template: Partial<Template> | null): Template | null;
	addTemplate(id: string, template: Partial<Template>): Template;
	/** webhook targets of an existing task, as if set in the management interface */
	setTaskWebhooks(taskId: string, webhookUrls: WebhookTarget[]): void;
	/** a finished call in the state (record: true by default) */
	addCall(
		fields?: Partial<Omit<SimCall, 'record'>> & { record?: boolean | { url: string } },
	): SimCall;

	reset(): void;
	idle(): Promise<void>;
	close(): Promise<void>;
}

/** The redial options of a call task that never redials (the default template's). */
export declare const NO_REDIALS: Readonly<Record<string, unknown>>;

export function createSimulator(options?: SimulatorOptions): Promise<Simulator>;
