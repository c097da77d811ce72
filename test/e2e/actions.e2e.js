'use strict';
/**
 * Every operation of the CIS Auto-Call node, each in its own workflow run through n8n's REST API
 * (the editor's manual run), against the simulator: the simulator must receive exactly the
 * expected requests (method, path, query, body), and the node's output must carry the ids.
 * Bad input must fail the run with a message naming the field, the value and `[item N]`,
 * with nothing sent.
 */
const assert = require('assert');
const {
	cisNode,
	codeNode,
	apiRequestsSince,
	shapeOf,
	outputOf,
	errorOf,
	assertSuccess,
	eventsMap,
	expectedTaskBody,
} = require('./harness');

const P = '/cis/api/v1';

module.exports = async function actionChecks(ctx) {
	const { sim, creds, checks, crm } = ctx;
	const cred = creds.token;

	/**
	 * Runs `nodes` after a Manual Trigger, and asserts the run's API requests equal `expected`
	 * ({method, path, query?, body?}) in order. Returns { ex, out } (out: last node's items).
	 */
	async function runExpecting(name, nodes, expected) {
		const mark = sim.requests.length;
		const ex = await ctx.run(name, nodes);
		assertSuccess(ex);
		const sent = apiRequestsSince(sim, mark).map((r) => shapeOf(r));
		assert.deepStrictEqual(
			sent,
			expected,
			`requests seen by the simulator:\n${JSON.stringify(sent, null, 1)}`,
		);
		return { ex, out: outputOf(ex, nodes[nodes.length - 1].name) };
	}

	const name = `E2E task ${ctx.version}`;
	const hook = `${crm.url}/hooks/e2e-task`;
	let taskId = null;

	await checks.check(
		'Call Task → Create: POST telephony/autoCall with the converted settings and webhook target',
		async () => {
			const { out } = await runExpecting(
				'e2e callTask.create',
				[
					cisNode(
						'Create task',
						{
							resource: 'callTask',
							operation: 'create',
							name,
							defaultExecData: 'bot-e2e',
							callsPerSecond: 2,
							additionalFields: { taskComment: 'from the e2e suite' },
							webhookUrls: { target: [{ url: hook, CALL_ENDED: true }] },
						},
						cred,
					),
				],
				[
					{
						method: 'POST',
						path: `${P}/telephony/autoCall`,
						body: expectedTaskBody({
							name,
							botQueue: 'bot-e2e',
							taskComment: 'from the e2e suite',
							webhookUrls: [
								{ url: hook, partialResults: false, delay: 0, events: eventsMap(['CALL_ENDED']) },
							],
						}),
					},
				],
			);
			const created = [...sim.state.tasks.values()].find((t) => t.name === name);
			assert.ok(created, 'no such task in the simulator');
			assert.strictEqual(out.length, 1);
			assert.strictEqual(out[0].autoCallId, created.id);
			taskId = created.id;
			return `autoCallId ${taskId}`;
		},
	);
	if (!taskId) {
		for (const n of [
			'Get',
			'Get Many',
			'Add to Task',
			'Add Many to Task',
			'Cancel',
			'Start',
			'Pause',
			'Stop',
		])
			checks.skip(`${n} on the created task`, 'Call Task → Create failed');
	} else {
		const locator = { __rl: true, mode: 'id', value: taskId };

		await checks.check(
			'Call Task → Get: GET telephony/autoCall/<id>, output is the task',
			async () => {
				const { out } = await runExpecting(
					'e2e callTask.get',
					[
						cisNode(
							'Get task',
							{ resource: 'callTask', operation: 'get', autoCallId: locator },
							cred,
						),
					],
					[{ method: 'GET', path: `${P}/telephony/autoCall/${taskId}` }],
				);
				assert.strictEqual(out[0].autoCallId, taskId);
				assert.strictEqual(out[0].name, name);
				return `status ${out[0].status}`;
			},
		);

		await checks.check(
			'Call Task → Get Many (keyword, limit): GET telephony/autoCall?keyword&limit&offset',
			async () => {
				const { out } = await runExpecting(
					'e2e callTask.getMany',
					[
						cisNode(
							'Find tasks',
							{ resource: 'callTask', operation: 'getMany', limit: 5, filters: { keyword: name } },
							cred,
						),
					],
					[
						{
							method: 'GET',
							path: `${P}/telephony/autoCall`,
							query: { keyword: name, limit: '5', offset: '0' },
						},
					],
				);
				assert.deepStrictEqual(
					out.map((t) => t.autoCallId),
					[taskId],
				);
				return '1 task found';
			},
		);

		await checks.check(
			'version 2 (new nodes): Create from the short panel (Campaign Settings), then Get gives the simplified task',
			async () => {
				const v2Name = `${name} v2`;
				const mark = sim.requests.length;
				const create = cisNode(
					'Create task v2',
					{
						resource: 'callTask',
						operation: 'create',
						name: v2Name,
						defaultExecData: 'bot-e2e',
						campaignSettings: {
							cpsMode: 'perSecond',
							callsPerSecond: 2,
							taskComment: 'from the e2e suite',
						},
					},
					cred,
					{ typeVersion: 2 },
				);
				const get = cisNode(
					'Get task v2',
					{
						resource: 'callTask',
						operation: 'get',
						autoCallId: { __rl: true, mode: 'id', value: '={{ $json.autoCallId }}' },
					},
					cred,
					{ typeVersion: 2 },
				);
				const ex = await ctx.run('e2e version 2', [create, get]);
				assertSuccess(ex);
				const sent = apiRequestsSince(sim, mark);
				assert.deepStrictEqual(
					sent.map((r) => r.method),
					['POST', 'GET'],
				);
				assert.deepStrictEqual(
					sent[0].body,
					expectedTaskBody({
						name: v2Name,
						botQueue: 'bot-e2e',
						taskComment: 'from the e2e suite',
					}),
				);
				const [task] = outputOf(ex, 'Get task v2');
				assert.strictEqual(task.name, v2Name);
				assert.strictEqual(task.status, 'Draft');
				assert.strictEqual(task.statusCode, 'BLANK');
				assert.strictEqual(
					task.stats,
					undefined,
					'Simplify (on by default) leaves the statistics object out',
				);
				return `task ${task.autoCallId}: ${JSON.stringify(task).slice(0, 140)}`;
			},
		);

		await checks.check(
			'Candidate → Add to Task: POST telephony/autoCallCandidate with variables, callbackData, external id',
			async () => {
				const { out } = await runExpecting(
					'e2e candidate.addToTask',
					[
						cisNode(
							'Add candidate',
							{
								resource: 'candidate',
								operation: 'addToTask',
								autoCallId: locator,
								phone: '79990000010',
								candidateFields: {
									clientExternalId: 'ext-10',
									callbackData: '{"crmId":"A-10"}',
									variablesJson: '{"name":"Ann"}',
								},
							},
							cred,
						),
					],
					[
						{
							method: 'POST',
							path: `${P}/telephony/autoCallCandidate`,
							body: {
								autoCallId: taskId,
								phone: ['79990000010'],
								variables: { name: 'Ann' },
								callbackData: { crmId: 'A-10' },
								clientExternalId: 'ext-10',
								forceStart: false,
							},
						},
					],
				);
				assert.ok(
					out[0].autoCallCandidateId && sim.state.candidates.has(out[0].autoCallCandidateId),
					'output lacks the new candidate id',
				);
				return `autoCallCandidateId ${out[0].autoCallCandidateId}`;
			},
		);

		await checks.check(
			'Candidate → Add Many to Task (fields from items): one POST telephony/autoCallCandidate/batch',
			async () => {
				const rows = [
					{ crmId: 'A-11', name: 'Boris', phone: '79990000011' },
					{ crmId: 'A-12', name: 'Vera', phone: '79990000012' },
				];
				const { out } = await runExpecting(
					'e2e candidate.addManyToTask',
					[
						codeNode('Rows', rows),
						cisNode(
							'Add candidates',
							{
								resource: 'candidate',
								operation: 'addManyToTask',
								autoCallId: locator,
								inputMode: 'fromItems',
								phoneField: 'phone',
								variablesFields: 'name',
								callbackDataFields: 'crmId',
								clientExternalIdField: 'crmId',
							},
							cred,
						),
					],
					[
						{
							method: 'POST',
							path: `${P}/telephony/autoCallCandidate/batch`,
							body: {
								batch: rows.map((r) => ({
									autoCallId: taskId,
									phone: [r.phone],
									variables: { name: r.name },
									callbackData: { crmId: r.crmId },
									clientExternalId: r.crmId,
								})),
								forceStart: false,
							},
						},
					],
				);
				assert.strictEqual(out.length, 2);
				for (const item of out)
					assert.ok(
						sim.state.candidates.has(item.autoCallCandidateId),
						`unknown candidate ${item.autoCallCandidateId}`,
					);
				return `${out.length} candidates, one request`;
			},
		);

		await checks.check(
			'Candidate → Cancel: POST telephony/autoCallCandidate/cancel?autoCallId&phone',
			async () => {
				const { out } = await runExpecting(
					'e2e candidate.cancel',
					[
						cisNode(
							'Cancel candidate',
							{
								resource: 'candidate',
								operation: 'cancel',
								autoCallId: locator,
								phone: '79990000010',
							},
							cred,
						),
					],
					[
						{
							method: 'POST',
							path: `${P}/telephony/autoCallCandidate/cancel`,
							query: { autoCallId: taskId, phone: '79990000010' },
						},
					],
				);
				const c = [...sim.state.candidates.values()].find(
					(x) => x.taskId === taskId && x.phone[0] === '79990000010',
				);
				assert.strictEqual(c.status, 'CANCELLED');
				return `candidate ${out[0].phone} CANCELLED`;
			},
		);

		for (const [op, action, status] of [
			['start', 'play', 'PROCESS'],
			['pause', 'pause', 'PAUSED'],
			['stop', 'halted', 'HALTED'],
		]) {
			await checks.check(
				`Call Task → ${op[0].toUpperCase()}${op.slice(1)}: POST telephony/autoCall/<id>/${action}, task ${status}`,
				async () => {
					await runExpecting(
						`e2e callTask.${op}`,
						[
							cisNode(
								`${op} task`,
								{ resource: 'callTask', operation: op, autoCallId: locator },
								cred,
							),
						],
						[{ method: 'POST', path: `${P}/telephony/autoCall/${taskId}/${action}` }],
					);
					assert.strictEqual(sim.state.tasks.get(taskId).status, status);
					return `task ${status}`;
				},
			);
		}
	}

	let candidateId = null;
	await checks.check(
		'Candidate → Create and Run: POST telephony/autoCallCandidate/single with variables and callbackData',
		async () => {
			const { out } = await runExpecting(
				'e2e candidate.createAndRun',
				[
					cisNode(
						'Call one person',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-e2e-single',
							phone: '79990000020',
							candidateFields: {
								variables: { variable: [{ name: 'name', value: 'Bob' }] },
								callbackData: '{"crmId":"B-20"}',
							},
						},
						cred,
					),
				],
				[
					{
						method: 'POST',
						path: `${P}/telephony/autoCallCandidate/single`,
						body: {
							phone: ['79990000020'],
							botSettingsId: 'bot-e2e-single',
							variables: { name: 'Bob' },
							callbackData: { crmId: 'B-20' },
						},
					},
				],
			);
			candidateId = out[0].autoCallCandidateId;
			assert.ok(sim.state.candidates.has(candidateId), `unknown candidate ${candidateId}`);
			return `autoCallCandidateId ${candidateId}`;
		},
	);

	await checks.check(
		'Candidate → Create Batch From Template: one POST telephony/autoCallCandidate/single/batch',
		async () => {
			const rows = [
				{ crmId: 'B-21', name: 'Dina', phone: '79990000021' },
				{ crmId: 'B-22', name: 'Egor', phone: '79990000022' },
			];
			const { out } = await runExpecting(
				'e2e candidate.createBatch',
				[
					codeNode('Rows', rows),
					cisNode(
						'Batch',
						{
							resource: 'candidate',
							operation: 'createBatch',
							inputMode: 'fromItems',
							phoneField: 'phone',
							variablesFields: 'name',
							callbackDataFields: 'crmId',
							clientExternalIdField: 'crmId',
							taskSettings: { botSettingsId: 'bot-e2e-batch' },
						},
						cred,
					),
				],
				[
					{
						method: 'POST',
						path: `${P}/telephony/autoCallCandidate/single/batch`,
						body: {
							batch: rows.map((r) => ({
								phone: [r.phone],
								variables: { name: r.name },
								callbackData: { crmId: r.crmId },
								clientExternalId: r.crmId,
								botSettingsId: 'bot-e2e-batch',
							})),
						},
					},
				],
			);
			assert.strictEqual(out.length, 2);
			for (const item of out)
				assert.ok(
					sim.state.candidates.has(item.autoCallCandidateId) &&
						sim.state.tasks.has(item.autoCallId),
					JSON.stringify(item),
				);
			return `${out.length} candidates in task ${out[0].autoCallId}`;
		},
	);

	await checks.check(
		'Candidate → Create Batch From Template, 3 rows with Batch Size 1: one call task (the first request creates it, the other two join it)',
		async () => {
			const rows = ['79990000023', '79990000024', '79990000025'].map((phone) => ({ phone }));
			const tasksBefore = sim.state.tasks.size;
			const mark = sim.requests.length;
			const ex = await ctx.run('e2e candidate.createBatch one task', [
				codeNode('Rows', rows),
				cisNode(
					'Batch',
					{
						resource: 'candidate',
						operation: 'createBatch',
						inputMode: 'fromItems',
						phoneField: 'phone',
						taskSettings: { botSettingsId: 'bot-e2e-batch' },
						options: { batchSize: 1, concurrency: 1 },
					},
					cred,
				),
			]);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).map((r) => r.path);
			assert.deepStrictEqual(sent, [
				`${P}/telephony/autoCallCandidate/single/batch`,
				`${P}/telephony/autoCallCandidate/batch`,
				`${P}/telephony/autoCallCandidate/batch`,
			]);
			assert.strictEqual(sim.state.tasks.size, tasksBefore + 1, 'tasks created');
			const out = outputOf(ex, 'Batch');
			assert.strictEqual(new Set(out.map((item) => item.autoCallId)).size, 1, JSON.stringify(out));
			out.forEach((item, index) =>
				assert.deepStrictEqual(sim.state.candidates.get(item.autoCallCandidateId).phone, [
					rows[index].phone,
				]),
			);
			return `3 rows → 1 task ${out[0].autoCallId} (1 create + 2 join requests)`;
		},
	);

	await checks.check(
		"Retry On Fail (n8n's own retry loop): Create and Run, 3 rows, row 1 created but answered 503 every time: 3 create requests over 3 tries, each person once",
		async () => {
			const phones = ['79990000026', '79990000027', '79990000028'];
			sim.injectFault({
				path: `${P}/telephony/autoCallCandidate/single`,
				status: 503,
				afterHandling: true,
				bodyIncludes: phones[1],
				times: 10,
			});
			const mark = sim.requests.length;
			const ex = await ctx.run('e2e createAndRun retry on fail', [
				codeNode(
					'Rows',
					phones.map((phone) => ({ phone })),
				),
				cisNode(
					'Call',
					{
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-e2e-retry',
						phone: '={{ $json.phone }}',
						options: { concurrency: 1 },
					},
					cred,
					{ retryOnFail: true, maxTries: 3, waitBetweenTries: 10 },
				),
			]);
			assert.strictEqual(
				ex.status,
				'error',
				`expected the run to fail on row 1, it ended ${ex.status}`,
			);
			assert.match(String(errorOf(ex).message), /\[item 1\]/);
			const sent = apiRequestsSince(sim, mark)
				.filter((r) => r.path === `${P}/telephony/autoCallCandidate/single`)
				.map((r) => r.body.phone[0]);
			assert.deepStrictEqual(sent, phones);
			const created = phones.map(
				(phone) => [...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length,
			);
			assert.deepStrictEqual(created, [1, 1, 1]);
			return '3 requests for 3 rows; row 1 keeps "outcome unknown"';
		},
	);

	if (!candidateId) checks.skip('Candidate → Depersonalize', 'Create and Run failed');
	else {
		await checks.check(
			'Candidate → Depersonalize (keep recording): POST telephony/autoCallCandidate/<id>/depersonalization',
			async () => {
				await runExpecting(
					'e2e candidate.depersonalize',
					[
						cisNode(
							'Forget candidate',
							{
								resource: 'candidate',
								operation: 'depersonalize',
								autoCallCandidateId: candidateId,
								skipDeleteRecord: true,
							},
							cred,
						),
					],
					[
						{
							method: 'POST',
							path: `${P}/telephony/autoCallCandidate/${candidateId}/depersonalization`,
							body: { skipDeleteRecord: true },
						},
					],
				);
				assert.strictEqual(sim.state.candidates.get(candidateId).depersonalized, true);
				return 'candidate depersonalized in the simulator';
			},
		);
	}

	await checks.check(
		'Call → Depersonalize (delete recording): POST calls/<id>/depersonalization',
		async () => {
			const call = sim.addCall({ callTo: '79990000040' });
			await runExpecting(
				'e2e call.depersonalize',
				[
					cisNode(
						'Forget call',
						{
							resource: 'call',
							operation: 'depersonalize',
							callId: call.id,
							skipDeleteRecord: false,
						},
						cred,
					),
				],
				[
					{
						method: 'POST',
						path: `${P}/calls/${call.id}/depersonalization`,
						body: { skipDeleteRecord: false },
					},
				],
			);
			const after = sim.state.calls.get(call.id);
			assert.strictEqual(after.depersonalized, true);
			assert.strictEqual(after.callTo, null);
			assert.strictEqual(after.record, null);
			return 'number and recording gone';
		},
	);

	await checks.check('Call → Delete Recording: DELETE calls/<id>/record', async () => {
		const call = sim.addCall({ callTo: '79990000041' });
		const { out } = await runExpecting(
			'e2e call.deleteRecording',
			[
				cisNode(
					'Delete recording',
					{ resource: 'call', operation: 'deleteRecording', callId: call.id },
					cred,
				),
			],
			[{ method: 'DELETE', path: `${P}/calls/${call.id}/record` }],
		);
		assert.strictEqual(sim.state.calls.get(call.id).record, null);
		assert.strictEqual(out[0].deleted, true, JSON.stringify(out[0]));
		assert.strictEqual(out[0].callId, call.id);
		return 'recording gone, number kept';
	});

	/** A run that must fail before sending anything, with a message naming field, value and item. */
	async function expectInputError(label, nodes, parts) {
		const mark = sim.requests.length;
		const ex = await ctx.run(label, nodes);
		assert.strictEqual(ex.status, 'error', `expected the run to fail, it ended ${ex.status}`);
		const err = errorOf(ex);
		const message = String(err && err.message);
		for (const part of parts)
			assert.ok(message.includes(part), `message lacks ${JSON.stringify(part)}: ${message}`);
		const sent = apiRequestsSince(sim, mark);
		assert.strictEqual(
			sent.length,
			0,
			`the simulator received ${sent.length} request(s) although the input was bad`,
		);
		return `"${message}"; nothing sent`;
	}

	await checks.check(
		'bad input: a phone that is not a number in item 1 fails the run naming field, value and [item 1]',
		async () =>
			expectInputError(
				'e2e bad phone',
				[
					codeNode('Rows', [{ phone: '79990000030' }, { phone: 'not a phone' }]),
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-e2e',
							phone: '={{ $json.phone }}',
						},
						cred,
					),
				],
				['phone', '"not a phone"', '[item 1]'],
			),
	);

	await checks.check(
		'bad input: callbackData that is not JSON fails the run naming field, value and [item 0]',
		async () =>
			expectInputError(
				'e2e bad callbackData',
				[
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-e2e',
							phone: '79990000031',
							candidateFields: { callbackData: '{crmId: 1' },
						},
						cred,
					),
				],
				['callbackData', '"{crmId: 1"', 'not valid JSON', '[item 0]'],
			),
	);
};
