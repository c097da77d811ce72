'use strict';
/**
 * The example workflows (examples/*.json), set up exactly as `npm start` sets them up
 * (scripts/lib/playground.js setupPlayground), run as they are against the simulator and the CRM stub.
 * Examples 1-4, 7, 8 and 9 (with the stand-in chat model of scripts/lib/standInModel.js) here; the campaign (5a/5b/5c) in campaign.e2e.js.
 */
const assert = require('assert');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const {
	setupPlayground,
	loadExamples,
	ACTIVATED_EXAMPLES,
	SIM_TOKEN,
} = require('../../scripts/lib/playground');
const {
	apiRequestsSince,
	shapeOf,
	outputOf,
	assertSuccess,
	crmResults,
	postLead,
	leadCallRequest,
	waitFor,
} = require('./harness');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');

const P = '/cis/api/v1';

module.exports = async function exampleChecks(ctx) {
	const examples = loadExamples();

	// Example 9's chat model, as npm start runs it.
	const model = await startScriptedChatModel();
	try {
		return await exampleChecksWithModel(ctx, examples, model);
	} finally {
		await model.close();
	}
};

async function exampleChecksWithModel(ctx, examples, model) {
	const { client, sim, crm, checks } = ctx;
	const ready = await checks.check(
		'examples import and activate as npm start sets them up (credentials, CRM URL, secret, default template → example 2, the stand-in chat model → example 9)',
		async () => {
			const setup = await setupPlayground({
				client,
				n8nUrl: ctx.n8n.url,
				simUrl: sim.url,
				crmUrl: crm.url,
				modelUrl: model.url,
				examples,
			});
			ctx.playground = setup;
			const keys = Object.keys(setup.workflows);
			assert.deepStrictEqual(
				keys,
				examples.map((e) => e.key),
			);
			for (const key of ACTIVATED_EXAMPLES) {
				const wf = await client.getWorkflow(setup.workflows[key].id);
				assert.ok(wf.active, `example ${key} is not active`);
			}
			const target = sim.state.defaultTemplate.webhookUrls[0];
			assert.strictEqual(target.url, `${setup.workflows['02'].triggerUrl}?secret=${setup.secret}`);
			return `${keys.length} workflows (${ACTIVATED_EXAMPLES.join(', ')} active); default template → ${setup.workflows['02'].triggerUrl}?secret=…`;
		},
	);
	if (!ready) {
		for (const n of ['1 + 2', '3', '4']) checks.skip(`example ${n}`, 'set-up failed');
		return false;
	}
	const wfs = ctx.playground.workflows;

	let callId = null;
	await checks.check(
		"examples 1 + 2: a lead POSTed to example 1 is called by the simulator; the result reaches the CRM stub with the lead's CRM id",
		async () => {
			const lead = { name: 'Ann Lee', phone: '79990005555', crmId: 'CRM-42' };
			const { res, sent } = await postLead({ n8nUrl: ctx.n8n.url, sim, lead });
			assert.deepStrictEqual(
				sent.filter((r) => r.path === `${P}/telephony/autoCallCandidate/single`),
				[leadCallRequest(lead)],
			);
			const [ended, changed] = await crmResults(crm, [
				[lead.crmId, 'CALL_ENDED'],
				[lead.crmId, 'CANDIDATE_CHANGED'],
			]);
			assert.strictEqual(ended.body.status, 'ANSWERED');
			assert.strictEqual(ended.body.phone, lead.phone);
			assert.strictEqual(ended.body.candidateId, res.body.autoCallCandidateId);
			assert.strictEqual(changed.body.status, 'SUCCESS');
			callId = ended.body.callId;
			assert.ok(sim.state.calls.has(callId), `unknown call ${callId}`);
			const exs = await client.waitForExecutions(wfs['02'].id, 2, 20000);
			for (const e of exs) {
				assertSuccess(e);
				assert.strictEqual(
					outputOf(e, 'Call results (default template)')[0].callbackData.crmId,
					lead.crmId,
				);
			}
			return `candidate ${res.body.autoCallCandidateId}; CRM got POST /leads/${lead.crmId}/call-results (CALL_ENDED ANSWERED, CANDIDATE_CHANGED SUCCESS)`;
		},
	);

	await checks.check(
		"example 3: the Code rows become one campaign from the default template; every row's result reaches the CRM",
		async () => {
			const mark = sim.requests.length;
			const ex = await client.runWorkflowManually(wfs['03'].id);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).map((r) => shapeOf(r));
			assert.strictEqual(sent.length, 1, JSON.stringify(sent));
			assert.strictEqual(sent[0].path, `${P}/telephony/autoCallCandidate/single/batch`);
			const rows = outputOf(ex, 'Rows to call');
			assert.deepStrictEqual(
				sent[0].body.batch,
				rows.map((r) => ({
					phone: [r.phone],
					variables: { name: r.name },
					callbackData: { crmId: r.crmId },
					clientExternalId: r.crmId,
					botSettingsId: 'bot-lead-qualification',
				})),
			);
			await crmResults(
				crm,
				rows.flatMap((r) => [
					[r.crmId, 'CALL_ENDED'],
					[r.crmId, 'CANDIDATE_CHANGED'],
				]),
			);
			return `${rows.length} rows → 1 request; CRM got ${rows.length * 2} results (${rows.map((r) => r.crmId).join(', ')})`;
		},
	);

	await checks.check(
		'example 7: the same lead POSTed twice is called once (Remove Duplicates on the CRM id before the call)',
		async () => {
			const lead = { name: 'Dan Twice', phone: '79990005577', crmId: 'CRM-77' };
			const mark = sim.requests.length;
			for (const attempt of [1, 2]) {
				const res = await httpRequest('POST', `${ctx.n8n.url}/webhook/cis-lead-once`, {
					body: lead,
				});
				assert.strictEqual(
					res.status,
					200,
					`attempt ${attempt}: example 7 answered ${res.status} ${res.text}`,
				);
			}
			const runs = await client.waitForExecutions(wfs['07'].id, 2, 20000);
			// n8n 1.x: when the two executions overlap, Remove Duplicates of one of them may fail on its own
			// database row (UNIQUE constraint of processed_data); it then calls nobody either.
			const overlapped = runs.filter(
				(run) =>
					run.status === 'error' &&
					/UNIQUE constraint failed: processed_data/.test(
						JSON.stringify(run.data && run.data.resultData && run.data.resultData.error),
					),
			);
			for (const run of runs) if (!overlapped.includes(run)) assertSuccess(run);
			assert.ok(overlapped.length < runs.length, 'no execution succeeded');
			const sent = apiRequestsSince(sim, mark).filter(
				(r) => r.path === `${P}/telephony/autoCallCandidate/single` && r.method === 'POST',
			);
			assert.strictEqual(sent.length, 1, `${sent.length} calls for one lead posted twice`);
			const auth = String(sent[0].headers.authorization);
			assert.ok(
				auth.startsWith('Bearer ') && auth !== `Bearer ${SIM_TOKEN}`,
				'sent with a token from the login credential',
			);
			return `2 posts → 1 call (login credential)${overlapped.length ? "; n8n's Remove Duplicates failed in the overlapping execution (UNIQUE constraint of processed_data)" : ''}`;
		},
	);

	await checks.check(
		'example 8: a lead POSTed → called → the same execution waits, then writes the result to the CRM (example 2 hands it over, without starting its own workflow)',
		async () => {
			const lead = { name: 'Eve Waits', phone: '79990005588', crmId: 'CRM-88' };
			const res = await httpRequest('POST', `${ctx.n8n.url}/webhook/cis-lead-wait`, { body: lead });
			assert.strictEqual(res.status, 200, `example 8 answered ${res.status} ${res.text}`);
			const [written] = await crmResults(crm, [[lead.crmId, 'CALL_RESULT']], 60000);
			assert.strictEqual(written.body.status, 'Answered', JSON.stringify(written.body));
			assert.strictEqual(written.body.outcome, 'answered');
			assert.ok(sim.state.calls.has(written.body.callId), `unknown call ${written.body.callId}`);
			const [run] = await client.waitForExecutions(wfs['08'].id, 1, 20000);
			assertSuccess(run);
			assert.strictEqual(outputOf(run, 'Update the lead in the CRM').length, 1);
			await sim.idle();
			const exampleTwo = await client.listExecutions(wfs['02'].id, { includeData: true });
			const forThisLead = exampleTwo.filter((e) =>
				outputOf(e, 'Call results (default template)').some(
					(item) => item.callbackData && item.callbackData.crmId === lead.crmId,
				),
			);
			assert.strictEqual(
				forThisLead.length,
				0,
				`example 2 ran for the waiting call: executions ${forThisLead.map((e) => e.id).join(', ')}`,
			);
			return `CRM got POST /leads/${lead.crmId}/call-results {status: ${written.body.status}} from execution ${run.id}`;
		},
	);

	await checks.check(
		'example 9: a lead POSTed → the AI Agent (stand-in model) calls it, waits for the answer, and the CRM gets a note written from what the person said',
		async () => {
			const lead = { name: 'Ann Agent', phone: '79990005599', crmId: 'CRM-99' };
			sim.setOutcome(lead.phone, { attempts: ['ANSWERED'], result: { interested: 'yes' } });
			const mark = model.requests.length;
			const res = await httpRequest('POST', `${ctx.n8n.url}/webhook/cis-lead-agent`, {
				body: lead,
			});
			assert.strictEqual(res.status, 200, `example 9 answered ${res.status} ${res.text}`);
			const note = await waitFor(
				`the CRM note of ${lead.crmId}`,
				() =>
					crm.requests.find(
						(r) =>
							r.method === 'POST' &&
							r.path === `/leads/${lead.crmId}/notes` &&
							r.body &&
							r.body.event === 'AGENT_NOTE',
					),
				60000,
			);
			assert.match(
				note.body.note,
				/^CRM note: reached by phone \(call [^)]+\)\. They said - interested: yes\.$/,
				JSON.stringify(note.body),
			);
			const toolMessages = model.requests
				.slice(mark)
				.flatMap((r) => (r.body.messages || []).filter((m) => m.role === 'tool'));
			assert.ok(
				toolMessages.some((m) => /"outcome":"answered"/.test(String(m.content))),
				'the model did not read the answered result',
			);
			assert.strictEqual(sim.createdByPhone()[lead.phone], 1, 'candidates created for the lead');
			const [run] = await client.waitForExecutions(wfs['09'].id, 1, 20000);
			assertSuccess(run);
			return `CRM got POST /leads/${lead.crmId}/notes "${note.body.note}" from execution ${run.id}`;
		},
	);

	await checks.check(
		'the examples with the access-token credential: all import, example 3 runs with it',
		async () => {
			const setup = await setupPlayground({
				client,
				n8nUrl: ctx.n8n.url,
				simUrl: sim.url,
				crmUrl: crm.url,
				examples,
				activate: [],
				credentialType: 'token',
			});
			assert.deepStrictEqual(
				Object.keys(setup.workflows),
				examples.map((e) => e.key),
			);
			const mark = sim.requests.length;
			const ex = await client.runWorkflowManually(setup.workflows['03'].id);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).filter(
				(r) => r.path === `${P}/telephony/autoCallCandidate/single/batch`,
			);
			assert.strictEqual(sent.length, 1);
			assert.strictEqual(
				String(sent[0].headers.authorization),
				`Bearer ${SIM_TOKEN}`,
				'sent with the access token',
			);
			return `${Object.keys(setup.workflows).length} workflows imported; example 3 sent 1 request with the access token`;
		},
	);

	if (!callId) checks.skip('example 4', 'no call id from examples 1 + 2');
	else {
		await checks.check(
			'example 4: depersonalize a call keeping its recording, then delete the recording',
			async () => {
				const url = `${ctx.n8n.url}/webhook/cis-privacy`;
				assert.ok(sim.state.calls.get(callId).record, 'the call has no recording to begin with');
				const r1 = await httpRequest('POST', url, {
					body: { callId, action: 'depersonalize', keepRecording: true },
				});
				assert.strictEqual(r1.status, 200, `answered ${r1.status} ${r1.text}`);
				assert.strictEqual(r1.body && r1.body.success, true, `answer: ${r1.text}`);
				assert.strictEqual(r1.body.callId, callId);
				assert.strictEqual(r1.body.recordingKept, true);
				let call = sim.state.calls.get(callId);
				assert.strictEqual(call.depersonalized, true);
				assert.strictEqual(call.callTo, null);
				assert.ok(call.record, 'the recording was deleted although keepRecording was true');
				const r2 = await httpRequest('POST', url, { body: { callId, action: 'deleteRecording' } });
				assert.strictEqual(r2.status, 200, `answered ${r2.status} ${r2.text}`);
				assert.strictEqual(r2.body && r2.body.deleted, true, `answer: ${r2.text}`);
				assert.strictEqual(r2.body.callId, callId);
				call = sim.state.calls.get(callId);
				assert.strictEqual(call.record, null);
				return `call ${callId}: depersonalized with recording kept, then recording deleted`;
			},
		);
	}
	return true;
}
