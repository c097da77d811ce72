import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EVENTS } from '../shared/events';
import { answerDelivery } from './delivery';
import { testWebhookSecret } from './secret';
import { triggerProperties } from './description';
import { warnIfHandOverBlocked } from './handOver';
import { parametersOf } from './triggerParameters';
import {
	checkSettings,
	connectsToExisting,
	isRegistered,
	isTestListen,
	register,
	unregister,
} from './registration';

/** The canvas subtitle: the chosen events in words ("Call Ended, Person Done"), not their codes. */
function eventsSubtitle(): string {
	const names = JSON.stringify(
		Object.fromEntries(EVENTS.map((event) => [event.value, event.name])),
	);
	return `={{ [].concat($parameter["events"] || []).map((event) => (${names})[event] || event).join(", ") }}`;
}

/**
 * The trigger's lifecycle, in three rooms. Publishing (webhookMethods) is registration/: it checks
 * the settings and, in New Call Task mode, registers a call task that reports here; in Existing
 * Task mode there is nothing to register. Each delivery (webhook()) is delivery/: verified, handed
 * to a waiting execution (handOver/) or to the workflow as one item.
 */

export class CisAutoCallTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'CIS Auto-Call Trigger',
		name: 'cisAutoCallTrigger',
		icon: { light: 'file:cisAutoCallTrigger.svg', dark: 'file:cisAutoCallTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1: n8n evaluates no expression of its own before calling webhook() (for version 1 it
		// reads options.binaryData through the expression engine on every request) and leaves
		// bodies of other content types unread; webhook() reads those itself.
		// 2: the short panel for New Call Task (newTaskPanel.ts); the parameters keep their names.
		version: [1, 1.1, 2],
		defaultVersion: 2,
		subtitle: eventsSubtitle(),
		// n8n's node panel shows this text for the action node and its trigger together.
		description:
			'Automated outbound calls by voice bots: create call tasks, add candidates, control campaigns, handle privacy requests, and start workflows on call events (calls ended, candidates finished, transfers, recalls, task status)',
		defaults: { name: 'CIS Auto-Call Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Written out (not derived from shared/authentication.ts) because n8n's lint reads this
		// list as a literal to find the node-level test of the webhook secret credential.
		credentials: [
			{
				name: 'cisAutoCallApi',
				required: true,
				displayOptions: { show: { connectTo: ['newTask'], authentication: ['accessToken'] } },
			},
			{
				name: 'cisAutoCallLoginApi',
				required: true,
				displayOptions: { show: { connectTo: ['newTask'], authentication: ['login'] } },
			},
			{
				// Not required by n8n, so that workflows that still have the legacy secret field
				// activate; activation checks that one of the two holds a secret.
				name: 'cisAutoCallWebhookSecretApi',
				required: false,
				displayOptions: { show: { connectTo: ['existing'] } },
				testedBy: 'cisAutoCallWebhookSecretTest',
			},
		],
		triggerPanel: {
			header: 'Listen for a test event of the call task',
			executionsHelp: {
				inactive:
					'New Call Task: a test listen creates no task, so no event arrives; build with mock data (output pane) or listen to an existing task. Existing Task or Template: a test listen receives what the service sends to the Test URL, and publishing makes the Production URL answer.',
				active:
					'The workflow is published: events of the call task start executions, listed under Executions. A test listen still creates no task.',
			},
			activationHint:
				'Publish the workflow (in n8n 1.x: activate it) to create the call task (New Call Task) or to make the Production URL answer (Existing Task or Template).',
		},
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty: n8n then answers with webhook()'s webhookResponse. Without it n8n's default
				// ('firstEntryJson') is sent back as that literal text.
				responseData: '',
				path: 'webhook',
				// New Call Task registers its own URL: a URL to copy would only invite pasting it elsewhere.
				ndvHideUrl: '={{ $parameter["connectTo"] !== "existing" }}',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		credentialTest: { cisAutoCallWebhookSecretTest: testWebhookSecret },
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await checkSettings(this);
				// Here only: n8n runs create only after checkExists, so one publishing logs one warning.
				await warnIfHandOverBlocked(this);
				if (connectsToExisting(parametersOf(this))) return true;
				if (isTestListen(this)) return false;
				return isRegistered(this);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				await checkSettings(this);
				if (connectsToExisting(parametersOf(this))) return true;
				// A test listen would create a task that the service cannot remove: none is created,
				// and nothing registered is touched.
				if (isTestListen(this)) return true;
				await register(this);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				// n8n also runs delete() after a test listen, on the test's own static data: there is
				// no registration there. A test listen never touches the production registration.
				if (isTestListen(this)) return true;
				if (connectsToExisting(parametersOf(this))) return true;
				await unregister(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await answerDelivery(this);
	}
}
