import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { agentFailure, agentSuccess, failureKindOf } from '../agent';
import type { SkippedNumber } from '../../../shared/phones';
import type { Operation } from '../operation';
import { NotSentError } from '../itemErrors';
import type { ItemOutcomes } from './outcome';

/** The node's output: each item's results, or (Continue On Fail) its error, with pairedItem. */
export function normalOutput(outcomes: ItemOutcomes): INodeExecutionData[] {
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
	return output;
}

/**
 * Each output item of an item whose phone list had entries left out names them (`skippedNumbers`:
 * the entry as written, and why), the error item of a list refused whole too.
 */
export function addSkippedNumbers(
	output: INodeExecutionData[],
	skipped: Map<number, SkippedNumber[]>,
): INodeExecutionData[] {
	if (skipped.size === 0) return output;
	return output.map((item) => {
		const itemIndex = (item.pairedItem as { item: number }).item;
		const entries = skipped.get(itemIndex);
		return entries
			? { ...item, json: { ...item.json, skippedNumbers: entries.map((entry) => ({ ...entry })) } }
			: item;
	});
}

/** What the model reads: per item an `outcome`, with the ids or with a short message. */
export function agentOutput(operation: Operation, outcomes: ItemOutcomes): INodeExecutionData[] {
	const output: INodeExecutionData[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (!outcome) return;
		if (outcome.ok) {
			for (const json of Array.isArray(outcome.json) ? outcome.json : [outcome.json]) {
				output.push({ json: agentSuccess(json), pairedItem: { item: itemIndex } });
			}
			return;
		}
		output.push({
			json: agentFailure(failureKindOf(outcome.error, operation.creates), outcome.error),
			pairedItem: { item: itemIndex },
		});
	});
	return output;
}

/** An error item's json (Continue On Fail): the message, and the description and status when there are. */
export function errorJson(error: Error): IDataObject {
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
	return indexes.length > 50
		? `${indexes.slice(0, 50).join(', ')} and ${indexes.length - 50} more`
		: indexes.join(', ');
}

/**
 * The lines of a failure summary after the first error's description: what succeeded (with ids),
 * what failed, what was not sent, and how to resume. Undefined when the first failed item is the
 * only item, so its own error says everything.
 */
export function failureSummaryLines(outcomes: ItemOutcomes): string[] | undefined {
	const done: string[] = [];
	const failed: number[] = [];
	const notSent: number[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (!outcome || (!outcome.ok && outcome.error instanceof NotSentError)) notSent.push(itemIndex);
		else if (outcome.ok) {
			const id = idOf(outcome.json);
			done.push(id ? `${itemIndex} (${id})` : String(itemIndex));
		} else failed.push(itemIndex);
	});
	if (done.length === 0 && notSent.length === 0 && failed.length === 1) return undefined;
	return [
		`Succeeded before the stop: ${done.length === 0 ? 'none' : done.length > 50 ? `${done.slice(0, 50).join(', ')} and ${done.length - 50} more` : done.join(', ')}.`,
		failed.length > 0 ? `Failed: items ${listItems(failed)}.` : '',
		notSent.length > 0 ? `Not sent: items ${listItems(notSent)}.` : '',
		'n8n discards the output of a failed node: to resume without duplicates, run again only the failed and unsent items, or turn on "Continue On Fail" to get one output per item.',
	].filter(Boolean);
}

/**
 * n8n discards a failed node's output, so the error itself says what was already done (with ids)
 * and what was not, for the user to resume without creating anything twice.
 */
export function summarizeFailure(
	context: IExecuteFunctions,
	outcomes: ItemOutcomes,
	firstFailed: number,
): Error {
	const first = (outcomes[firstFailed] as { error: Error }).error;
	const summary = failureSummaryLines(outcomes);
	if (!summary) return first;
	const description = [(first as NodeApiError).description ?? '', ...summary]
		.filter(Boolean)
		.join('\n');
	const itemMark = `[item ${firstFailed}]`;
	const message = first.message.endsWith(itemMark) ? first.message : `${first.message} ${itemMark}`;
	if (first instanceof NodeApiError) {
		return new NodeApiError(
			context.getNode(),
			{ httpCode: first.httpCode, message },
			{
				message,
				description,
				httpCode: first.httpCode ?? undefined,
				itemIndex: firstFailed,
			},
		);
	}
	return new NodeOperationError(context.getNode(), message, {
		itemIndex: firstFailed,
		description,
	});
}
