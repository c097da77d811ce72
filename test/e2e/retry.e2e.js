'use strict';
/**
 * n8n's own "Retry" of a failed execution (POST /rest/executions/:id/retry,
 * both choices: the workflow as it was saved in the execution, `loadWorkflow: false`, and the
 * current workflow, `loadWorkflow: true`) calls nobody twice. Create and Run with 5 rows, the
 * simulator creating row 3's candidate and answering 502: the failed run POSTs rows 0-3; the
 * retry POSTs row 4 only, and says rows 0-2 are already done. The simulator counts the
 * candidates per phone: 1 each.
 */
const assert = require('assert');
const { cisNode, codeNode, outputOf, errorOf, assertSuccess } = require('./harness');

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';

/** The notices (execution hints) n8n saved with a node's first run. */
function hintsOf(execution, nodeName) {
	const runData = execution.data && execution.data.resultData && execution.data.resultData.runData;
	const task = runData && runData[nodeName] && runData[nodeName][0];
	return (task && task.hints) || [];
}

module.exports = async function retryChecks(ctx) {
	const { sim, creds, checks, client } = ctx;

	for (const [typeVersion, first] of [[1, 10], [2, 20]]) {
		const phones = Array.from({ length: 2 }, (_, index) => `7999000${String(first + index).padStart(4, '0')}`);
		await checks.check(
			`the same workflow executed twice (two new executions, action node version ${typeVersion}): both send, nobody is left out`,
			async () => {
				const mark = sim.requests.length;
				const wf = await ctx.createManualWorkflow(`e2e executed twice v${typeVersion}`, [
					codeNode('Rows', phones.map((phone) => ({ phone }))),
					cisNode('Call', {
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-e2e-twice',
						phone: '={{ $json.phone }}',
					}, creds.token, { typeVersion }),
				]);
				const posted = () => sim.requests.slice(mark).filter((r) => r.path === SINGLE && r.method === 'POST').map((r) => r.body.phone[0]);
				const once = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				assertSuccess(once);
				const twice = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				assertSuccess(twice);
				assert.deepStrictEqual(posted(), [...phones, ...phones], 'each execution sends both rows');
				const out = outputOf(twice, 'Call');
				assert.deepStrictEqual(out.map((json) => json.alreadyDone), [undefined, undefined]);
				assert.deepStrictEqual(hintsOf(twice, 'Call'), []);
				return `2 executions, ${posted().length} POSTs`;
			},
		);
	}

	/** n8n's Retry button: POST /rest/executions/:id/retry; then the new execution with its data. */
	async function retryExecution(id, loadWorkflow) {
		const res = await client.rawRest('POST', `/executions/${id}/retry`, { loadWorkflow });
		if (res.status !== 200) throw new Error(`POST /rest/executions/${id}/retry answered ${res.status}: ${res.text || JSON.stringify(res.body)}`);
		const answer = res.body && res.body.data !== undefined ? res.body.data : res.body;
		const retriedId = answer && typeof answer === 'object' ? answer.id : undefined;
		assert.ok(retriedId, `the retry answered ${JSON.stringify(answer).slice(0, 300)}`);
		assert.notStrictEqual(String(retriedId), String(id), 'the retry must be a new execution');
		return await client.getExecution(retriedId);
	}

	for (const [loadWorkflow, first] of /** @type {[boolean, number][]} */ ([[false, 50], [true, 60]])) {
		const phones = Array.from({ length: 5 }, (_, index) => `799900000${first + index}`);
		await checks.check(
			`n8n's Retry of a failed execution (loadWorkflow: ${loadWorkflow}): Create and Run, 5 rows answered 200, 200, 200, 502: the retry sends row 4 only, rows 0-2 "already done" with their ids; 1 candidate per phone`,
			async () => {
				sim.injectFault({ path: SINGLE, status: 502, afterHandling: true, bodyIncludes: phones[3] });
				const mark = sim.requests.length;
				const failed = await ctx.run(`e2e retry of a failed execution (${loadWorkflow})`, [
					codeNode('Rows', phones.map((phone) => ({ phone }))),
					cisNode('Call', {
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-e2e-retry-execution',
						phone: '={{ $json.phone }}',
						options: { concurrency: 1 },
					}, creds.token),
				]);
				assert.strictEqual(failed.status, 'error', `expected the run to fail on row 3, it ended ${failed.status}`);
				assert.match(String(errorOf(failed).message), /\[item 3\]/);
				const posted = () => sim.requests.slice(mark).filter((r) => r.path === SINGLE && r.method === 'POST').map((r) => r.body.phone[0]);
				assert.deepStrictEqual(posted(), phones.slice(0, 4));

				const retried = await retryExecution(failed.id, loadWorkflow);
				assertSuccess(retried);
				assert.deepStrictEqual(posted(), phones, 'the retry must POST row 4 only');
				const created = phones.map((phone) => [...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length);
				assert.deepStrictEqual(created, [1, 1, 1, 1, 1], 'candidates per phone');
				const out = outputOf(retried, 'Call');
				assert.strictEqual(out.length, 5, JSON.stringify(out));
				for (const index of [0, 1, 2]) {
					assert.strictEqual(out[index].alreadyDone, true, JSON.stringify(out[index]));
					assert.match(String(out[index].note), /^Already done by an earlier execution/);
					const [candidate] = [...sim.state.candidates.values()].filter((c) => c.phone.includes(phones[index]));
					assert.strictEqual(out[index].autoCallCandidateId, candidate.id);
				}
				assert.strictEqual(out[3].alreadyDone, true, 'row 3 (outcome unknown) is not sent again');
				assert.strictEqual(out[4].alreadyDone, undefined);
				const hints = hintsOf(retried, 'Call');
				assert.strictEqual(hints.length, 1, `one notice above the output: ${JSON.stringify(hints)}`);
				assert.match(String(hints[0].message), /^4 items were not sent again: .*nobody is called twice/);
				return `execution ${failed.id} (4 POSTs) → retry ${retried.id} (1 POST); candidates per phone ${created.join(',')}`;
			},
		);
	}
};
