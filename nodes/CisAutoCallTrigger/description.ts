import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { authenticationProperty } from '../shared/authentication';
import { callTaskFields } from '../shared/callTaskFields';
import { EVENTS } from '../shared/events';
import { DEFAULT_EVENTS, MAX_REMEMBERED_DELIVERIES } from './delivery';
import { inTriggerWords, SHORT_PANEL_VERSION, shortPanel } from './newTaskPanel';
import {
	ALLOW_LOCAL_URL_OPTION,
	DEFAULT_OLD_TASK_POLICY,
	OLD_TASK_POLICY_OPTIONS,
} from './registration';
import { withoutKey } from '../shared/convert';

const connectToNewTask = { show: { connectTo: ['newTask'] } };
const connectToExisting = { show: { connectTo: ['existing'] } };
/** Versions 1 and 1.1 show every field of the new task on the panel; version 2 the short panel (newTaskPanel.ts). */
const newTaskFullPanel = {
	show: { connectTo: ['newTask'], '@version': [{ _cnd: { lt: SHORT_PANEL_VERSION } }] },
};
const newTaskShortPanel = {
	show: { connectTo: ['newTask'], '@version': [{ _cnd: { gte: SHORT_PANEL_VERSION } }] },
};
/** The secret typed into the node by earlier versions: shown (and used) only while it holds a value. */
const legacySecretSet = [{ _cnd: { exists: true as const } }];

/**
 * Fields of a new task that n8n would check as "required" before the trigger runs any check of its
 * own. Publishing on an n8n without a public URL must first say that no task can be created there
 * (registration/publicUrl.ts), not ask for a Name; the trigger checks these fields itself when it creates the task
 * (an empty one is refused by name). Saved workflows keep the same parameters.
 */
const CHECKED_AT_PUBLISHING = ['name', 'defaultExecData'];

function checkedAtPublishing(fields: INodeProperties[]): INodeProperties[] {
	return fields.map((field) => {
		if (!CHECKED_AT_PUBLISHING.includes(field.name)) return field;
		return {
			...withoutKey(field, 'required'),
			description: field.description
				? `${field.description}; needed to publish`
				: 'Needed to publish',
		};
	});
}

/** The trigger's own settings of a new task (top level in versions 1 and 1.1, under "Advanced" in version 2). */
const newTaskTriggerFields: INodeProperties[] = [
	{
		displayName: 'Partial Results',
		name: 'partialResults',
		type: 'boolean',
		default: false,
		description: 'Whether the service sends intermediate results',
	},
	{
		displayName: 'Delay (Seconds)',
		name: 'delay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'How long the service waits before sending each event',
	},
	{
		displayName: 'Old Task',
		name: 'oldTask',
		type: 'options',
		options: OLD_TASK_POLICY_OPTIONS,
		default: DEFAULT_OLD_TASK_POLICY,
		description:
			'What happens to the task this trigger stops using: on deactivation, or when changed settings register a new one',
		hint: 'If it cannot be done, activation fails (nothing new is created) or, on deactivation, n8n logs why. The trigger page of the guide has the details.',
	},
];

/** The trigger's fields: how it connects, which events start the workflow, the call task it creates, its checks. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Connect To',
		name: 'connectTo',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'New Call Task (Registers Itself)',
				value: 'newTask',
				description:
					'Publishing the workflow (n8n 1.x: activating it) creates a call task that reports to this trigger',
			},
			{
				name: 'Existing Task or Template',
				value: 'existing',
				description:
					"You paste this trigger's URL into the webhook settings of a template or task in the service's management interface",
			},
		],
		default: 'newTask',
	},
	{
		displayName:
			'Publishing (in n8n 1.x: activating) the workflow creates a real call task that reports here and calls the people you add, at a cost; testing the trigger creates nothing. The trigger page of the guide explains changed settings, the old task and building with sample data.',
		name: 'newTaskNotice',
		type: 'notice',
		default: '',
		displayOptions: connectToNewTask,
	},
	{
		displayName:
			'Paste this trigger\'s URL (above), ending in ?secret= and the credential\'s secret, into the webhook settings of your task or template in the service; "Test this trigger" (in n8n 1.x: "Execute step") receives what it sends to the Test URL. Nothing is created or paid for here.',
		name: 'existingNotice',
		type: 'notice',
		default: '',
		displayOptions: connectToExisting,
	},
	// No displayOptions: n8n's editor moves this field into the credential window and hides every
	// parameter it depends on (nodeTypesUtils.isAuthRelatedParameter), which hid "Connect To". The
	// credentials themselves are shown for New Call Task only.
	authenticationProperty,
	{
		displayName: 'Secret (Saved in the Workflow)',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		displayOptions: { show: { connectTo: ['existing'], secret: legacySecretSet } },
		description:
			'The secret as earlier versions of this node kept it; requests without it are refused with 401',
	},
	{
		displayName:
			'This secret is saved in the workflow, so exports and executions carry it: put it into a "CIS Auto-Call Webhook Secret API" credential, select that above, and empty this field.',
		name: 'legacySecretNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { connectTo: ['existing'], secret: legacySecretSet } },
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: EVENTS.map(({ name, value, description }) => ({ name, value, description })),
		default: [...DEFAULT_EVENTS],
		description: 'Events that start the workflow; others are answered 200 and ignored',
		hint: 'For a new task, only these are requested from the service.',
	},
	...updateDisplayOptions(
		newTaskFullPanel,
		checkedAtPublishing([...inTriggerWords(callTaskFields), ...newTaskTriggerFields]),
	),
	...updateDisplayOptions(newTaskShortPanel, checkedAtPublishing(shortPanel(newTaskTriggerFields))),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Allowed Source Addresses',
				name: 'allowedAddresses',
				type: 'string',
				default: '',
				placeholder: 'e.g. 87.251.83.160/27',
				description:
					'IP addresses or CIDR ranges (IPv4 or IPv6), separated by commas, that may send events; others get 403',
				hint: "The platform documents 87.251.83.160/27 as its webhook range. Behind a reverse proxy, set N8N_PROXY_HOPS so n8n sees the sender's address.",
			},
			{
				displayName: 'Ignore Repeated Deliveries',
				name: 'ignoreRepeats',
				type: 'boolean',
				default: true,
				description:
					'Whether a delivery with the same body as one received in the last 24 hours is answered 200 without starting the workflow',
				hint: `The service re-sends until it gets a 200. Remembered in this n8n process's memory, at most ${MAX_REMEMBERED_DELIVERIES.toLocaleString('en-US')} deliveries (the oldest forgotten first). Across webhook processes or restarts, remove duplicates by the delivery ID of each item (Remove Duplicates node).`,
			},
			{
				displayName: 'Also Start This Workflow for Waiting Calls',
				name: 'outputWaitingCalls',
				type: 'boolean',
				default: false,
				description:
					'Whether events of calls placed by "Create and Run and Wait for Result" also start this workflow',
				hint: 'Off: they only continue the workflow that waits for them, so that one call is not handled twice.',
			},
			{
				displayName: 'Allow a Local Webhook URL',
				name: ALLOW_LOCAL_URL_OPTION,
				type: 'boolean',
				// A choice the user makes knowingly: never computed by an expression (registration/publicUrl.ts reads the saved value).
				noDataExpression: true,
				default: false,
				displayOptions: { show: { '/connectTo': ['newTask'] } },
				description:
					"Whether to create the task even though n8n's webhook URL is local or private (localhost, 192.168.x.x, .local)",
				hint: "Only when the service can reach it: a simulator or a private network. Otherwise set n8n's public URL (N8N_WEBHOOK_URL; WEBHOOK_URL on n8n 1.x).",
			},
		],
	},
];
