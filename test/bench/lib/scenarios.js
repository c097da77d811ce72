'use strict';
/** The contenders of each scenario. */

/** Service limit of scenario 2. */
const LIMIT = { perSecond: 50, inFlight: 10 };

/** Faults of scenario 3: 5% of API requests; 'after503'/'afterDrop' create first, then fail (outcome unknown). */
const FAULTS = { rate: 0.05, kinds: ['429', '503', 'drop', 'after503', 'afterDrop'], seed: 4242 };

const COF = { continueOnFail: true };

/**
 * Scenario 6, a remote service: every request takes 40 ms, and a new connection 80 ms more before
 * its first request (TCP and TLS handshakes). n8n opens a new connection per request of a node.
 */
const REMOTE = { latencyMs: 40, connectionDelayMs: 80, rows: 1000 };

function httpDefault(extra = {}) {
	return {
		id: 'http-default',
		label: 'HTTP Request',
		kind: 'http',
		settingsText: 'defaults',
		floorId: 'floor-c10',
		...extra,
	};
}

/** Create and Run with no option set at all: what a user gets without opening Options. */
function carDefaults(mode, extra = {}) {
	const what = mode === 'define' ? '3 expressions per item' : 'fields from items';
	return {
		id: `car-${mode === 'define' ? 'define' : 'items'}-defaults`,
		label: 'Create and Run',
		kind: 'createAndRun',
		mode,
		options: {},
		settingsText: `${what}, defaults (no option set)`,
		floorId: 'floor-c10',
		...extra,
	};
}

/**
 * Settings a default could be (`--candidates`): Adapt Concurrency from 5 up to 50, 100 or 200, or a
 * higher fixed concurrency, set explicitly so that one run compares them side by side.
 */
const CANDIDATES = [
	{
		key: 'a50',
		options: { adaptiveConcurrency: true, concurrency: 50 },
		text: 'Adapt Concurrency up to 50',
	},
	{
		key: 'a100',
		options: { adaptiveConcurrency: true, concurrency: 100 },
		text: 'Adapt Concurrency up to 100',
	},
	{
		key: 'a200',
		options: { adaptiveConcurrency: true, concurrency: 200 },
		text: 'Adapt Concurrency up to 200',
	},
	{ key: 'c20', options: { concurrency: 20 }, text: 'concurrency 20' },
	{ key: 'c50', options: { concurrency: 50 }, text: 'concurrency 50' },
];

function candidateRows(prefix, floorId, extra = {}) {
	const rows = [];
	for (const mode of ['define', 'fromItems']) {
		for (const c of CANDIDATES) {
			const what = mode === 'define' ? '3 expressions per item' : 'fields from items';
			const id = `${prefix}cand-${mode === 'define' ? 'define' : 'items'}-${c.key}`;
			const settingsText = `${what}, candidate: ${c.text}${extra.settings && extra.settings.continueOnFail ? ', Continue On Fail' : ''}`;
			rows.push({
				id,
				label: 'Create and Run',
				kind: 'createAndRun',
				mode,
				options: c.options,
				settingsText,
				floorId,
				...extra,
			});
		}
	}
	return rows;
}

function contendersFor(scenario, { smoke = false, candidates = false } = {}) {
	const more = (list, rows) => (candidates ? list.concat(rows()) : list);
	switch (scenario) {
		case 1:
			if (smoke) {
				return [
					httpDefault(),
					carDefaults('fromItems'),
					{
						id: 'car-items-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10 },
						settingsText: 'fields from items, concurrency 10',
						floorId: 'floor-c10',
					},
					{
						id: 'batch-items',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: {},
						settingsText: 'fields from items, defaults (100 per request, concurrency 5)',
						floorId: 'floor-batch',
					},
					{
						id: 'floor-c10',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 10,
						settingsText: '4.4, concurrency 10',
					},
					{
						id: 'floor-batch',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'batch',
						concurrency: 5,
						batchSize: 100,
						settingsText: '4.5, 100 per request, concurrency 5',
					},
				];
			}
			return more(
				[
					{
						id: 'floor-c5',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 5,
						settingsText: '4.4, concurrency 5',
					},
					{
						id: 'floor-c10',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 10,
						settingsText: '4.4, concurrency 10',
					},
					{
						id: 'floor-batch',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'batch',
						concurrency: 5,
						batchSize: 100,
						settingsText: '4.5, 100 per request, concurrency 5',
					},
					httpDefault(),
					{
						id: 'http-batched',
						label: 'HTTP Request',
						kind: 'http',
						batching: { batchSize: 10, batchInterval: 10 },
						settingsText: 'batching 10 items / 10 ms',
						floorId: 'floor-c10',
					},
					carDefaults('define'),
					{
						id: 'car-define-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'define',
						options: { concurrency: 10 },
						settingsText: '3 expressions per item, concurrency 10',
						floorId: 'floor-c10',
					},
					carDefaults('fromItems'),
					{
						id: 'car-items-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10 },
						settingsText: 'fields from items, concurrency 10',
						floorId: 'floor-c10',
					},
					{
						id: 'car-items-adaptive',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 200, adaptiveConcurrency: true },
						settingsText: 'fields from items, Adapt Concurrency up to 200',
						floorId: 'floor-c10',
					},
					{
						id: 'batch-items',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: {},
						settingsText: 'fields from items, defaults (100 per request, concurrency 5)',
						floorId: 'floor-batch',
					},
					{
						id: 'batch-define',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'define',
						options: {},
						settingsText: '3 expressions per item, defaults',
						floorId: 'floor-batch',
					},
				],
				() => candidateRows('', 'floor-c10'),
			);
		case 2:
			return more(
				[
					httpDefault({ settings: COF, settingsText: 'defaults, Continue On Fail' }),
					{
						id: 'http-tuned',
						label: 'HTTP Request',
						kind: 'http',
						batching: { batchSize: 10, batchInterval: 200 },
						settings: COF,
						settingsText: 'batching 10 items / 200 ms (= 50/s), Continue On Fail',
					},
					{
						id: 'car-items-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10 },
						settings: COF,
						settingsText: 'fields from items, concurrency 10, no rate set (429s retried)',
					},
					carDefaults('fromItems', {
						settings: COF,
						settingsText: 'fields from items, defaults (no option set), Continue On Fail',
						floorId: undefined,
					}),
					{
						id: 'car-items-c10-rps50',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10, maxRequestsPerSecond: 50 },
						settings: COF,
						settingsText: 'fields from items, concurrency 10, max 50 requests/s',
					},
					{
						id: 'car-define-c10-rps50',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'define',
						options: { concurrency: 10, maxRequestsPerSecond: 50 },
						settings: COF,
						settingsText: '3 expressions per item, concurrency 10, max 50 requests/s',
					},
					{
						id: 'batch-items',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: {},
						settings: COF,
						settingsText: 'fields from items, defaults',
						requestsPerRow: 1 / 100,
					},
				],
				() => candidateRows('', undefined, { settings: COF }).filter((c) => c.mode === 'fromItems'),
			);
		case 3:
			return more(
				[
					httpDefault({ settings: COF, settingsText: 'defaults, Continue On Fail' }),
					{
						id: 'http-retry',
						label: 'HTTP Request',
						kind: 'http',
						settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 },
						settingsText: 'Retry On Fail (3 tries, 1 s)',
					},
					{
						id: 'http-retry-cof',
						label: 'HTTP Request',
						kind: 'http',
						settings: {
							retryOnFail: true,
							maxTries: 3,
							waitBetweenTries: 1000,
							continueOnFail: true,
						},
						settingsText: 'Retry On Fail (3 tries, 1 s) + Continue On Fail',
					},
					{
						id: 'car-items-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10 },
						settings: COF,
						settingsText: 'fields from items, concurrency 10, Continue On Fail',
					},
					carDefaults('fromItems', {
						settings: COF,
						settingsText: 'fields from items, defaults (no option set), Continue On Fail',
						floorId: undefined,
					}),
					carDefaults('define', {
						settings: COF,
						settingsText: '3 expressions per item, defaults (no option set), Continue On Fail',
						floorId: undefined,
					}),
					{
						id: 'batch-items',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: {},
						settings: COF,
						settingsText: 'fields from items, defaults (100 per request), Continue On Fail',
					},
					{
						id: 'batch-items-b10',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: { batchSize: 10 },
						settings: COF,
						settingsText:
							'fields from items, 10 per request (more requests, more faults), Continue On Fail',
					},
				],
				() => candidateRows('', undefined, { settings: COF }).filter((c) => c.mode === 'fromItems'),
			);
		case 6:
			if (smoke) {
				return [
					{
						id: 'remote-floor-c10',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 10,
						settingsText: '4.4, keep-alive, concurrency 10',
					},
					{
						id: 'remote-car-adaptive',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 200, adaptiveConcurrency: true },
						settingsText: 'fields from items, Adapt Concurrency up to 200',
						floorId: 'remote-floor-c10',
					},
					carDefaults('fromItems', {
						id: 'remote-car-items-defaults',
						floorId: 'remote-floor-c10',
					}),
				];
			}
			return more(
				[
					{
						id: 'remote-floor-c10',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 10,
						settingsText: '4.4, keep-alive, concurrency 10',
					},
					{
						id: 'remote-floor-c50',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 50,
						settingsText: '4.4, keep-alive, concurrency 50',
					},
					{
						id: 'remote-floor-c100',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 100,
						settingsText: '4.4, keep-alive, concurrency 100 (the default ceiling)',
					},
					{
						id: 'remote-floor-c200',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'single',
						concurrency: 200,
						settingsText: '4.4, keep-alive, concurrency 200',
					},
					httpDefault({ id: 'remote-http-default', floorId: 'remote-floor-c10' }),
					{
						id: 'remote-car-items-c10',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 10 },
						settingsText: 'fields from items, concurrency 10',
						floorId: 'remote-floor-c10',
					},
					{
						id: 'remote-car-items-c50',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 50 },
						settingsText: 'fields from items, concurrency 50',
						floorId: 'remote-floor-c50',
					},
					{
						id: 'remote-car-adaptive',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'fromItems',
						options: { concurrency: 200, adaptiveConcurrency: true },
						settingsText: 'fields from items, Adapt Concurrency up to 200',
						floorId: 'remote-floor-c200',
					},
					{
						id: 'remote-car-define-adaptive',
						label: 'Create and Run',
						kind: 'createAndRun',
						mode: 'define',
						options: { concurrency: 200, adaptiveConcurrency: true },
						settingsText: '3 expressions per item, Adapt Concurrency up to 200',
						floorId: 'remote-floor-c200',
					},
					carDefaults('define', { id: 'remote-car-define-defaults', floorId: 'remote-floor-c100' }),
					carDefaults('fromItems', {
						id: 'remote-car-items-defaults',
						floorId: 'remote-floor-c100',
					}),
					{
						id: 'remote-floor-batch',
						label: 'floor: undici',
						kind: 'floor',
						floor: 'batch',
						concurrency: 5,
						batchSize: 100,
						settingsText: '4.5, keep-alive, 100 per request, concurrency 5',
					},
					{
						id: 'remote-batch-items',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'fromItems',
						options: {},
						settingsText: 'fields from items, defaults (100 per request)',
						floorId: 'remote-floor-batch',
					},
					{
						id: 'remote-batch-define',
						label: 'Create Batch From Template',
						kind: 'createBatch',
						mode: 'define',
						options: {},
						settingsText: '3 expressions per item, defaults (100 per request)',
						floorId: 'remote-floor-batch',
					},
				],
				() => candidateRows('remote-', 'remote-floor-c200'),
			);
		case 4:
			return [
				{
					id: 'rows-only',
					label: 'Code node only',
					kind: 'rowsOnly',
					settingsText: 'produces the rows, nothing else',
				},
				{
					id: 'rows-set',
					label: 'Edit Fields (Set) node',
					kind: 'setNode',
					settingsText: 'one new item of 3 fixed fields per row, no request',
				},
				{
					id: 'batch-items',
					label: 'Create Batch From Template',
					kind: 'createBatch',
					mode: 'fromItems',
					options: {},
					settingsText: 'fields from items, defaults (100 per request, concurrency 5)',
				},
				{
					id: 'floor-batch',
					label: 'floor: undici',
					kind: 'floor',
					floor: 'batch',
					concurrency: 5,
					batchSize: 100,
					settingsText: '4.5, 100 per request, concurrency 5 (no n8n)',
				},
			];
		default:
			return [];
	}
}

module.exports = { contendersFor, CANDIDATES, LIMIT, FAULTS, REMOTE };
