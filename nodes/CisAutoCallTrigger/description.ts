import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { authenticationProperty } from '../shared/authentication';
import { callTaskFields } from '../shared/callTaskFields';
import { EVENTS } from '../shared/events';
import { MAX_REMEMBERED_DELIVERIES } from './deliveries';
import { DEFAULT_OLD_TASK_POLICY, OLD_TASK_POLICY_OPTIONS } from './oldTask';
import { DEFAULT_EVENTS } from './settings';

const connectToNewTask = { show: { connectTo: ['newTask'] } };
const connectToExisting = { show: { connectTo: ['existing'] } };
/** The secret typed into the node by earlier versions: shown (and used) only while it holds a value. */
const legacySecretSet = [{ _cnd: { exists: true as const } }];

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
				description: 'Activating the workflow creates a call task that reports to this trigger',
			},
			{
				name: 'Existing Task or Template',
				value: 'existing',
				description:
					'You paste this trigger\'s URL into the webhook settings of a template or task in the service\'s management interface',
			},
		],
		default: 'newTask',
	},
	{
		displayName:
			'Publishing the workflow (activating, in n8n 1.x) creates a call task with the settings below, with this trigger as its webhook: a real campaign that calls the candidates you add with the CIS Auto-Call node. Publishing again with unchanged settings takes the same task back; changed settings create a new one, and "Old Task" says what becomes of the old one. While building, "Listen for test event" creates no task, so no event arrives and nothing is paid for. To have data to build with, use "set mock data" in the output pane with a sample event such as {"event": "CALL_ENDED", "taskId": "task-1", "status": "ANSWERED"}, or switch Connect To to "Existing Task or Template" and listen to a task you already have.',
		name: 'newTaskNotice',
		type: 'notice',
		default: '',
		displayOptions: connectToNewTask,
	},
	{
		displayName:
			'Nothing is created on the service. Paste this trigger\'s Production URL (Webhook URLs, above: click it to copy) into the webhook settings of the call-task template or task in the service\'s management interface, with ?secret= and the secret of the credential above at its end, e.g. https://n8n.example.com/webhook/…/webhook?secret=YOUR_SECRET. Tasks made from that template (Candidate → Create and Run, Create Batch From Template) then report here. While building, "Listen for test event" receives the events the service sends to the Test URL: paste the Test URL the same way to try it. Publishing the workflow (activating, in n8n 1.x) makes the Production URL answer; nothing is registered or paid for.',
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
		description: 'The secret as earlier versions of this node kept it. Requests without it are refused with 401.',
	},
	{
		displayName:
			'This secret is saved in the workflow: exports, workflow history and execution data carry it. Move it into a credential: create a "CIS Auto-Call Webhook Secret API" credential with the same value (it is also at the end of the URL pasted into the service), select it above, then empty this field. While this field holds a value, it is the secret used.',
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
		description:
			'Events that start the workflow; others are answered 200 and ignored. For a new task, only these are requested from the service.',
	},
	...updateDisplayOptions(connectToNewTask, callTaskFields),
	{
		displayName: 'Partial Results',
		name: 'partialResults',
		type: 'boolean',
		default: false,
		displayOptions: connectToNewTask,
		description: 'Whether the service sends intermediate results',
	},
	{
		displayName: 'Delay (Seconds)',
		name: 'delay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		displayOptions: connectToNewTask,
		description: 'How long the service waits before sending each event',
	},
	{
		displayName: 'Old Task',
		name: 'oldTask',
		type: 'options',
		options: OLD_TASK_POLICY_OPTIONS,
		default: DEFAULT_OLD_TASK_POLICY,
		displayOptions: connectToNewTask,
		description:
			'What happens to the task this trigger stops using, when the workflow is deactivated or changed settings register a new task. If it cannot be done, activation fails (nothing new is created) or, on deactivation, n8n logs why.',
	},
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
					'IP addresses or CIDR ranges (IPv4 or IPv6), separated by commas, that may send events; others get 403. The platform documents 87.251.83.160/27 as its webhook range. Behind a reverse proxy, set N8N_PROXY_HOPS so n8n sees the sender\'s address.',
			},
			{
				displayName: 'Ignore Repeated Deliveries',
				name: 'ignoreRepeats',
				type: 'boolean',
				default: true,
				description: `Whether a delivery with the same body as one received in the last 24 hours (the service re-sends until it gets a 200) is answered 200 without starting the workflow. Remembered in this n8n process's memory, at most ${MAX_REMEMBERED_DELIVERIES.toLocaleString('en-US')} deliveries (the oldest forgotten first). Across webhook processes or restarts, de-duplicate on the item's deliveryId (Remove Duplicates node).`,
			},
		],
	},
];
