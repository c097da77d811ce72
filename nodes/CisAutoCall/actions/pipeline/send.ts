import type { IDataObject } from 'n8n-workflow';

import { mapWithConcurrency } from '../concurrency';
import type { BatchOperation, ItemOperation, Operation, Run } from '../operation';
import type { Outcomes } from './outcome';

/**
 * Sends the prepared items with the run's concurrency and records each item's outcome. Without
 * Continue On Fail, the first failure stops the sending: items not yet started stay unsent.
 */
export async function sendAll(
	run: Run,
	operation: Operation,
	prepared: Map<number, unknown>,
	outcomes: Outcomes,
): Promise<void> {
	if (operation.kind === 'item') await sendPerItem(run, operation, prepared, outcomes);
	else await sendBatches(run, operation, prepared as Map<number, IDataObject>, outcomes);
}

async function sendPerItem(
	run: Run,
	operation: ItemOperation,
	prepared: Map<number, unknown>,
	outcomes: Outcomes,
): Promise<void> {
	let stopped = false;
	await sendFirstAlone([...prepared.keys()], run.settings.concurrency, async (itemIndex) => {
		if (stopped) return;
		try {
			outcomes.succeed(itemIndex, await operation.execute(run, prepared.get(itemIndex), itemIndex));
		} catch (error) {
			if (!outcomes.failRequest([itemIndex], error)) stopped = true;
		}
	});
}

/**
 * The item indexes of each request of a batch operation: entries of one group in item order,
 * `batchSize` per request; entries of different groups never share a request.
 */
export function chunkByGroup<Entry>(
	entries: Iterable<[number, Entry]>,
	groupOf: (entry: Entry) => string,
	batchSize: number,
): number[][] {
	const groups = new Map<string, number[]>();
	for (const [itemIndex, entry] of entries) {
		const group = groupOf(entry);
		const members = groups.get(group);
		if (members) members.push(itemIndex);
		else groups.set(group, [itemIndex]);
	}
	const chunks: number[][] = [];
	for (const itemIndexes of groups.values()) {
		for (let start = 0; start < itemIndexes.length; start += batchSize) {
			chunks.push(itemIndexes.slice(start, start + batchSize));
		}
	}
	return chunks;
}

async function sendBatches(
	run: Run,
	operation: BatchOperation,
	prepared: Map<number, IDataObject>,
	outcomes: Outcomes,
): Promise<void> {
	const chunks = chunkByGroup(
		prepared,
		(entry) => operation.groupOf?.(run, entry) ?? '',
		run.settings.batchSize,
	);
	const sendChunk = operation.chunkSender(run);
	let stopped = false;
	await sendFirstAlone(chunks, run.settings.concurrency, async (chunk) => {
		if (stopped) return;
		try {
			const results = await sendChunk(
				chunk.map((itemIndex) => prepared.get(itemIndex) as IDataObject),
				chunk,
			);
			chunk.forEach((itemIndex, position) => outcomes.succeed(itemIndex, results[position]));
		} catch (error) {
			if (!outcomes.failRequest(chunk, error)) stopped = true;
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
async function sendFirstAlone<T>(
	inputs: T[],
	concurrency: number,
	task: (input: T) => Promise<void>,
): Promise<void> {
	if (inputs.length === 0) return;
	await task(inputs[0]);
	await mapWithConcurrency(inputs.slice(1), concurrency, task);
}
