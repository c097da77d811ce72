/**
 * n8n keeps the de-duplication helpers' entries (`checkProcessedAndRecord`, `removeProcessed`) in
 * its database, one list per workflow and node (context `n:<node id>`). This stands in for that
 * database inside the test process: it keeps the entries the same way (mode "entries", newest
 * last, trimmed to `maxEntries`), so that a second execution sees what the first recorded.
 *
 * Like n8n's DeduplicationHelper (n8n 1.123 and 2.41: `findOne`, then `update` of the whole row), a
 * call reads the list, lets other work run (the database's answer), and writes back what it read
 * plus its own change: two calls at once drop one another's entries, as they do in n8n.
 */
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

function contextKey(scope: DeduplicationScope, data: ICheckProcessedContextData): string {
	if (scope === 'node' && !data.node)
		throw new Error("No node information has been provided and so cannot use scope 'node'");
	if (!data.workflow.id) throw new Error('The workflow has no id');
	return JSON.stringify([data.workflow.id, scope === 'node' ? `n:${data.node!.id}` : '']);
}

export class InMemoryDeduplicator implements IDataDeduplicator {
	/** workflow + context → recorded values, oldest first (what n8n's processed_data row holds). */
	readonly lists = new Map<string, string[]>();

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		data: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error('The harness keeps mode "entries" only');
		const key = contextKey(scope, data);
		const list = await this.read(key);
		const seen = new Set(list);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			if (seen.has(String(item))) output.processed.push(item);
			else {
				output.new.push(item);
				list.push(String(item));
			}
		}
		if (options.maxEntries) list.splice(0, Math.max(0, list.length - options.maxEntries));
		this.lists.set(key, list);
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		data: ICheckProcessedContextData,
	): Promise<void> {
		const key = contextKey(scope, data);
		if (!this.lists.has(key)) return;
		const list = await this.read(key);
		for (const item of items) {
			const index = list.indexOf(String(item));
			if (index !== -1) list.splice(index, 1);
		}
		this.lists.set(key, list);
	}

	/** A copy of the row as n8n's `findOne` returns it, after the database's answer has come. */
	private async read(key: string): Promise<string[]> {
		const row = [...(this.lists.get(key) ?? [])];
		await new Promise((resolve) => setImmediate(resolve));
		return row;
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		data: ICheckProcessedContextData,
	): Promise<void> {
		this.lists.delete(contextKey(scope, data));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		data: ICheckProcessedContextData,
	): Promise<number> {
		return this.lists.get(contextKey(scope, data))?.length ?? 0;
	}
}

/** The harness's stand-in for n8n's database of de-duplication entries (see setup.ts). */
export const harnessDeduplicator = new InMemoryDeduplicator();
