/**
 * The parts of the benchmark that need no real n8n: the simulator process and its control API,
 * the undici floor, the accounting of rows (created / duplicated / error / lost), the workflow
 * JSON of every contender, and the report. The full smoke run with a real n8n is
 * `node test/bench/run.js --smoke` (about 1 min; not part of `jest`).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { startSimulator, summarizeRequests } = require('./lib/simulator');
const { floorSingle, floorBatch } = require('./lib/floor');
const { account } = require('./lib/accounting');
const { contenderWorkflow, phoneOf, row, rowsCode, CONTENDER, ROWS } = require('./lib/workflows');
const { contendersFor } = require('./lib/scenarios');
const { render, smokeChecks, evaluateTargets } = require('./lib/report');

jest.setTimeout(60000);

describe('bench without n8n', () => {
	let sim: {
		url: string;
		token: string;
		control: Record<string, (...a: unknown[]) => Promise<any>>;
		stop(): Promise<void>;
	};

	beforeAll(async () => {
		sim = await startSimulator({ latencyMs: 0 });
	});
	afterAll(async () => {
		await sim.stop();
	});

	test('the floor sends one valid 4.4 request per row and the accounting sees every row created once', async () => {
		await sim.control.reset();
		const f = await floorSingle({ url: sim.url, token: sim.token, count: 50, concurrency: 10 });
		expect(f.statuses).toEqual({ 200: 50 });
		expect(f.ms).toBeGreaterThan(0);
		const counts = await sim.control.counts();
		expect(counts.duplicates).toBe(0);
		const acc = account({ rows: 50, createdByPhone: counts.createdByPhone, items: [] });
		expect(acc).toMatchObject({ created: 50, duplicated: 0, notCreated: 0, lost: 0 });
		const summary = summarizeRequests(await sim.control.requests());
		expect(summary.total).toBe(50);
		expect(summary.byStatus).toEqual({ 200: 50 });
	});

	test('the batch floor sends ceil(rows / batchSize) 4.5 requests', async () => {
		await sim.control.reset();
		const f = await floorBatch({
			url: sim.url,
			token: sim.token,
			count: 50,
			batchSize: 20,
			concurrency: 2,
		});
		expect(f.statuses).toEqual({ 200: 3 });
		const counts = await sim.control.counts();
		expect(account({ rows: 50, createdByPhone: counts.createdByPhone }).created).toBe(50);
	});

	test('the service limit and the fault rate reach the simulator (429s, faults counted)', async () => {
		await sim.control.reset();
		await sim.control.rateLimit({ perSecond: 5, inFlight: 2 });
		const f = await floorSingle({ url: sim.url, token: sim.token, count: 20, concurrency: 4 });
		expect(f.statuses[429]).toBeGreaterThan(0);
		const summary = summarizeRequests(await sim.control.requests());
		expect(summary.rateLimited).toBe(f.statuses[429]);
		expect(summary.maxPerSecond).toBeGreaterThan(0);

		await sim.control.reset();
		await sim.control.faultRate({ rate: 1, kinds: ['after503'], seed: 1 });
		const g = await floorSingle({ url: sim.url, token: sim.token, count: 5, concurrency: 1 });
		expect(g.statuses).toEqual({ 503: 5 });
		// 'after503' creates the candidate, then fails: outcome unknown
		expect((await sim.control.counts()).total).toBe(5);
	});
});

describe('accounting', () => {
	const created = (indexes: number[], times = 1) =>
		Object.fromEntries(indexes.map((i) => [phoneOf(i), times]));

	test('error items are reported rows; rows neither created nor reported are lost', () => {
		const items = [
			{ json: { autoCallCandidateId: 'a' }, pairedItem: { item: 0 } },
			{ json: { error: 'Outcome unknown' }, pairedItem: { item: 1 } },
			{ json: { error: 'The service answered 429' }, pairedItem: { item: 2 } },
		];
		const acc = account({
			rows: 4,
			createdByPhone: { ...created([0, 1]), [phoneOf(3)]: 0 },
			items,
		});
		expect(acc).toMatchObject({
			created: 2,
			errorItems: 2,
			errorButCreated: 1,
			okItems: 1,
			lost: 1,
			duplicated: 0,
		});
	});

	test('duplicates count every creation after the first; a failed node has no lost rows but is marked', () => {
		const acc = account({
			rows: 3,
			createdByPhone: created([0, 1, 2], 3),
			items: [],
			nodeFailed: true,
		});
		expect(acc).toMatchObject({ created: 3, duplicated: 6, lost: null, nodeFailed: true });
	});

	test('an item reported OK whose row was never created counts as lost', () => {
		const acc = account({
			rows: 1,
			createdByPhone: {},
			items: [{ json: { id: 'x' }, pairedItem: { item: 0 } }],
		});
		expect(acc).toMatchObject({ okButNotCreated: 1, lost: 1 });
	});
});

describe('workflows', () => {
	const credential = { id: '7', name: 'bench simulator' };
	const all = [1, 2, 3, 4, 6]
		.flatMap((s) => contendersFor(s, { candidates: true }))
		.concat(contendersFor(1, { smoke: true }), contendersFor(6, { smoke: true }));

	test('every scenario that measures Create and Run has a row with no option set (the defaults), and ids are unique', () => {
		for (const s of [1, 2, 3, 6]) {
			const defaults = contendersFor(s).filter((c: { id: string }) => /defaults$/.test(c.id));
			expect(defaults.length).toBeGreaterThan(0);
			for (const c of defaults) expect(c.options).toEqual({});
			const ids = contendersFor(s, { candidates: true }).map((c: { id: string }) => c.id);
			expect(new Set(ids).size).toBe(ids.length);
		}
		expect(
			contendersFor(6, { smoke: true }).some(
				(c: { id: string }) => c.id === 'remote-car-items-defaults',
			),
		).toBe(true);
	});

	test.each(
		all.filter((c: { kind: string }) => c.kind !== 'floor').map((c: { id: string }) => [c.id, c]),
	)('%s: Manual Trigger → Code → contender, with the credential', (_id: string, spec: any) => {
		const wf = contenderWorkflow(spec, { count: 10, simUrl: 'http://127.0.0.1:1', credential });
		const names = wf.nodes.map((n: { name: string }) => n.name);
		if (spec.kind === 'rowsOnly') {
			expect(names).toEqual(['Start', ROWS]);
			return;
		}
		expect(names).toEqual(['Start', ROWS, CONTENDER]);
		expect(wf.connections[ROWS].main[0][0].node).toBe(CONTENDER);
		const node = wf.nodes[2];
		if (spec.kind === 'setNode') {
			expect(node.type).toBe('n8n-nodes-base.set');
			expect(node.parameters.assignments.assignments.map((a: { name: string }) => a.name)).toEqual([
				'autoCallId',
				'autoCallCandidateId',
				'phone',
			]);
			return;
		}
		expect(node.credentials).toEqual({ cisAutoCallApi: credential });
		if (spec.kind === 'http') {
			expect(node.type).toBe('n8n-nodes-base.httpRequest');
			const expressions = node.parameters.bodyParameters.parameters.filter((p: { value: string }) =>
				p.value.startsWith('='),
			);
			expect(expressions).toHaveLength(3);
		} else {
			expect(node.type).toBe('n8n-nodes-cis-autocall.cisAutoCall');
			expect(node.parameters.operation).toBe(spec.kind);
		}
		if (spec.settings && spec.settings.continueOnFail)
			expect(node.onError).toBe('continueRegularOutput');
		if (spec.settings && spec.settings.retryOnFail) expect(node.retryOnFail).toBe(true);
	});

	test('the Code node makes the same rows the floor sends', () => {
		const rows = new Function(rowsCode(3))() as Array<{ json: unknown }>;
		expect(rows.map((r) => r.json)).toEqual([row(0), row(1), row(2)]);
	});
});

describe('report', () => {
	const result = (over: Record<string, unknown>) => ({
		label: 'x',
		settings: 's',
		rows: 50,
		created: 50,
		duplicated: 0,
		errorItems: 0,
		okItems: 50,
		lost: 0,
		requests: 50,
		nodeMs: 500,
		...over,
	});

	test('renders the scenario table and the smoke checks pass on good numbers, fail on bad ones', () => {
		const report: any = {
			machine: {
				cpu: '2 × cpu',
				memGiB: 24,
				kernel: 'Linux',
				n8n: 'n8n 2.41.1',
				benchNode: 'v20',
				commit: 'abc',
				date: 'd',
			},
			loadStart: '0 0 0',
			args: { repeat: 1 },
			scenarios: {
				1: {
					rows: 50,
					service: { latencyMs: 10 },
					results: [
						result({ id: 'floor-c10', status: 'floor', statuses: { 200: 50 }, nodeMs: 100 }),
						result({ id: 'car-items-c10', status: 'success', floorId: 'floor-c10', nodeMs: 120 }),
					],
				},
			},
		};
		report.scenarios[6] = {
			rows: 50,
			service: { latencyMs: 40, connectionDelayMs: 80 },
			results: [
				result({
					id: 'remote-floor-c10',
					status: 'floor',
					statuses: { 200: 50 },
					nodeMs: 300,
					connections: 10,
				}),
				result({
					id: 'remote-car-adaptive',
					status: 'success',
					floorId: 'remote-floor-c10',
					nodeMs: 450,
					connections: 50,
				}),
			],
		};
		const trigger = (over: Record<string, unknown>) => ({
			label: 't',
			settings: 's',
			events: 20,
			executions: 20,
			succeeded: 20,
			statuses: { 200: 20 },
			...over,
		});
		report.scenarios[5] = {
			events: 20,
			concurrency: 10,
			configs: [
				{
					setting: 'n8n defaults',
					results: [
						trigger({ id: 'webhook-node', perSecond: 20 }),
						trigger({ id: 'cis-trigger', perSecond: 19, roundRatios: [0.95] }),
					],
				},
			],
		};
		report.scenarios[5].results = report.scenarios[5].configs[0].results;
		report.scenarios[5].unparsedBody = { status: 200, executions: 1 };
		const wait = (over: Record<string, unknown>) => ({
			label: 'w',
			settings: 's',
			leads: 20,
			candidates: 20,
			leadStatuses: { 200: 20 },
			resultStatuses: { 200: 20 },
			succeeded: 20,
			lost: 0,
			doubled: 0,
			mixed: 0,
			...over,
		});
		report.scenarios[7] = {
			leads: 20,
			leadConcurrency: 20,
			resultConcurrency: 20,
			rounds: 1,
			results: [
				wait({ id: 'cis-wait', leadsPerSecond: 11, resultsPerSecond: 13 }),
				wait({ id: 'diy-wait', leadsPerSecond: 10, resultsPerSecond: 10 }),
			],
		};
		report.text = render(report);
		expect(report.text).toMatch(/1\.10×/);
		expect(report.text).toMatch(/1\.30×/);
		expect(report.text).toMatch(/\| contender/);
		expect(report.text).toMatch(/1\.20×/);
		expect(report.text).toMatch(/0\.95×/);
		expect(report.text).toMatch(/1\.50× \(c=10\)/);
		expect(smokeChecks(report)).toEqual([]);
		expect(evaluateTargets(report)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					target: expect.stringMatching(/0\.9× the executions\/s/),
					met: true,
				}),
			]),
		);
		expect(evaluateTargets(report)[0]).toMatchObject({ met: true });
		expect(evaluateTargets(report)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					target: expect.stringMatching(/reach their waits ≥ 1\.0×/),
					met: true,
				}),
				expect.objectContaining({
					target: expect.stringMatching(/resume the executions ≥ 1\.2×/),
					met: true,
				}),
			]),
		);
		report.scenarios[2] = {
			rows: 50,
			service: { latencyMs: 10 },
			results: [
				result({ id: 'car-items-c10', rateLimited: 12 }),
				result({ id: 'car-items-defaults', rateLimited: 13 }),
			],
		};
		expect(evaluateTargets(report)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					target: expect.stringMatching(/no more 429s than at concurrency 10/),
					measured: 'failed 0, 429s 13 vs 12',
					met: false,
				}),
			]),
		);
		delete report.scenarios[2];

		report.scenarios[1].results[1] = result({
			id: 'car-items-c10',
			status: 'success',
			created: 49,
			duplicated: 1,
		});
		report.scenarios[5].configs[0].results[1] = trigger({
			id: 'cis-trigger',
			perSecond: 10,
			executions: 19,
		});
		report.scenarios[6].results[1] = result({
			id: 'remote-car-adaptive',
			status: 'success',
			connections: 0,
		});
		report.scenarios[5].unparsedBody = { status: 400, executions: 0 };
		report.scenarios[7].results[0] = wait({ id: 'cis-wait', succeeded: 19, lost: 1, mixed: 1 });
		report.scenarios[7].results[1] = wait({
			id: 'diy-wait',
			candidates: 19,
			resultStatuses: { 200: 19, 503: 1 },
		});
		expect(smokeChecks(report)).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/created 49/),
				expect.stringMatching(/1 duplicated/),
				expect.stringMatching(/cis-trigger: 19 executions for 20 events/),
				expect.stringMatching(/remote-car-adaptive \(remote\): no connection counted/),
				expect.stringMatching(/application\/octet-stream got 400/),
				expect.stringMatching(/cis-wait: 19 of 20 executions finished, lost 1, doubled 0, mixed 1/),
				expect.stringMatching(/diy-wait: 19 candidates created for 20 leads/),
				expect.stringMatching(/diy-wait: answers to leads .*503/),
			]),
		);
	});
});
