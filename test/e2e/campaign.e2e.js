'use strict';
/**
 * The full campaign from n8n, with examples 5a/5b/5c as npm start sets them up:
 * the trigger (New Call Task) creates the task on activation → example 5b finds that task
 * (Call Task → Get Many by the campaign's name), adds the CRM list to it (Candidate → Add Many to
 * Task) and starts it (Call Task → Start) → the simulator plays the calls → executions of 5a
 * with callbackData, results at the CRM stub → example 5c stops the task (Call Task → Stop).
 */
const assert = require('assert');
const { CRM_CONTACTS } = require('../../scripts/lib/playground');
const {
	apiRequestsSince,
	outputOf,
	assertSuccess,
	tasksPointingAt,
	waitFor,
	feedCampaign,
} = require('./harness');

const P = '/cis/api/v1';
const CAMPAIGN = 'Spring campaign';
const TRIGGER = 'Spring campaign';

module.exports = async function campaignChecks(ctx) {
	const { client, sim, crm, checks } = ctx;
	if (!ctx.playground) {
		checks.skip('campaign', 'the examples could not be set up');
		return;
	}
	const wfs = ctx.playground.workflows;
	const triggerUrl = wfs['05a'].triggerUrl;
	let task = null;

	const ok = await checks.check(
		'campaign: activating example 5a (trigger, New Call Task) created the task "Spring campaign" reporting to it',
		async () => {
			const tasks = tasksPointingAt(sim, triggerUrl);
			assert.strictEqual(tasks.length, 1, `tasks pointing at 5a: ${tasks.length}`);
			task = tasks[0];
			assert.strictEqual(task.name, CAMPAIGN);
			assert.strictEqual(task.status, 'BLANK');
			return `task ${task.id}, status ${task.status}`;
		},
	);
	if (!ok) {
		checks.skip('campaign: feed, start, play, stop', 'no campaign task');
		return;
	}

	await checks.check(
		"campaign: example 5b finds the trigger's task by name, adds the CRM list with Add Many to Task, starts it (one request each)",
		async () => {
			const ex = await feedCampaign({
				client,
				sim,
				workflowId: wfs['05b'].id,
				campaign: CAMPAIGN,
				taskId: task.id,
			});
			assert.strictEqual(
				outputOf(ex, 'Add the contacts to the campaign').length,
				CRM_CONTACTS.length,
			);
			return `GET list → ${task.id}; ${CRM_CONTACTS.length} contacts in 1 batch request; 1 start`;
		},
	);

	await checks.check(
		"campaign: the simulator plays the calls → executions of 5a carry each contact's callbackData; the CRM gets every result",
		async () => {
			const exs = await client.waitForExecutions(wfs['05a'].id, CRM_CONTACTS.length * 2, 30000);
			const items = exs.map((e) => {
				assertSuccess(e);
				return outputOf(e, TRIGGER)[0];
			});
			for (const c of CRM_CONTACTS) {
				const mine = items
					.filter((i) => i.callbackData && i.callbackData.crmId === c.crmId)
					.map((i) => i.event)
					.sort();
				assert.deepStrictEqual(
					mine,
					['CALL_ENDED', 'CANDIDATE_CHANGED'],
					`events of ${c.crmId}: ${mine.join(', ')}`,
				);
			}
			await waitFor(
				'the CRM results of the campaign',
				() =>
					CRM_CONTACTS.every((c) =>
						['CALL_ENDED', 'CANDIDATE_CHANGED'].every((ev) =>
							crm.requests.some(
								(r) =>
									r.path === `/leads/${c.crmId}/call-results` &&
									r.body.event === ev &&
									r.body.campaign === CAMPAIGN,
							),
						),
					),
				20000,
			);
			return `${exs.length} executions; CRM got ${CRM_CONTACTS.length * 2} results`;
		},
	);

	await checks.check(
		'campaign: example 5c stops the task (Call Task → Stop: POST telephony/autoCall/<id>/halted), status HALTED',
		async () => {
			const mark = sim.requests.length;
			const ex = await client.runWorkflowManually(wfs['05c'].id);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path}`);
			assert.deepStrictEqual(sent, [
				`GET ${P}/telephony/autoCall`,
				`POST ${P}/telephony/autoCall/${task.id}/halted`,
			]);
			assert.strictEqual(sim.state.tasks.get(task.id).status, 'HALTED');
			return 'HALTED';
		},
	);
};
