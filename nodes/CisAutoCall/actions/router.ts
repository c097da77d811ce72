import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { fingerprintOf } from '../../shared/fingerprint';
import {
	agentFailure,
	agentSuccess,
	callLedger,
	capRefusal,
	checkAllowedNumbers,
	type AgentFailureKind,
	type Guardrails,
	ledgerKeyOf,
	readGuardrails,
	runsAsAgentTool,
} from '../../shared/guardrails';
import { perRunParameters } from '../../shared/parameters';
import { readRunSettings } from '../../shared/requestOptions';
import { createApiClient } from '../../shared/transport';
import { InputError } from '../../shared/validation';
import { mapWithConcurrency } from './concurrency';
import type { BatchOperation, ItemOperation, Run } from './operation';
import { operations } from './resources';
import {
	mayHaveCreated,
	NotSentError,
	type Outcome as SentOutcome,
	retryMemory,
	type RunRecord,
	runKeyOf,
} from './retryMemory';

type Outcome = SentOutcome | undefined;

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	if (!runsAsAgentTool(this)) return await runItems.call(this, false);
	// As an AI Agent's tool the node never throws: the model reads short text for every item, and
	// nothing makes n8n run it again (its Retry On Fail re-runs a node that threw).
	try {
		return await runItems.call(this, true);
	} catch (error) {
		const kind: AgentFailureKind = error instanceof NotSentError ? 'refused' : 'failed';
		return [this.getInputData().map((_, item) => ({ json: agentFailure(kind, error as Error), pairedItem: { item } }))];
	}
}

/**
 * The one place that walks the items: checks every item first (no request is sent while any
 * input is bad, unless Continue On Fail turns bad items into error items), then sends with the
 * run's concurrency, and returns one output per item (or an error item) with pairedItem. As an AI
 * Agent's tool, every item gives the model's short text instead, and nothing is thrown.
 */
async function runItems(this: IExecuteFunctions, asAgentTool: boolean): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	// A tool gives one answer per item, like Continue On Fail.
	const continueOnFail = asAgentTool || this.continueOnFail();
	let settings;
	let guardrails: Guardrails | undefined;
	try {
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		settings = readRunSettings(options, { batch: operation.kind === 'batch' });
		if (operation.dialledPhones) guardrails = readGuardrails(options, asAgentTool);
	} catch (error) {
		throw inputError(this, error, 0);
	}
	const client = await createApiClient(this, settings);
	// Only a node with Retry On Fail is run again with the same items.
	const remembers = operation.creates && this.getNode().retryOnFail === true;
	const runKey = remembers ? runKeyOf(this) : undefined;
	const record = retryMemory.recordFor(runKey);
	const run: Run = { context: this, items, client, settings, parameter: perRunParameters(this), record };

	// Not sparse: summarizeFailure walks it with forEach, which would skip never-sent items.
	const outcomes: Outcome[] = Array.from({ length: items.length }, () => undefined);
	const prepared = prepareAll(run, operation, outcomes, continueOnFail);
	const fingerprints = remembers ? takeEarlierTries(run, prepared, outcomes) : undefined;
	const booking = guardrails ? applyGuardrails(run, operation, guardrails, prepared, outcomes, continueOnFail) : undefined;

	if (operation.kind === 'item') {
		await sendPerItem(run, operation, prepared, outcomes, continueOnFail);
	} else {
		await sendBatches(run, operation, prepared as Map<number, IDataObject>, outcomes, continueOnFail);
	}

	const failed = outcomes.findIndex((outcome) => outcome && !outcome.ok);
	if (fingerprints) {
		remember(record, fingerprints, outcomes);
		// n8n tries again only after a failure (a thrown error, or an error as the first output item).
		if (failed === -1) retryMemory.forget(runKey);
		else retryMemory.keep(runKey, record);
	}
	if (booking) releaseUnstarted(booking, outcomes);
	if (asAgentTool) return [agentOutput(operation, outcomes)];
	if (failed !== -1 && !continueOnFail) throw summarizeFailure(this, outcomes, failed);

	const output: INodeExecutionData[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (!outcome) return;
		if (outcome.ok) {
			for (const json of Array.isArray(outcome.json) ? outcome.json : [outcome.json]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} else {
			output.push({ json: errorJson(outcome.error), pairedItem: { item: itemIndex } });
		}
	});
	return [output];
}

function prepareAll(
	run: Run,
	operation: ItemOperation | BatchOperation,
	outcomes: Outcome[],
	continueOnFail: boolean,
): Map<number, unknown> {
	const prepared = new Map<number, unknown>();
	let prepareItem: (itemIndex: number) => unknown;
	try {
		prepareItem = operation.prepare(run);
	} catch (error) {
		throw inputError(run.context, error, 0);
	}
	for (let itemIndex = 0; itemIndex < run.items.length; itemIndex++) {
		try {
			prepared.set(itemIndex, prepareItem(itemIndex));
		} catch (error) {
			const failure = inputError(run.context, error, itemIndex);
			if (!continueOnFail) throw failure;
			outcomes[itemIndex] = { ok: false, error: failure };
		}
	}
	return prepared;
}

/**
 * Items that an earlier try of this node run created (or left with an unknown outcome) are not
 * sent again: they keep that try's result. Returns the fingerprints of the items still to send.
 */
function takeEarlierTries(run: Run, prepared: Map<number, unknown>, outcomes: Outcome[]): Map<number, string> {
	const fingerprints = new Map<number, string>();
	for (const [itemIndex, value] of prepared) {
		const fingerprint = fingerprintOf(value);
		const earlier = run.record.items.get(itemIndex);
		if (!earlier) {
			fingerprints.set(itemIndex, fingerprint);
			continue;
		}
		prepared.delete(itemIndex);
		outcomes[itemIndex] =
			earlier.fingerprint === fingerprint
				? earlier.outcome
				: {
						ok: false,
						error: new NodeOperationError(
							run.context.getNode(),
							`Not sent again: an earlier try of this node already sent this item, and its request has changed since [item ${itemIndex}]`,
							{
								itemIndex,
								description:
									'n8n\'s Retry On Fail ran the node again, and this item now gives a different request (an expression with the time or a random value?). It may already have created a candidate or a task, so it was not sent a second time. Check the service.',
							},
						),
					};
	}
	return fingerprints;
}

/** Records what this try created or may have created, for the next try. */
function remember(record: RunRecord, fingerprints: Map<number, string>, outcomes: Outcome[]): void {
	for (const [itemIndex, fingerprint] of fingerprints) {
		const outcome = outcomes[itemIndex];
		if (outcome && (outcome.ok || mayHaveCreated(outcome.error))) record.items.set(itemIndex, { fingerprint, outcome });
	}
}

interface Booking {
	key: string | undefined;
	itemIndexes: number[];
}

/**
 * Allowed Numbers refuses each candidate with a number outside them; then the calls of the run are
 * booked against Max Calls per Run, all or none: a run that would go beyond it is refused whole.
 * Nothing is sent for a refused item. Returns the booking when a cap applies.
 */
function applyGuardrails(
	run: Run,
	operation: ItemOperation | BatchOperation,
	guardrails: Guardrails,
	prepared: Map<number, unknown>,
	outcomes: Outcome[],
	continueOnFail: boolean,
): Booking | undefined {
	const phonesOf = operation.dialledPhones as (prepared: unknown) => string[];
	for (const [itemIndex, value] of prepared) {
		try {
			checkAllowedNumbers(phonesOf(value), guardrails.allowedNumbers);
		} catch (error) {
			const failure = inputError(run.context, error, itemIndex);
			if (!continueOnFail) throw failure;
			outcomes[itemIndex] = { ok: false, error: failure };
			prepared.delete(itemIndex);
		}
	}
	if (guardrails.maxCalls === undefined || prepared.size === 0) return undefined;
	const key = ledgerKeyOf(run.context);
	const itemIndexes = [...prepared.keys()];
	if (callLedger.book(key, itemIndexes.length, guardrails.maxCalls)) return { key, itemIndexes };
	const refusal = capRefusal(guardrails, callLedger.used(key), itemIndexes.length);
	if (!continueOnFail) throw inputError(run.context, refusal, itemIndexes[0]);
	for (const itemIndex of itemIndexes) outcomes[itemIndex] = { ok: false, error: inputError(run.context, refusal, itemIndex) };
	prepared.clear();
	return undefined;
}

/** Booked calls that were not sent, or that the service refused (4xx), did not start: they do not count. */
function releaseUnstarted(booking: Booking, outcomes: Outcome[]): void {
	const unstarted = booking.itemIndexes.filter((itemIndex) => {
		const outcome = outcomes[itemIndex];
		return !outcome || (!outcome.ok && !mayHaveCreated(outcome.error));
	});
	callLedger.release(booking.key, unstarted.length);
}

/** What the model reads: per item an `outcome`, with the ids or with a short message. */
function agentOutput(operation: ItemOperation | BatchOperation, outcomes: Outcome[]): INodeExecutionData[] {
	const output: INodeExecutionData[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (!outcome) return;
		if (outcome.ok) {
			for (const json of Array.isArray(outcome.json) ? outcome.json : [outcome.json]) {
				output.push({ json: agentSuccess(json), pairedItem: { item: itemIndex } });
			}
			return;
		}
		const kind: AgentFailureKind =
			outcome.error instanceof NotSentError
				? 'refused'
				: operation.creates && mayHaveCreated(outcome.error)
					? 'unknown'
					: 'failed';
		output.push({ json: agentFailure(kind, outcome.error), pairedItem: { item: itemIndex } });
	});
	return output;
}

async function sendPerItem(
	run: Run,
	operation: ItemOperation,
	prepared: Map<number, unknown>,
	outcomes: Outcome[],
	continueOnFail: boolean,
): Promise<void> {
	let stopped = false;
	await sendFirstAlone([...prepared.keys()], run.settings.concurrency, async (itemIndex) => {
		if (stopped) return;
		try {
			outcomes[itemIndex] = { ok: true, json: await operation.execute(run, prepared.get(itemIndex), itemIndex) };
		} catch (error) {
			outcomes[itemIndex] = { ok: false, error: asNodeError(run.context, error, itemIndex) };
			if (!continueOnFail) stopped = true;
		}
	});
}

async function sendBatches(
	run: Run,
	operation: BatchOperation,
	prepared: Map<number, IDataObject>,
	outcomes: Outcome[],
	continueOnFail: boolean,
): Promise<void> {
	const groups = new Map<string, number[]>();
	for (const [itemIndex, entry] of prepared) {
		const group = operation.groupOf?.(run, entry) ?? '';
		const members = groups.get(group);
		if (members) members.push(itemIndex);
		else groups.set(group, [itemIndex]);
	}
	const chunks: number[][] = [];
	for (const itemIndexes of groups.values()) {
		for (let start = 0; start < itemIndexes.length; start += run.settings.batchSize) {
			chunks.push(itemIndexes.slice(start, start + run.settings.batchSize));
		}
	}
	const sendChunk = operation.chunkSender(run);
	let stopped = false;
	await sendFirstAlone(chunks, run.settings.concurrency, async (chunk) => {
		if (stopped) return;
		try {
			const results = await sendChunk(
				chunk.map((itemIndex) => prepared.get(itemIndex) as IDataObject),
				chunk,
			);
			chunk.forEach((itemIndex, position) => {
				outcomes[itemIndex] = { ok: true, json: results[position] };
			});
		} catch (error) {
			const failure = asNodeError(run.context, error, chunk[0]);
			for (const itemIndex of chunk) outcomes[itemIndex] = { ok: false, error: failure };
			if (!continueOnFail) stopped = true;
		}
		// What was prepared for a sent chunk is not needed again: with 100,000 items it adds up.
		for (const itemIndex of chunk) prepared.delete(itemIndex);
	});
}

/**
 * The first request goes alone: with the login credential it obtains the token that all others
 * then reuse (concurrent first requests would each log in), and Create Batch's first request
 * creates the call task that the others join.
 */
async function sendFirstAlone<T>(inputs: T[], concurrency: number, task: (input: T) => Promise<void>): Promise<void> {
	if (inputs.length === 0) return;
	await task(inputs[0]);
	await mapWithConcurrency(inputs.slice(1), concurrency, task);
}

/** Bad input and refusals: the item is not sent. */
function inputError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof InputError) {
		return new NotSentError(context.getNode(), `${error.message} [item ${itemIndex}]`, {
			itemIndex,
			description: `Field "${error.field}" of item ${itemIndex}. Nothing was sent to the service.`,
		});
	}
	return asNodeError(context, error, itemIndex);
}

function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InputError) return inputError(context, error, itemIndex);
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

function errorJson(error: Error): IDataObject {
	const json: IDataObject = { error: error.message };
	const description = (error as NodeApiError).description;
	if (description) json.description = description;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) json.httpCode = httpCode;
	return json;
}

const ID_KEYS = ['autoCallCandidateId', 'autoCallId', 'callId', 'id'];

function idOf(json: IDataObject | IDataObject[]): string | undefined {
	const first = Array.isArray(json) ? json[0] : json;
	const key = first && ID_KEYS.find((name) => typeof first[name] === 'string');
	return key ? `${key} ${String(first[key])}` : undefined;
}

function listItems(indexes: number[]): string {
	return indexes.length > 50 ? `${indexes.slice(0, 50).join(', ')} and ${indexes.length - 50} more` : indexes.join(', ');
}

/**
 * n8n discards a failed node's output, so the error itself says what was already done (with ids)
 * and what was not, for the user to resume without creating anything twice.
 */
function summarizeFailure(context: IExecuteFunctions, outcomes: Outcome[], firstFailed: number): Error {
	const first = (outcomes[firstFailed] as { error: Error }).error;
	const done: string[] = [];
	const failed: number[] = [];
	const notSent: number[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (!outcome || (!outcome.ok && outcome.error instanceof NotSentError)) notSent.push(itemIndex);
		else if (outcome.ok) {
			const id = idOf(outcome.json);
			done.push(id ? `${itemIndex} (${id})` : String(itemIndex));
		}
		else failed.push(itemIndex);
	});
	if (done.length === 0 && notSent.length === 0 && failed.length === 1) return first;
	const lines = [
		(first as NodeApiError).description ?? '',
		`Succeeded before the stop: ${done.length === 0 ? 'none' : done.length > 50 ? `${done.slice(0, 50).join(', ')} and ${done.length - 50} more` : done.join(', ')}.`,
		failed.length > 0 ? `Failed: items ${listItems(failed)}.` : '',
		notSent.length > 0 ? `Not sent: items ${listItems(notSent)}.` : '',
		'n8n discards the output of a failed node: to resume without duplicates, run again only the failed and unsent items, or turn on "Continue On Fail" to get one output per item.',
	].filter(Boolean);
	const itemMark = `[item ${firstFailed}]`;
	const message = first.message.endsWith(itemMark) ? first.message : `${first.message} ${itemMark}`;
	if (first instanceof NodeApiError) {
		return new NodeApiError(context.getNode(), { httpCode: first.httpCode, message }, {
			message,
			description: lines.join('\n'),
			httpCode: first.httpCode ?? undefined,
			itemIndex: firstFailed,
		});
	}
	return new NodeOperationError(context.getNode(), message, { itemIndex: firstFailed, description: lines.join('\n') });
}
