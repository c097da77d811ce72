'use strict';
/** The bench's report: markdown tables per scenario, the speed goals, the smoke checks. */
const { table, sec, mb, ratio } = require('./table');
const { LIMIT, FAULTS } = require('./scenarios');

const others = (r) =>
	r.otherCores === null || r.otherCores === undefined
		? null
		: `${r.otherCores}${r.disturbed ? ' (!)' : ''}`;

function render(report) {
	const out = [];
	const repeat = (report.args && report.args.repeat) || 1;
	const m = report.machine;
	out.push(
		`Machine: ${m.cpu}, ${m.memGiB} GiB RAM, ${m.kernel}; ${m.n8n}; bench and simulator on Node ${m.benchNode}; commit ${m.commit}; ${m.date}`,
	);
	if (report.args && report.args.n8nEnv)
		out.push(`n8n environment added: ${JSON.stringify(report.args.n8nEnv)}`);
	if (report.args && report.args.tarball)
		out.push(`Package installed from: ${report.args.tarball}`);
	out.push(
		`Load average (1/5/15 min) at start: ${report.loadStart}; at end: ${report.loadEnd || '?'}`,
	);
	out.push(
		'Times: the contender node\'s own executionTime from the run data (floor: wall time of the undici client). "others": CPU cores kept busy by processes other than this bench, n8n and the simulator during the run ("(!)": above the limit even after two more tries). Peak RSS: the n8n main process, sampled every 100 ms during the run (scenarios 1–3 share one long-lived process; scenario 4 starts a fresh one per run).',
	);
	const s1 = report.scenarios[1];
	if (s1) {
		const floors = Object.fromEntries(
			s1.results.filter((r) => r.status === 'floor').map((r) => [r.id, r.nodeMs]),
		);
		const floorOf = (r) => floors[r.floorId];
		out.push('');
		out.push(
			`### 1. ${s1.rows} rows, ${s1.service.latencyMs} ms latency, no limit${repeat > 1 ? ` (median of ${repeat} runs)` : ''}`,
		);
		out.push('');
		out.push(
			table(
				[
					{ title: 'contender', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'node time s', value: (r) => sec(r.nodeMs), align: 'right' },
					...(repeat > 1 ? [{ title: 'runs ms', value: (r) => (r.runsMs || []).join(' / ') }] : []),
					{
						title: 'vs floor',
						value: (r) => (r.status === 'floor' ? '' : ratio(r.nodeMs, floorOf(r))),
						align: 'right',
					},
					{ title: 'workflow s', value: (r) => sec(r.workflowMs), align: 'right' },
					{ title: 'created', value: 'created', align: 'right' },
					{ title: 'dup', value: 'duplicated', align: 'right' },
					{ title: 'errors', value: 'errorItems', align: 'right' },
					{ title: 'requests', value: 'requests', align: 'right' },
					{ title: 'peak RSS MB', value: (r) => mb(r.mainPeakRss), align: 'right' },
					{ title: 'others', value: others, align: 'right' },
				],
				s1.results,
			),
		);
	}
	const s2 = report.scenarios[2];
	if (s2) {
		out.push('');
		out.push(
			`### 2. ${s2.rows} rows under a service limit of ${LIMIT.perSecond} requests/s and ${LIMIT.inFlight} in flight`,
		);
		out.push('');
		out.push(
			table(
				[
					{ title: 'contender', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'node time s', value: (r) => sec(r.nodeMs), align: 'right' },
					{ title: 'floor s', value: (r) => sec(r.floorMs), align: 'right' },
					{ title: 'vs floor', value: (r) => ratio(r.nodeMs, r.floorMs), align: 'right' },
					{ title: 'completed', value: 'created', align: 'right' },
					{ title: 'failed', value: (r) => r.rows - r.created, align: 'right' },
					{ title: 'dup', value: 'duplicated', align: 'right' },
					{ title: 'error items', value: 'errorItems', align: 'right' },
					{ title: 'requests', value: 'requests', align: 'right' },
					{ title: '429s', value: 'rateLimited', align: 'right' },
					{ title: 'max/s seen', value: 'maxPerSecond', align: 'right' },
					{ title: 'others', value: others, align: 'right' },
				],
				s2.results.map((r) => ({ ...r, floorMs: floorMsUnderLimit(r) })),
			),
		);
	}
	const s3 = report.scenarios[3];
	if (s3) {
		out.push('');
		out.push(
			`### 3. ${s3.rows} rows with ${FAULTS.rate * 100}% injected faults (${FAULTS.kinds.join(', ')}; seed ${FAULTS.seed})`,
		);
		out.push('');
		out.push(
			table(
				[
					{ title: 'contender', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'node time s', value: (r) => sec(r.nodeMs), align: 'right' },
					{
						title: 'status',
						value: (r) => (r.nodeError && r.nodeFailed ? 'node failed' : r.status),
					},
					{ title: 'created', value: 'created', align: 'right' },
					{ title: 'duplicated', value: 'duplicated', align: 'right' },
					{ title: 'lost', value: (r) => (r.nodeFailed ? 'n/a' : r.lost), align: 'right' },
					{ title: 'error items', value: 'errorItems', align: 'right' },
					{ title: 'of them created', value: 'errorButCreated', align: 'right' },
					{ title: 'requests', value: 'requests', align: 'right' },
					{
						title: 'faults hit',
						value: (r) => (r.byFault ? Object.values(r.byFault).reduce((a, b) => a + b, 0) : null),
						align: 'right',
					},
					{ title: 'others', value: others, align: 'right' },
				],
				s3.results,
			),
		);
	}
	const s4 = report.scenarios[4];
	if (s4) {
		out.push('');
		out.push(`### 4. ${s4.rows} rows through Create Batch From Template`);
		out.push('');
		out.push(
			table(
				[
					{ title: 'workflow', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'node time s', value: (r) => sec(r.nodeMs), align: 'right' },
					{ title: 'Code node s', value: (r) => sec(r.rowsMs), align: 'right' },
					{ title: 'workflow s', value: (r) => sec(r.workflowMs), align: 'right' },
					{ title: 'run s', value: (r) => sec(r.runMs), align: 'right' },
					{ title: 'status', value: 'status' },
					{
						title: 'created',
						value: (r) => (r.id.startsWith('rows-') ? '' : r.created),
						align: 'right',
					},
					{
						title: 'dup',
						value: (r) => (r.id.startsWith('rows-') ? '' : r.duplicated),
						align: 'right',
					},
					{ title: 'requests', value: 'requests', align: 'right' },
					{ title: 'n8n RSS before MB', value: (r) => mb(r.rssBefore), align: 'right' },
					{ title: 'n8n peak RSS MB', value: (r) => mb(r.mainPeakRss), align: 'right' },
					{ title: 'peak VmHWM MB', value: (r) => mb(r.mainHwm), align: 'right' },
					{ title: 'incl. task runner MB', value: (r) => mb(r.totalPeakRss), align: 'right' },
					{ title: 'others', value: others, align: 'right' },
				],
				s4.results,
			),
		);
	}
	const s5 = report.scenarios[5];
	if (s5) {
		out.push('');
		out.push(
			`### 5. Events that become executions: ${s5.events} events per round at concurrency ${s5.concurrency}, trigger vs n8n's Webhook node in one n8n${repeat > 1 ? ` (median of ${repeat} rounds, order alternated)` : ''}`,
		);
		for (const config of s5.configs || [{ setting: 'n8n defaults', results: s5.results }]) {
			const plain = config.results.find((r) => r.id === 'webhook-node');
			out.push('');
			out.push(`n8n setting: ${config.setting}`);
			out.push('');
			out.push(
				table(
					[
						{ title: 'contender', value: 'label' },
						{ title: 'settings', value: 'settings' },
						{
							title: 'executions/s',
							value: (r) => (r.perSecond === null ? null : r.perSecond.toFixed(1)),
							align: 'right',
						},
						...(repeat > 1
							? [{ title: 'rounds', value: (r) => (r.runsPerSecond || []).join(' / ') }]
							: []),
						{
							title: 'vs Webhook node',
							value: (r) =>
								r.id === 'webhook-node' || !plain || !plain.perSecond || !r.perSecond
									? ''
									: `${(r.perSecond / plain.perSecond).toFixed(2)}×`,
							align: 'right',
						},
						{ title: 'same-round ratios', value: (r) => (r.roundRatios || []).join(' / ') },
						{ title: 'executions', value: 'executions', align: 'right' },
						{ title: 'load (1 min) per round', value: (r) => (r.loads || []).join(' / ') },
						{ title: 'others', value: others, align: 'right' },
					],
					config.results,
				),
			);
		}
	}
	const s7 = report.scenarios[7];
	if (s7) {
		const diy = s7.results.find((r) => r.id === 'diy-wait');
		const vsDiy = (r, key) =>
			r.id === 'diy-wait' || !diy || !diy[key] || !r[key]
				? ''
				: `${(r[key] / diy[key]).toFixed(2)}×`;
		const rate = (key) => (r) => (r[key] === null ? null : r[key].toFixed(1));
		out.push('');
		out.push(
			`### 7. Leads into their waits and their results back: ${s7.leads} leads at once, results at concurrency ${s7.resultConcurrency}, in one n8n with n8n's defaults${s7.rounds > 1 ? ` (median of ${s7.rounds} rounds, order alternated)` : ''}`,
		);
		out.push('');
		out.push(
			table(
				[
					{ title: 'contender', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'leads/s into waits', value: rate('leadsPerSecond'), align: 'right' },
					{ title: 'vs DIY', value: (r) => vsDiy(r, 'leadsPerSecond'), align: 'right' },
					{ title: 'results/s resumed', value: rate('resultsPerSecond'), align: 'right' },
					{ title: 'vs DIY', value: (r) => vsDiy(r, 'resultsPerSecond'), align: 'right' },
					{ title: 'succeeded', value: 'succeeded', align: 'right' },
					{
						title: 'lost / doubled / mixed',
						value: (r) => `${r.lost} / ${r.doubled} / ${r.mixed}`,
					},
					{ title: 'load (1 min) per round', value: (r) => (r.loads || []).join(' / ') },
					{ title: 'others', value: others, align: 'right' },
				],
				s7.results,
			),
		);
	}
	const s6 = report.scenarios[6];
	if (s6) {
		const floors = Object.fromEntries(
			s6.results.filter((r) => r.status === 'floor').map((r) => [r.id, r.nodeMs]),
		);
		const httpNode = s6.results.find((r) => r.kind === 'http' || /^remote-http/.test(r.id));
		out.push('');
		out.push(
			`### 6. A remote service: ${s6.rows} rows, ${s6.service.latencyMs} ms per request + ${s6.service.connectionDelayMs} ms per new connection${repeat > 1 ? ` (median of ${repeat} runs)` : ''}`,
		);
		out.push('');
		out.push(
			table(
				[
					{ title: 'contender', value: 'label' },
					{ title: 'settings', value: 'settings' },
					{ title: 'node time s', value: (r) => sec(r.nodeMs), align: 'right' },
					...(repeat > 1 ? [{ title: 'runs ms', value: (r) => (r.runsMs || []).join(' / ') }] : []),
					{
						title: 'vs keep-alive floor',
						value: (r) =>
							r.status === 'floor' || !floors[r.floorId]
								? ''
								: `${ratio(r.nodeMs, floors[r.floorId])} (${floorName(r.floorId)})`,
						align: 'right',
					},
					{
						title: 'HTTP node / this',
						value: (r) =>
							r.status === 'floor' || !httpNode || r === httpNode
								? ''
								: `${(httpNode.nodeMs / r.nodeMs).toFixed(2)}×`,
						align: 'right',
					},
					{ title: 'connections', value: 'connections', align: 'right' },
					{ title: 'created', value: 'created', align: 'right' },
					{ title: 'dup', value: 'duplicated', align: 'right' },
					{ title: 'errors', value: 'errorItems', align: 'right' },
					{ title: 'requests', value: 'requests', align: 'right' },
					{ title: 'others', value: others, align: 'right' },
				],
				s6.results,
			),
		);
	}
	if (report.targets && report.targets.length) {
		out.push('');
		out.push('### Targets');
		out.push('');
		out.push(
			table(
				[
					{ title: 'target', value: 'target' },
					{ title: 'measured', value: 'measured' },
					{ title: 'met', value: (t) => (t.met === null ? '?' : t.met ? 'yes' : 'NO') },
				],
				report.targets,
			),
		);
	}
	return out.join('\n');
}

/** Theoretical floor under the limit: requests / perSecond (each 4.5 request carries batchSize rows). */
/** How a floor of scenario 6 is named in the ratio column: its concurrency, or "batch". */
function floorName(floorId) {
	const concurrency = /^remote-floor-c(\d+)$/.exec(floorId);
	return concurrency ? `c=${concurrency[1]}` : floorId.replace('remote-floor-', '');
}

function floorMsUnderLimit(r) {
	const requestsNeeded = r.requestsPerRow ? Math.ceil(r.rows * r.requestsPerRow) : r.rows;
	return (requestsNeeded / LIMIT.perSecond) * 1000;
}

function evaluateTargets(report) {
	const t = [];
	const get = (s, id) =>
		report.scenarios[s] && report.scenarios[s].results.find((r) => r.id === id);
	const push = (target, measured, met) => t.push({ target, measured, met });
	const s1 = report.scenarios[1];
	if (s1) {
		const car = get(1, 'car-items-c10');
		const floor = get(1, 'floor-c10');
		if (car && floor)
			push(
				'fromItems: Create and Run c=10 within 1.25× of the undici floor at c=10',
				`${sec(car.nodeMs)} s vs ${sec(floor.nodeMs)} s = ${ratio(car.nodeMs, floor.nodeMs)}`,
				car.nodeMs <= 1.25 * floor.nodeMs,
			);
		const batch = get(1, 'batch-items');
		const http = get(1, 'http-default');
		if (batch && http)
			push(
				'fromItems: Create Batch From Template ≥ 20× faster than HTTP Request',
				`${sec(http.nodeMs)} s / ${sec(batch.nodeMs)} s = ${(http.nodeMs / batch.nodeMs).toFixed(1)}×`,
				http.nodeMs >= 20 * batch.nodeMs,
			);
		for (const id of ['car-define-defaults', 'car-items-defaults', 'car-define-c10']) {
			const car = get(1, id);
			if (car && http)
				push(
					`loopback: Create and Run (${car.settings}) ≥ 1.5× faster than HTTP Request (3 expressions)`,
					`${sec(http.nodeMs)} s / ${sec(car.nodeMs)} s = ${(http.nodeMs / car.nodeMs).toFixed(2)}×`,
					http.nodeMs >= 1.5 * car.nodeMs,
				);
		}
	}
	const s2 = report.scenarios[2];
	if (s2) {
		for (const id of ['car-items-c10-rps50', 'batch-items']) {
			const r = get(2, id);
			if (!r) continue;
			const floorMs = floorMsUnderLimit(r);
			push(
				`under the limit, ${r.label} (${r.settings}): 0 failed, time ≤ 1.25× floor (${sec(floorMs)} s)`,
				`failed ${r.rows - r.created}, ${sec(r.nodeMs)} s = ${ratio(r.nodeMs, floorMs)}`,
				r.created === r.rows && r.nodeMs <= 1.25 * floorMs,
			);
		}
		const today = get(2, 'car-items-c10');
		const defaults = get(2, 'car-items-defaults');
		if (today && defaults) {
			push(
				`under the limit, Create and Run with defaults (no rate set): 0 failed, no more 429s than at concurrency 10`,
				`failed ${defaults.rows - defaults.created}, 429s ${defaults.rateLimited} vs ${today.rateLimited}`,
				defaults.created === defaults.rows && defaults.rateLimited <= today.rateLimited,
			);
		}
	}
	const s3 = report.scenarios[3];
	if (s3) {
		for (const id of [
			'car-items-c10',
			'car-items-defaults',
			'car-define-defaults',
			'batch-items',
			'batch-items-b10',
		]) {
			const r = get(3, id);
			if (!r) continue;
			push(
				`with faults, ${r.label} (${r.id}): 0 lost, 0 duplicated`,
				`lost ${r.lost}, duplicated ${r.duplicated} (error items ${r.errorItems})`,
				r.lost === 0 && r.duplicated === 0,
			);
		}
	}
	const s4 = report.scenarios[4];
	if (s4) {
		const r = get(4, 'batch-items');
		if (r)
			push(
				`${s4.rows} rows through Create Batch From Template complete, memory reported`,
				`${r.status}, created ${r.created}, ${sec(r.nodeMs)} s, peak RSS ${mb(r.mainPeakRss)} MB`,
				r.status === 'success' && r.created === r.rows && r.duplicated === 0,
			);
		const only = get(4, 'rows-only');
		if (r && only && r.mainPeakRss && only.mainPeakRss) {
			push(
				`${s4.rows} rows: n8n's peak RSS with Create Batch ≤ 1.2× the same rows without the node`,
				`${mb(r.mainPeakRss)} MB vs ${mb(only.mainPeakRss)} MB = ${ratio(r.mainPeakRss, only.mainPeakRss)}`,
				r.mainPeakRss <= 1.2 * only.mainPeakRss,
			);
		}
	}
	const s5 = report.scenarios[5];
	for (const config of s5 ? s5.configs || [{ setting: 'n8n defaults', results: s5.results }] : []) {
		const plain = config.results.find((r) => r.id === 'webhook-node');
		const cis = config.results.find((r) => r.id === 'cis-trigger');
		if (plain && cis && plain.perSecond && cis.perSecond) {
			push(
				`trigger (Existing Task mode) ≥ 0.9× the executions/s of a plain Webhook node (${config.setting})`,
				`${cis.perSecond.toFixed(1)} vs ${plain.perSecond.toFixed(1)} executions/s = ${(cis.perSecond / plain.perSecond).toFixed(2)}× (same-round ratios ${(cis.roundRatios || []).join(', ')})`,
				cis.perSecond >= 0.9 * plain.perSecond,
			);
		}
	}
	const s7 = report.scenarios[7];
	const cisWait = s7 && s7.results.find((r) => r.id === 'cis-wait');
	const diyWait = s7 && s7.results.find((r) => r.id === 'diy-wait');
	if (cisWait && diyWait && cisWait.leadsPerSecond && diyWait.leadsPerSecond) {
		push(
			`${s7.leads} leads reach their waits ≥ 1.0× the DIY route's pace (HTTP Request + Wait node)`,
			`${cisWait.leadsPerSecond.toFixed(1)} vs ${diyWait.leadsPerSecond.toFixed(1)} leads/s = ${(cisWait.leadsPerSecond / diyWait.leadsPerSecond).toFixed(2)}×`,
			cisWait.leadsPerSecond >= diyWait.leadsPerSecond,
		);
	}
	if (cisWait && diyWait && cisWait.resultsPerSecond && diyWait.resultsPerSecond) {
		push(
			`their results resume the executions ≥ 1.2× the DIY route's pace, none lost, doubled or mixed`,
			`${cisWait.resultsPerSecond.toFixed(1)} vs ${diyWait.resultsPerSecond.toFixed(1)} results/s = ${(cisWait.resultsPerSecond / diyWait.resultsPerSecond).toFixed(2)}×; lost ${cisWait.lost}, doubled ${cisWait.doubled}, mixed ${cisWait.mixed}`,
			cisWait.resultsPerSecond >= 1.2 * diyWait.resultsPerSecond &&
				cisWait.lost === 0 &&
				cisWait.doubled === 0 &&
				cisWait.mixed === 0,
		);
	}
	const s6 = report.scenarios[6];
	if (s6) {
		const get6 = (id) => s6.results.find((r) => r.id === id);
		const http = get6('remote-http-default');
		for (const id of [
			'remote-car-define-defaults',
			'remote-car-items-defaults',
			'remote-car-adaptive',
			'remote-car-define-adaptive',
			'remote-car-items-c50',
			'remote-car-items-c10',
		]) {
			const car = get6(id);
			if (!car) continue;
			// The goals: with defaults untouched ≥ 2× the HTTP Request node; with the tuned settings ≥ 1.5×
			const factor = /-defaults$/.test(id) ? 2 : 1.5;
			if (http)
				push(
					`remote service: Create and Run (${car.settings}) ≥ ${factor}× faster than the HTTP Request node`,
					`${sec(http.nodeMs)} s / ${sec(car.nodeMs)} s = ${(http.nodeMs / car.nodeMs).toFixed(2)}×`,
					http.nodeMs >= factor * car.nodeMs,
				);
			const floor = get6(car.floorId);
			if (floor)
				push(
					`remote service: Create and Run (${car.settings}) within 1.25× of the keep-alive floor at the same concurrency`,
					`${sec(car.nodeMs)} s vs ${sec(floor.nodeMs)} s = ${ratio(car.nodeMs, floor.nodeMs)} (connections ${car.connections} vs ${floor.connections})`,
					car.nodeMs <= 1.25 * floor.nodeMs,
				);
		}
	}
	return t;
}

function smokeChecks(report) {
	const problems = [];
	const s1 = report.scenarios[1];
	if (!s1) return ['scenario 1 did not run'];
	for (const r of s1.results) {
		if (r.status !== 'floor' && r.status !== 'success')
			problems.push(`${r.id}: execution ${r.status} ${r.nodeError || ''}`);
		if (r.created !== r.rows) problems.push(`${r.id}: created ${r.created} of ${r.rows}`);
		if (r.duplicated !== 0) problems.push(`${r.id}: ${r.duplicated} duplicated`);
		if (r.status !== 'floor' && (r.errorItems !== 0 || r.okItems !== r.rows))
			problems.push(`${r.id}: ${r.okItems} ok and ${r.errorItems} error items for ${r.rows} rows`);
		if (r.status !== 'floor' && !(r.nodeMs > 0))
			problems.push(`${r.id}: no executionTime of the node`);
		if (r.status === 'floor' && (r.statuses || {})[200] !== r.requests)
			problems.push(`${r.id}: statuses ${JSON.stringify(r.statuses)}`);
	}
	const s6 = report.scenarios[6];
	if (!s6) problems.push('scenario 6 did not run');
	for (const r of s6 ? s6.results : []) {
		if (r.created !== r.rows || r.duplicated !== 0)
			problems.push(
				`${r.id} (remote): created ${r.created} of ${r.rows}, ${r.duplicated} duplicated`,
			);
		if (r.status !== 'floor' && r.status !== 'success')
			problems.push(`${r.id} (remote): execution ${r.status} ${r.nodeError || ''}`);
		if (!(r.connections > 0)) problems.push(`${r.id} (remote): no connection counted`);
	}
	const s5 = report.scenarios[5];
	if (!s5) problems.push('scenario 5 did not run');
	if (
		s5 &&
		s5.unparsedBody &&
		(s5.unparsedBody.status !== 200 || s5.unparsedBody.executions !== 1)
	) {
		problems.push(
			`cis-trigger: an event sent as application/octet-stream got ${s5.unparsedBody.status} and ${s5.unparsedBody.executions} executions`,
		);
	}
	for (const r of s5 ? s5.results : []) {
		if (r.executions !== r.events || (r.statuses || {})[200] !== r.events)
			problems.push(
				`${r.id}: ${r.executions} executions for ${r.events} events, answers ${JSON.stringify(r.statuses)}`,
			);
		if (r.succeeded !== r.events)
			problems.push(`${r.id}: ${r.succeeded} of ${r.events} executions succeeded`);
	}
	const s7 = report.scenarios[7];
	if (!s7) problems.push('scenario 7 did not run');
	for (const r of s7 ? s7.results : []) {
		if ((r.leadStatuses || {})[200] !== r.leads || (r.resultStatuses || {})[200] !== r.leads)
			problems.push(
				`${r.id}: answers to leads ${JSON.stringify(r.leadStatuses)}, to results ${JSON.stringify(r.resultStatuses)}`,
			);
		if (r.candidates !== r.leads)
			problems.push(`${r.id}: ${r.candidates} candidates created for ${r.leads} leads`);
		if (r.succeeded !== r.leads || r.lost || r.doubled || r.mixed)
			problems.push(
				`${r.id}: ${r.succeeded} of ${r.leads} executions finished, lost ${r.lost}, doubled ${r.doubled}, mixed ${r.mixed}`,
			);
	}
	if (!/\| contender/.test(report.text || '')) problems.push('no table produced');
	return problems;
}

module.exports = { render, evaluateTargets, smokeChecks, floorMsUnderLimit };
