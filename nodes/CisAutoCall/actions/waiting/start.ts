import { randomBytes } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { processMemory } from '../../../shared/processMemory';
import { allowingSetting, blockedAddress, egressBlockOf } from '../../../shared/ssrfBlock';
import type { ApiRequest } from '../../../shared/transport';
import { isPlainObject } from '../../../shared/validation';
import { WAIT_MARKER_FIELD } from '../../../shared/waitForResult';
import { NotSentError } from '../itemErrors';
import type { ItemOperation } from '../operation';
import { keepWait } from './storedWait';
import { type AgentMode, limitInWords, prepareAgentWait, refuseAgentWait } from '../agent';
import {
	chatTriggerRan,
	queuedRunsOfThisNode,
	runsInLegacyOrder,
	servedByMcpTrigger,
} from './n8nInternals';

/**
 * The start of a wait of the "… and Wait for Result" operations. Before any call: a new key for
 * this wait, whose hash the execution keeps (storedWait.ts; the key itself only travels in the
 * candidates' Callback Data). After the calls were placed: the candidates to wait for, then
 * n8n's putExecutionToWait. The resume is resume.ts.
 */

/** One wait of one node run. */
interface Wait {
	key: string;
	/** When the wait's time limit (Wait at Most) passes, in seconds since 1970: the markers carry it, and the execution waits until then. */
	until: number;
	/** Wait at Most in words ("2 hours"), for an AI Agent's model. */
	limitInWords: string;
	/** The marker of the candidate of an input item. */
	markerOf(itemIndex: number): IDataObject;
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/**
 * `$execution.resumeUrl`, read once per run from n8n's own data of the execution (what the
 * expression engine would read, without the engine); through the engine only where that data has none.
 */
function executionResumeUrl(context: IExecuteFunctions): unknown {
	const execution = context.getWorkflowDataProxy(0).$execution as IDataObject | undefined;
	const resumeUrl = execution?.resumeUrl;
	return typeof resumeUrl === 'string'
		? resumeUrl
		: context.evaluateExpression('{{ $execution.resumeUrl }}', 0);
}

/**
 * What the trigger needs of `$execution.resumeUrl` (`<n8n>/<waiting path>/<execution>[?signature=…]`):
 * the resume token (n8n 2.x; '' on 1.x, whose resume URL has none) and the waiting path.
 */
function resumeAddressOf(resumeUrl: unknown, execution: string): { token: string; path?: string } {
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

/**
 * The key (and time limit) of each node run's wait in this process, so that n8n's Retry On Fail (a
 * new try of the same node run) marks the candidates it sends the same way as the candidates an
 * earlier try created (which it does not send again). Each run of the node is a wait of its own: an
 * AI Agent calls its waiting tool again in the same execution once it has read the first result,
 * and a loop runs the node once per pass.
 */
const keysOfRuns = processMemory<{ key: string; until: number }>('waitKeysOfNodeRuns');

/** Execution, node and run index: the same for every try of Retry On Fail, another for the node's next run. */
function nodeRunOf(context: IExecuteFunctions, execution: string): string {
	const runIndex = context.getWorkflowDataProxy(0).$runIndex;
	return JSON.stringify([
		execution,
		context.getNode().id,
		typeof runIndex === 'number' ? runIndex : 0,
	]);
}

/** Wait at Most, read once per try: in milliseconds, and in words. */
function readWaitAtMost(context: IExecuteFunctions): { ms: number; words: string } {
	const given = Number(context.getNodeParameter('waitAtMost', 0, 1));
	const amount = Math.max(1, Number.isFinite(given) ? given : 1);
	const unit = String(context.getNodeParameter('waitUnit', 0, 'days'));
	return { ms: amount * (UNIT_MS[unit] ?? UNIT_MS.days), words: limitInWords(amount, unit) };
}

/**
 * Before anyone is called: when n8n's SSRF protection blocks n8n's own waiting address (where the
 * trigger hands the result over), no wait could end, so nothing is sent and the error names the
 * setting that allows it. Asked of n8n's own egress filter (n8n 2.x; nothing is sent).
 */
async function refuseBlockedWait(context: IExecuteFunctions, resumeUrl: unknown): Promise<void> {
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

/**
 * Starts a wait before anything is sent: its key and its time limit, computed once per node run. The
 * time limit goes into the markers and is the wait's own end: a result that finds the execution
 * finished after it came late, and starts the trigger's workflow instead. A later try of Retry On
 * Fail keeps both, so that the candidates an earlier try created still match the wait.
 */
function startWait(context: IExecuteFunctions, resumeUrl: unknown): Wait {
	const execution = context.getExecutionId();
	const node = context.getNode().id;
	const run = nodeRunOf(context, execution);
	const waitAtMost = readWaitAtMost(context);
	const { key, until } = keysOfRuns.get(run) ?? {
		key: randomBytes(32).toString('hex'),
		until: Math.floor((Date.now() + waitAtMost.ms) / 1000),
	};
	keysOfRuns.set(run, { key, until });
	const address = resumeAddressOf(resumeUrl, execution);
	return {
		key,
		until,
		limitInWords: waitAtMost.words,
		markerOf: (item) => ({ execution, ...address, node, item, key, until }),
	};
}

/**
 * The operation of one waiting run: each candidate's Callback Data gets the wait's marker, next to
 * (never instead of) the user's own Callback Data.
 */
function markedForWait(
	operation: ItemOperation<ApiRequest>,
	wait: Wait,
): ItemOperation<ApiRequest> {
	return {
		...operation,
		prepare(run) {
			const prepareItem = operation.prepare(run);
			return (itemIndex) => {
				const request = prepareItem(itemIndex);
				const body = request.body as IDataObject;
				const userData = (body.callbackData ?? {}) as IDataObject;
				return {
					...request,
					body: {
						...body,
						callbackData: { ...userData, [WAIT_MARKER_FIELD]: wait.markerOf(itemIndex) },
					},
				};
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
	agentMode: AgentMode,
	run: (marked: ItemOperation<ApiRequest>) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	// An AI Agent's tool: refused before anything is sent where the agent could not read the result.
	if (agentMode !== 'none') {
		refuseAgentWait(context, {
			legacyOrder: runsInLegacyOrder(context),
			startedByChat: chatTriggerRan(context),
			insideAgentRun: agentMode === 'toolInsideAgentRun',
			servedOverMcp: servedByMcpTrigger(context),
		});
	}
	const resumeUrl = executionResumeUrl(context);
	await refuseBlockedWait(context, resumeUrl);
	const wait = startWait(context, resumeUrl);
	let output: INodeExecutionData[];
	try {
		output = await run(markedForWait(operation, wait));
	} catch (error) {
		// An error may quote the request, and with it the wait's key.
		const failure = error as Error & { description?: string };
		failure.message = scrub(failure.message, wait.key);
		if (typeof failure.description === 'string')
			failure.description = scrub(failure.description, wait.key);
		throw failure;
	}
	return await waitForCandidates(context, wait, output, agentMode);
}

/** Removes the wait's key from whatever the node outputs or throws (an error may quote the request). */
function scrub<T>(value: T, key: string): T {
	if (typeof value === 'string') return value.split(key).join('***') as T;
	if (Array.isArray(value)) return value.map((entry) => scrub(entry, key)) as T;
	if (isPlainObject(value)) {
		const clean: IDataObject = {};
		for (const [name, entry] of Object.entries(value))
			if (name !== WAIT_MARKER_FIELD) clean[name] = scrub(entry, key);
		return clean as T;
	}
	return value;
}

/**
 * After the calls were placed: waits for the candidates that were created. When none was, the
 * node goes on at once with its output (error items say why).
 */
async function waitForCandidates(
	context: IExecuteFunctions,
	wait: Wait,
	output: INodeExecutionData[],
	agentMode: AgentMode,
): Promise<INodeExecutionData[]> {
	const created = output
		.filter(
			(item) =>
				typeof item.json.autoCallCandidateId === 'string' ||
				typeof item.json.autoCallCandidateId === 'number',
		)
		.map((item) => (item.pairedItem as { item: number }).item);
	const items = [...new Set(created)].sort((a, b) => a - b);
	const clean = output.map((item) => ({ ...item, json: scrub(item.json, wait.key) }));
	if (items.length === 0) return clean;
	// The entries left out of a waited item's phone list go into its result too.
	const skippedNumbers: IDataObject = {};
	for (const item of clean) {
		const index = (item.pairedItem as { item: number }).item;
		if (item.json.skippedNumbers !== undefined && items.includes(index))
			skippedNumbers[String(index)] = item.json.skippedNumbers;
	}
	keepWait(context, wait.key, items, skippedNumbers);
	if (agentMode !== 'none')
		prepareAgentWait(context, wait.limitInWords, queuedRunsOfThisNode(context));
	await context.putExecutionToWait(new Date(wait.until * 1000));
	return clean.map((item) => ({ ...item, json: { ...item.json, outcome: 'waiting' } }));
}
