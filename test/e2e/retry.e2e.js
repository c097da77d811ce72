'use strict';
/**
 * n8n's own "Retry" of a failed execution (POST /rest/executions/:id/retry,
 * both choices: the workflow as it was saved in the execution, `loadWorkflow: false`, and the
 * current workflow, `loadWorkflow: true`) calls nobody twice. Create and Run with 5 rows, the
 * simulator creating row 3's candidate and answering 502: the failed run POSTs rows 0-3; the
 * retry POSTs row 4 only, and says rows 0-2 are already done. The simulator counts the
 * candidates per phone: 1 each. A burst: 20 leads posted at once to a Webhook workflow, each call
 * created and answered 502 (outcome unknown, the execution fails); n8n's Retry of each of the 20 failed
 * executions calls nobody again (n8n keeps the record as one row per node, read and written back whole:
 * executions at once must not drop one another's requests).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const {
	cisNode,
	codeNode,
	outputOf,
	errorOf,
	assertSuccess,
	chain,
	leadWebhook,
	waitFor,
} = require('./harness');

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';

/** The notices (execution hints) n8n saved with a node's first run. */
function hintsOf(execution, nodeName) {
	const runData = execution.data && execution.data.resultData && execution.data.resultData.runData;
	const task = runData && runData[nodeName] && runData[nodeName][0];
	return (task && task.hints) || [];
}

module.exports = async function retryChecks(ctx) {
	const { sim, creds, checks, client } = ctx;

	for (const [typeVersion, first] of [
		[1, 10],
		[2, 20],
	]) {
		const phones = Array.from(
			{ length: 2 },
			(_, index) => `7999000${String(first + index).padStart(4, '0')}`,
		);
		await checks.check(
			`the same workflow executed twice (two new executions, action node version ${typeVersion}): both send, nobody is left out`,
			async () => {
				const mark = sim.requests.length;
				const wf = await ctx.createManualWorkflow(`e2e executed twice v${typeVersion}`, [
					codeNode(
						'Rows',
						phones.map((phone) => ({ phone })),
					),
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-e2e-twice',
							phone: '={{ $json.phone }}',
						},
						creds.token,
						{ typeVersion },
					),
				]);
				const posted = () =>
					sim.requests
						.slice(mark)
						.filter((r) => r.path === SINGLE && r.method === 'POST')
						.map((r) => r.body.phone[0]);
				const once = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				assertSuccess(once);
				const twice = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				assertSuccess(twice);
				assert.deepStrictEqual(posted(), [...phones, ...phones], 'each execution sends both rows');
				const out = outputOf(twice, 'Call');
				assert.deepStrictEqual(
					out.map((json) => json.alreadyDone),
					[undefined, undefined],
				);
				assert.deepStrictEqual(hintsOf(twice, 'Call'), []);
				return `2 executions, ${posted().length} POSTs`;
			},
		);
	}

	/** n8n's Retry button: POST /rest/executions/:id/retry; then the new execution with its data. */
	async function retryExecution(id, loadWorkflow) {
		const res = await client.rawRest('POST', `/executions/${id}/retry`, { loadWorkflow });
		if (res.status !== 200)
			throw new Error(
				`POST /rest/executions/${id}/retry answered ${res.status}: ${res.text || JSON.stringify(res.body)}`,
			);
		const answer = res.body && res.body.data !== undefined ? res.body.data : res.body;
		const retriedId = answer && typeof answer === 'object' ? answer.id : undefined;
		assert.ok(retriedId, `the retry answered ${JSON.stringify(answer).slice(0, 300)}`);
		assert.notStrictEqual(String(retriedId), String(id), 'the retry must be a new execution');
		return await client.getExecution(retriedId);
	}

	for (const [loadWorkflow, first] of /** @type {[boolean, number][]} */ ([
		[false, 50],
		[true, 60],
	])) {
		const phones = Array.from({ length: 5 }, (_, index) => `799900000${first + index}`);
		await checks.check(
			`n8n's Retry of a failed execution (loadWorkflow: ${loadWorkflow}): Create and Run, 5 rows answered 200, 200, 200, 502: the retry sends row 4 only, rows 0-2 "already done" with their ids; 1 candidate per phone`,
			async () => {
				sim.injectFault({
					path: SINGLE,
					status: 502,
					afterHandling: true,
					bodyIncludes: phones[3],
				});
				const mark = sim.requests.length;
				const failed = await ctx.run(`e2e retry of a failed execution (${loadWorkflow})`, [
					codeNode(
						'Rows',
						phones.map((phone) => ({ phone })),
					),
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-e2e-retry-execution',
							phone: '={{ $json.phone }}',
							options: { concurrency: 1 },
						},
						creds.token,
					),
				]);
				assert.strictEqual(
					failed.status,
					'error',
					`expected the run to fail on row 3, it ended ${failed.status}`,
				);
				assert.match(String(errorOf(failed).message), /\[item 3\]/);
				const posted = () =>
					sim.requests
						.slice(mark)
						.filter((r) => r.path === SINGLE && r.method === 'POST')
						.map((r) => r.body.phone[0]);
				assert.deepStrictEqual(posted(), phones.slice(0, 4));

				const retried = await retryExecution(failed.id, loadWorkflow);
				assertSuccess(retried);
				assert.deepStrictEqual(posted(), phones, 'the retry must POST row 4 only');
				const created = phones.map(
					(phone) =>
						[...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length,
				);
				assert.deepStrictEqual(created, [1, 1, 1, 1, 1], 'candidates per phone');
				const out = outputOf(retried, 'Call');
				assert.strictEqual(out.length, 5, JSON.stringify(out));
				for (const index of [0, 1, 2]) {
					assert.strictEqual(out[index].alreadyDone, true, JSON.stringify(out[index]));
					assert.match(String(out[index].note), /^Already done by an earlier execution/);
					const [candidate] = [...sim.state.candidates.values()].filter((c) =>
						c.phone.includes(phones[index]),
					);
					assert.strictEqual(out[index].autoCallCandidateId, candidate.id);
				}
				assert.strictEqual(out[3].alreadyDone, true, 'row 3 (outcome unknown) is not sent again');
				assert.strictEqual(out[4].alreadyDone, undefined);
				const hints = hintsOf(retried, 'Call');
				assert.strictEqual(
					hints.length,
					1,
					`one notice above the output: ${JSON.stringify(hints)}`,
				);
				assert.match(
					String(hints[0].message),
					/^4 items were not sent again: .*nobody is called twice/,
				);
				return `execution ${failed.id} (4 POSTs) → retry ${retried.id} (1 POST); candidates per phone ${created.join(',')}`;
			},
		);
	}
	await checks.check(
		'a burst: 20 leads posted at once to Webhook → Create and Run, each call created and answered 502 (outcome unknown, the execution fails); n8n\'s Retry of each of the 20 failed executions, all at once, calls nobody again: 20 candidates, 1 per phone, every retried item "already done"',
		async () => {
			const phones = Array.from(
				{ length: 20 },
				(_, index) => `7999077${String(index).padStart(4, '0')}`,
			);
			const leadPath = `e2e-burst-${crypto.randomUUID()}`;
			const call = cisNode(
				'Call',
				{
					resource: 'candidate',
					operation: 'createAndRun',
					botSettingsId: 'bot-e2e-burst',
					phone: '={{ $json.body.phone }}',
				},
				creds.token,
			);
			const wf = await client.createWorkflow(
				chain('e2e burst of leads, outcome unknown', [leadWebhook(leadPath), call]),
			);
			sim.injectFault({
				path: SINGLE,
				status: 502,
				afterHandling: true,
				bodyIncludes: '7999077',
				times: phones.length,
			});
			await client.activate(wf.id);
			try {
				const mark = sim.requests.length;
				const posted = () =>
					sim.requests
						.slice(mark)
						.filter((r) => r.path === SINGLE && r.method === 'POST')
						.map((r) => r.body.phone[0]);
				const answers = await Promise.all(
					phones.map((phone) =>
						httpRequest('POST', `${ctx.n8n.url}/webhook/${leadPath}`, { body: { phone } }),
					),
				);
				assert.deepStrictEqual(
					answers.map((a) => a.status),
					phones.map(() => 200),
					'the lead webhook answers',
				);
				let failed = [];
				await waitFor(
					'20 failed executions',
					async () => {
						failed = (await client.listExecutions(wf.id)).filter((e) => e.status === 'error');
						return failed.length === phones.length;
					},
					120000,
					500,
				);
				assert.deepStrictEqual([...posted()].sort(), phones, 'each lead called once');
				for (const e of failed.slice(0, 1))
					assert.match(
						String(errorOf(await client.getExecution(e.id)).message),
						/^Outcome unknown/,
					);
				const retried = await Promise.all(failed.map((e) => retryExecution(e.id, false)));
				const outputs = retried.map((e) => outputOf(e, 'Call')[0] || {});
				const notLeftOut = outputs
					.filter((json) => json.alreadyDone !== true)
					.map((json) => json.phone || JSON.stringify(json).slice(0, 80));
				assert.deepStrictEqual(
					notLeftOut,
					[],
					`${notLeftOut.length} retried execution(s) called again`,
				);
				assert.strictEqual(posted().length, phones.length, 'no POST by the retries');
				const created = phones.map(
					(phone) =>
						[...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length,
				);
				assert.deepStrictEqual(
					created,
					phones.map(() => 1),
					'candidates per phone',
				);
				return `20 executions, 20 POSTs; 20 retries at once, 0 POSTs; candidates per phone all 1`;
			} finally {
				await client.deactivate(wf.id).catch(() => {});
			}
		},
	);
};
