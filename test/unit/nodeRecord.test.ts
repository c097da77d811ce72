import type { IExecuteFunctions } from 'n8n-workflow';

import { recordOf } from '../../nodes/shared/record';

/** An execute context whose n8n database fails every de-duplication call, with a logger that counts. */
function contextWithFailingDatabase(nodeId: string) {
	const warnings: string[] = [];
	const context = {
		getNode: () => ({ id: nodeId, name: 'Call' }),
		getWorkflow: () => ({ id: 'workflow-1' }),
		logger: { warn: (message: string) => warnings.push(message) },
		helpers: {
			checkProcessedAndRecord: async () => {
				throw new Error('connection refused');
			},
			removeProcessed: async () => {
				throw new Error('connection refused');
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, warnings };
}

describe("a node's record when n8n's database cannot be asked", () => {
	test("falls back to this process's memory, which still finds what was recorded, and warns in n8n's log once", async () => {
		const { context, warnings } = contextWithFailingDatabase('node-a');
		const first = recordOf(context);
		expect([...(await first.checkAndRecord(['k1', 'k2']))]).toEqual([]);
		expect(first.durable).toBe(false);
		const second = recordOf(context);
		expect([...(await second.checkAndRecord(['k2', 'k3']))]).toEqual(['k2']);
		expect(
			await second.alone(async (record) => [...(await record.checkAndRecord(['k3']))]),
		).toEqual(['k3']);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(
			/n8n's database could not be asked \(connection refused\).*kept in this process only/,
		);
	});

	test('another node warns for itself', async () => {
		const { context, warnings } = contextWithFailingDatabase('node-b');
		await recordOf(context).checkAndRecord(['k1']);
		expect(warnings).toHaveLength(1);
	});
});

describe("a node's record when another process inserts its row at the same moment", () => {
	test("the insert that lost (a duplicate key, nothing written) is asked again and finds the row: the record stays in n8n's database", async () => {
		const warnings: string[] = [];
		const asked: string[][] = [];
		const row = new Set<string>(['k0']);
		const context = {
			getNode: () => ({ id: 'node-insert-race', name: 'Call' }),
			getWorkflow: () => ({ id: 'workflow-1' }),
			logger: { warn: (message: string) => warnings.push(message) },
			helpers: {
				checkProcessedAndRecord: async (items: string[]) => {
					asked.push(items);
					if (asked.length === 1)
						throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
					const processed = items.filter((item) => row.has(item));
					for (const item of items) row.add(item);
					return { new: items.filter((item) => !processed.includes(item)), processed };
				},
				removeProcessed: async () => undefined,
			},
		} as unknown as IExecuteFunctions;
		const record = recordOf(context);
		expect([...(await record.checkAndRecord(['k0', 'k1']))]).toEqual(['k0']);
		expect(record.durable).toBe(true);
		expect(asked[0]).toEqual(asked[1]);
		expect(warnings).toEqual([]);
	});
});
