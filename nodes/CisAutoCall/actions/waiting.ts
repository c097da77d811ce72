import { randomBytes } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	type CandidateResult,
	hashWaitKey,
	RESUME_BODY_FIELD,
	statusInWords,
	WAIT_MARKER_FIELD,
	waitKeyMatches,
	withoutWaitMarker,
} from '../../shared/waitForResult';
import { isPlainObject } from '../../shared/validation';
import { ExpiringMap } from '../../shared/expiringMap';
import { allowingSetting, blockedAddress, egressBlockOf } from '../../shared/ssrfBlock';
import { NotSentError } from './itemErrors';
import type { ApiRequest } from '../../shared/transport';
import type { ItemOperation } from './operation';

/**
 * The waiting side of the "… and Wait for Result" operations. Before any call: a new key for this
 * wait, whose hash the execution keeps (saved with the waiting execution; the key itself only
 * travels in the candidates' Callback Data). After the calls were placed: the
 * candidates to wait for, then n8n's putExecutionToWait. On resume (webhook()): only a request
 * with the key, carrying a result for every candidate, continues the execution.
 */

/** One wait of one node run. */
export interface Wait {
	key: string;
	/** The marker of the candidate of an input item. */
	markerOf(itemIndex: number): IDataObject;
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/**
 * What the trigger needs of `$execution.resumeUrl` (`<n8n>/<waiting path>/<execution>[?signature=…]`):
 * the resume token (n8n 2.x; '' on 1.x, whose resume URL has none) and the waiting path.
 */
function resumeAddressOf(context: IExecuteFunctions, execution: string): { token: string; path?: string } {
	const resumeUrl = context.evaluateExpression('{{ $execution.resumeUrl }}', 0);
	if (typeof resumeUrl !== 'string') return { token: '' };
	try {
		const url = new URL(resumeUrl);
		const token = url.searchParams.get('signature') ?? '';
		const suffix = `/${execution}`;
		const path = url.pathname.endsWith(suffix) ? url.pathname.slice(0, -suffix.length) : undefined;
		return { token, ...(path ? { path } : {}) };
	} catch {
		return { token: '' };
	}
}

/** What the execution keeps: `<hash of the key>:<input items>:<items waited for>` (as ranges, "0-3,5"). */
function storedValue(key: string, total: number, items: number[]): string {
	const ranges: string[] = [];
	for (let i = 0; i < items.length; i++) {
		let j = i;
		while (j + 1 < items.length && items[j + 1] === items[j] + 1) j++;
		ranges.push(i === j ? String(items[i]) : `${items[i]}-${items[j]}`);
		i = j;
	}
	return `${hashWaitKey(key)}:${total}:${ranges.join(',')}`;
}

function parseStored(value: unknown): { hash: string; total: number; items: number[] } | undefined {
	if (typeof value !== 'string') return undefined;
	const [hash, totalText, list] = value.split(':');
	const total = Number(totalText);
	if (!hash || list === undefined || !Number.isInteger(total) || total < 0 || total > 1_000_000) return undefined;
	const items: number[] = [];
	for (const part of list.split(',').filter(Boolean)) {
		const [from, to] = part.split('-').map(Number);
		for (let item = from; item <= (to ?? from); item++) items.push(item);
	}
	return { hash, total, items };
}

/**
 * Where the waiting execution keeps the wait (the key's hash and the items waited for): the node's
 * own context, which n8n saves with the waiting execution and loads again for the resume, on every
 * version. (n8n's custom data is not found again by the resume on n8n 1.x, measured with 1.123.81,
 * and holds 10 entries of 512 characters.) A webhook() has no getContext(), so the resume reads the
 * same place in the execution data it was started with.
 */
const WAIT_CONTEXT_KEY = 'cisAutoCallWait';

function keepWait(context: IExecuteFunctions, value: string): void {
	context.getContext('node')[WAIT_CONTEXT_KEY] = value;
}

interface WithExecutionData {
	runExecutionData?: { executionData?: { contextData?: Record<string, IDataObject | undefined> } } | null;
}

function keptWait(context: IWebhookFunctions): unknown {
	const contextData = (context as unknown as WithExecutionData).runExecutionData?.executionData?.contextData;
	return contextData?.[`node:${context.getNode().name}`]?.[WAIT_CONTEXT_KEY];
}

/**
 * The key of each execution's waiting node in this process, so that n8n's Retry On Fail (a new try
 * of the same node run) marks the candidates it sends with the same key as the candidates an earlier
 * try created (which it does not send again).
 */
const keysOfRuns = new ExpiringMap<string>(60 * 60 * 1000, 10_000);

/**
 * Before anyone is called: when n8n's SSRF protection blocks n8n's own waiting address (where the
 * trigger hands the result over), no wait could end, so nothing is sent and the error names the
 * setting that allows it. Asked of n8n's own egress filter (n8n 2.x; nothing is sent).
 */
export async function refuseBlockedWait(context: IExecuteFunctions): Promise<void> {
	const resumeUrl = context.evaluateExpression('{{ $execution.resumeUrl }}', 0);
	if (typeof resumeUrl !== 'string') return;
	let origin: string;
	try {
		origin = new URL(resumeUrl).origin;
	} catch {
		return;
	}
	const block = await egressBlockOf(context.helpers, `${origin}/`);
	if (!block) return;
	const setting = allowingSetting(block);
	throw new NotSentError(
		context.getNode(),
		`Not sent: n8n's SSRF protection blocks n8n's own address ${blockedAddress(block)}, where the CIS Auto-Call Trigger hands over the result, so this wait could never end. To allow it, ${setting}`,
		{
			description: `Nobody was called. The n8n administrator can ${setting} and restart n8n; allowing only n8n's own host name (N8N_SSRF_ALLOWED_HOSTNAMES) keeps the rest of that range blocked.`,
		},
	);
}

/** Starts a wait before anything is sent: refuses when the execution cannot keep the wait's key. */
export function startWait(context: IExecuteFunctions): Wait {
	const execution = context.getExecutionId();
	const node = context.getNode().id;
	const run = `${execution}:${node}`;
	const key = keysOfRuns.get(run) ?? randomBytes(32).toString('hex');
	keysOfRuns.set(run, key);
	const address = resumeAddressOf(context, execution);
	return { key, markerOf: (item) => ({ execution, ...address, node, item, key }) };
}

/**
 * The operation of one waiting run: each candidate's Callback Data gets the wait's marker, next to
 * (never instead of) the user's own Callback Data.
 */
export function markedForWait(operation: ItemOperation<ApiRequest>, wait: Wait): ItemOperation<ApiRequest> {
	return {
		...operation,
		prepare(run) {
			const prepareItem = operation.prepare(run);
			return (itemIndex) => {
				const request = prepareItem(itemIndex);
				const body = request.body as IDataObject;
				const userData = (body.callbackData ?? {}) as IDataObject;
				return { ...request, body: { ...body, callbackData: { ...userData, [WAIT_MARKER_FIELD]: wait.markerOf(itemIndex) } } };
			};
		},
	};
}

/**
 * Runs a "… and Wait for Result" operation inside its wait: the candidates are marked, sent by
 * `run`, and the execution then waits for their results. The wait's key leaves whatever the node
 * outputs or throws.
 */
export async function runWaiting(
	context: IExecuteFunctions,
	operation: ItemOperation<ApiRequest>,
	run: (marked: ItemOperation<ApiRequest>) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	await refuseBlockedWait(context);
	const wait = startWait(context);
	let output: INodeExecutionData[];
	try {
		output = await run(markedForWait(operation, wait));
	} catch (error) {
		// An error may quote the request, and with it the wait's key.
		const failure = error as Error & { description?: string };
		failure.message = scrub(failure.message, wait.key);
		if (typeof failure.description === 'string') failure.description = scrub(failure.description, wait.key);
		throw failure;
	}
	return await waitForCandidates(context, wait, output);
}

/** Removes the wait's key from whatever the node outputs or throws (an error may quote the request). */
export function scrub<T>(value: T, key: string): T {
	if (typeof value === 'string') return value.split(key).join('***') as T;
	if (Array.isArray(value)) return value.map((entry) => scrub(entry, key)) as T;
	if (isPlainObject(value)) {
		const clean: IDataObject = {};
		for (const [name, entry] of Object.entries(value)) if (name !== WAIT_MARKER_FIELD) clean[name] = scrub(entry, key);
		return clean as T;
	}
	return value;
}

/**
 * After the calls were placed: waits for the candidates that were created. When none was, the
 * node goes on at once with its output (error items say why).
 */
export async function waitForCandidates(context: IExecuteFunctions, wait: Wait, output: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const created = output
		.filter((item) => typeof item.json.autoCallCandidateId === 'string' || typeof item.json.autoCallCandidateId === 'number')
		.map((item) => (item.pairedItem as { item: number }).item);
	const items = [...new Set(created)].sort((a, b) => a - b);
	const clean = output.map((item) => ({ ...item, json: scrub(item.json, wait.key) }));
	if (items.length === 0) return clean;
	keepWait(context, storedValue(wait.key, context.getInputData().length, items));
	const amount = Number(context.getNodeParameter('waitAtMost', 0, 1));
	const unit = String(context.getNodeParameter('waitUnit', 0, 'days'));
	const waitMs = Math.max(1, Number.isFinite(amount) ? amount : 1) * (UNIT_MS[unit] ?? UNIT_MS.days);
	await context.putExecutionToWait(new Date(Date.now() + waitMs));
	return clean.map((item) => ({ ...item, json: { ...item.json, outcome: 'waiting' } }));
}

function textOrNull(value: unknown): string | null {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

function objectOrNull(value: unknown): IDataObject | null {
	return isPlainObject(value) ? value : null;
}

/** One output item of a candidate, from what the trigger handed over (only known fields). */
function resultItem(given: IDataObject, item: number): INodeExecutionData {
	const result: CandidateResult = {
		outcome: given.outcome === 'answered' ? 'answered' : 'notReached',
		callStatus: textOrNull(given.callStatus),
		callId: textOrNull(given.callId),
		taskId: textOrNull(given.taskId),
		result: objectOrNull(given.result),
		variables: objectOrNull(given.variables),
		callbackData: (objectOrNull(withoutWaitMarker(given.callbackData)) ?? {}) as IDataObject,
		endedAt: textOrNull(given.endedAt) ?? new Date().toISOString(),
		endedBy: textOrNull(given.endedBy) ?? '',
	};
	return { json: { status: statusInWords(result), ...result }, pairedItem: { item } };
}

/**
 * The waiting node's webhook(): continues the execution only with the wait's key and a result for
 * every candidate waited for. Anything else leaves the execution waiting, unharmed.
 */
export async function resumeWithResults(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const refuse = (status: number, answer: IDataObject): IWebhookResponseData => {
		context.getResponseObject().status(status).json({ resumed: false, ...answer });
		return { noWebhookResponse: true };
	};
	let stored;
	try {
		stored = parseStored(keptWait(context));
	} catch {
		stored = undefined;
	}
	const body = context.getBodyData();
	const resume = isPlainObject(body) ? body[RESUME_BODY_FIELD] : undefined;
	if (!stored || !isPlainObject(resume) || !waitKeyMatches(resume.key, stored.hash)) {
		return refuse(401, { error: 'Not a resume of this wait' });
	}
	const results = isPlainObject(resume.results) ? resume.results : {};
	const missing = stored.items.filter((item) => !isPlainObject(results[String(item)]));
	if (missing.length > 0) return refuse(202, { waitingFor: missing.length });

	const inputCount = Math.max(stored.total, stored.items[stored.items.length - 1] + 1);
	const output: INodeExecutionData[] = [];
	for (let item = 0; item < inputCount; item++) {
		const given = results[String(item)];
		if (stored.items.includes(item) && isPlainObject(given)) output.push(resultItem(given, item));
		else output.push({ json: { status: 'Not called', outcome: 'notCalled' }, pairedItem: { item } });
	}
	return { workflowData: [output], webhookResponse: { resumed: true } };
}
