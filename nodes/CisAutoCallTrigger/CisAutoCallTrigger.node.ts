import { createHash, randomBytes } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	INodeCredentialDescription,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { authenticationProperty, credentialDescriptions } from '../shared/authentication';
import { addWebhookTargets, buildCallTaskBody, callTaskFields } from '../shared/callTaskFields';
import { EVENT_NAMES, EVENTS, toEventsMap } from '../shared/events';
import { createApiClient } from '../shared/transport';
import { identityOf, InputError, requireInteger } from '../shared/validation';
import {
	BoundedMap,
	buildOutput,
	deliveryKey,
	hashKey,
	isAddressAllowed,
	parseAddressList,
	parseEventBody,
	RecentKeys,
	SECRET_PARAMETER,
	secretMatches,
	withoutSecret,
	withSecret,
} from './verify';

/** What create() keeps in the node's static data. */
interface Registration {
	autoCallId: string;
	/** The registered URL without its secret. */
	webhookUrl: string;
	fingerprint: string;
	secret: string;
	createdAt: string;
}

const DEFAULT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
const DEFAULT_REMEMBERED = 1000;
const MAX_REMEMBERED = 100000;

/**
 * Remembered delivery keys per workflow + node (+ mode), for the life of the n8n process.
 * Static data written inside webhook() is saved by n8n 1.x but not by 2.x: this map is what
 * makes repeat detection work on 2.x. Bounded in the number of nodes and of keys per node.
 */
const memories = new BoundedMap<RecentKeys>(1000);

const connectToNewTask = { show: { connectTo: ['newTask'] } };
const connectToExisting = { show: { connectTo: ['existing'] } };

const triggerCredentials: INodeCredentialDescription[] = credentialDescriptions.map((credential) => ({
	...credential,
	displayOptions: {
		...credential.displayOptions,
		show: { ...credential.displayOptions?.show, connectTo: ['newTask'] },
	},
}));

const properties: INodeProperties[] = [
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
			'Activating the workflow creates a call task with the settings below and this trigger\'s production URL (with a generated secret) as its webhook target. Add candidates to that task with the CIS Auto-Call node. The service has no call to detach a webhook from a task: re-activating with unchanged settings takes the same task back, while changed settings create a new task and events of the old one are refused (401). "Listen for test event" creates no task (it could never be removed), so it receives nothing: activate the workflow and look at its executions, or try the events with "Existing Task or Template".',
		name: 'newTaskNotice',
		type: 'notice',
		default: '',
		displayOptions: connectToNewTask,
	},
	{
		displayName:
			'Nothing is registered on the service. In its management interface, open the webhook settings of the call-task template (or task) and paste this node\'s Production URL (Webhook URLs, above) followed by ?secret= and the secret below, e.g. https://n8n.example.com/webhook/…/webhook?secret=YOUR_SECRET. This is how tasks made from templates (Candidate → Create and Run, Create Batch From Template) report back.',
		name: 'existingNotice',
		type: 'notice',
		default: '',
		displayOptions: connectToExisting,
	},
	{ ...authenticationProperty, displayOptions: connectToNewTask },
	{
		displayName: 'Secret',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		displayOptions: connectToExisting,
		description:
			'At least 16 characters that you choose (for example a random password); the URL you paste must end with ?secret= and this value. Requests without it are refused with 401.',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: EVENTS.map(({ name, value, description }) => ({ name, value, description })),
		default: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
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
				description:
					'Whether an event delivered again (same event, IDs and status) is answered 200 without starting the workflow. The service re-sends until it gets a 200, so repeats happen.',
			},
			{
				displayName: 'Deliveries to Remember',
				name: 'rememberDeliveries',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_REMEMBERED },
				default: DEFAULT_REMEMBERED,
				description:
					'How many recent deliveries are remembered to recognise repeats. On n8n 2.x they are remembered while the n8n process runs; on 1.x they are also saved with the workflow.',
			},
		],
	},
];

// ---------------------------------------------------------------------------------------------
// Settings, read and checked the same way at activation and per request
// ---------------------------------------------------------------------------------------------

interface TriggerOptions {
	allowedAddresses?: string;
	ignoreRepeats?: boolean;
	rememberDeliveries?: number;
}

type ParameterReader = (name: string, fallback: unknown) => unknown;

function readEvents(read: ParameterReader): string[] {
	const value = read('events', DEFAULT_EVENTS);
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list.map((event) => String(event).trim()).filter((event) => event !== '');
}

function readOptions(read: ParameterReader): TriggerOptions {
	return (read('options', {}) ?? {}) as TriggerOptions;
}

/** Problems with the settings that make the trigger unusable; thrown at activation. */
function checkSettings(context: IHookFunctions): void {
	const read: ParameterReader = (name, fallback) => context.getNodeParameter(name, fallback);
	const events = readEvents(read);
	if (events.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No event is selected', {
			description: 'Select at least one event in "Events".',
		});
	}
	const unknown = events.filter((event) => !EVENT_NAMES.includes(event as never));
	if (unknown.length > 0) {
		throw new NodeOperationError(context.getNode(), `Unknown event: ${unknown.join(', ')}`, {
			description: `Known events: ${EVENT_NAMES.join(', ')}.`,
		});
	}
	const { invalid } = parseAddressList(readOptions(read).allowedAddresses);
	if (invalid.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			`"Allowed Source Addresses" has entries that are not IP addresses or CIDR ranges: ${invalid.join(', ')}`,
			{ description: 'Use addresses such as 87.251.83.190 or ranges such as 87.251.83.160/27, separated by commas.' },
		);
	}
	if (read('connectTo', 'newTask') === 'existing') {
		const secret = read('secret', '');
		if (typeof secret !== 'string' || secret.trim().length < 16) {
			throw new NodeOperationError(context.getNode(), 'The secret is missing or shorter than 16 characters', {
				description:
					'Set "Secret" to at least 16 characters of your choice and add ?secret=<that value> to the URL pasted into the service.',
			});
		}
	}
}

function isTestListen(context: IHookFunctions): boolean {
	return context.getMode() === 'manual' || context.getActivationMode() === 'manual';
}

function fingerprintOf(value: unknown): string {
	return createHash('sha256').update(JSON.stringify(sortKeys(value))).digest('hex');
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (typeof value === 'object' && value !== null) {
		const sorted: IDataObject = {};
		for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as IDataObject)[key]) as IDataObject;
		return sorted;
	}
	return value;
}

interface DesiredTask {
	body: IDataObject;
	target: IDataObject;
	fingerprint: string;
}

/** The call task the current settings describe (without the secret) and its fingerprint. */
function desiredTask(context: IHookFunctions): DesiredTask {
	const read: ParameterReader = (name, fallback) => context.getNodeParameter(name, fallback);
	let body: IDataObject;
	let delay: number;
	try {
		body = buildCallTaskBody((name, fallback) => context.getNodeParameter(name, fallback), context.getTimezone());
		delay = requireInteger('delay', read('delay', 0), { min: 0 });
	} catch (error) {
		if (error instanceof InputError) {
			throw new NodeOperationError(context.getNode(), error.message, {
				description: `Check the field "${error.field}" of the trigger.`,
			});
		}
		throw new NodeOperationError(context.getNode(), error as Error);
	}
	const events = readEvents(read);
	const partialResults = read('partialResults', false) === true;
	const target: IDataObject = { partialResults, delay, events: toEventsMap(events) };
	const fingerprint = fingerprintOf({ body, events: [...events].sort(), partialResults, delay });
	return { body, target, fingerprint };
}

function storedRegistration(data: IDataObject, key: 'registration' | 'parkedRegistration' = 'registration'): Registration | undefined {
	const value = data[key] as Registration | undefined;
	if (!value || typeof value !== 'object') return undefined;
	if (typeof value.secret !== 'string' || typeof value.webhookUrl !== 'string' || typeof value.fingerprint !== 'string') {
		return undefined;
	}
	return value;
}

function currentWebhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(context.getNode(), 'n8n gave this trigger no webhook URL');
	}
	return url;
}

// ---------------------------------------------------------------------------------------------
// The node
// ---------------------------------------------------------------------------------------------

export class CisAutoCallTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'CIS Auto-Call Trigger',
		name: 'cisAutoCallTrigger',
		icon: { light: 'file:cisAutoCallTrigger.svg', dark: 'file:cisAutoCallTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow on events of a call task (calls ended, candidates finished, transfers, recalls, task status): creates the task itself or listens to one set up from a template',
		defaults: { name: 'CIS Auto-Call Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: triggerCredentials,
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				checkSettings(this);
				if (this.getNodeParameter('connectTo', 'newTask') === 'existing') return true;
				if (isTestListen(this)) return false;
				const registration = storedRegistration(this.getWorkflowStaticData('node'));
				if (!registration) return false;
				if (registration.webhookUrl !== withoutSecret(currentWebhookUrl(this))) return false;
				return registration.fingerprint === desiredTask(this).fingerprint;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				checkSettings(this);
				if (this.getNodeParameter('connectTo', 'newTask') === 'existing') return true;
				// A test listen would create a task that the service cannot remove: none is created.
				if (isTestListen(this)) return true;

				const url = withoutSecret(currentWebhookUrl(this));
				const { body, target, fingerprint } = desiredTask(this);
				const data = this.getWorkflowStaticData('node');
				// Re-activated with the same settings: the earlier task still reports to this URL with
				// its secret, so it is taken back instead of creating a second campaign.
				const parked = storedRegistration(data, 'parkedRegistration');
				delete data.parkedRegistration;
				if (parked && parked.webhookUrl === url && parked.fingerprint === fingerprint) {
					data.registration = parked as unknown as IDataObject;
					return true;
				}
				const secret = randomBytes(24).toString('hex');
				const ownTarget = { url: withSecret(url, secret), ...target };
				// Extra targets given in "Extra Body Fields" stay; this trigger is added to them.
				addWebhookTargets(body, [ownTarget]);

				let response: IDataObject | undefined;
				try {
					const client = await createApiClient(this);
					response = await client.request<IDataObject>({
						method: 'POST',
						path: 'telephony/autoCall',
						body,
						repeatability: 'create',
					});
				} catch (error) {
					throw error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(this.getNode(), error as Error, {
								message: 'The call task could not be created',
							});
				}
				const autoCallId = identityOf(response?.id) ?? identityOf(response);
				if (!autoCallId) {
					throw new NodeOperationError(this.getNode(), 'The service answered without the id of the created call task', {
						description:
							'The trigger cannot tell whether the task exists. Check the service\'s task list before activating again.',
					});
				}
				const registration: Registration = {
					autoCallId,
					webhookUrl: url,
					fingerprint,
					secret,
					createdAt: new Date().toISOString(),
				};
				data.registration = registration as unknown as IDataObject;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				// The spec has no call to detach a webhook from a task. The registration stops being
				// the active one (its events are refused); it is parked so that a re-activation with
				// unchanged settings takes the same task back rather than creating another.
				const data = this.getWorkflowStaticData('node');
				const registration = storedRegistration(data);
				delete data.registration;
				if (registration) data.parkedRegistration = registration as unknown as IDataObject;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const read: ParameterReader = (name, fallback) => this.getNodeParameter(name, fallback);
		const options = readOptions(read);
		const refuse = (status: number, error: string): IWebhookResponseData => {
			response.status(status).json({ received: false, error });
			return { noWebhookResponse: true };
		};

		// 1. Source address.
		const allowList = parseAddressList(options.allowedAddresses);
		if (allowList.ranges.length > 0 || allowList.invalid.length > 0) {
			const ip = request.ip ?? request.socket?.remoteAddress;
			if (!isAddressAllowed(ip, allowList)) return refuse(403, 'This address may not send events to this trigger');
		}

		// 2. Secret.
		const data = this.getWorkflowStaticData('node');
		const expected =
			read('connectTo', 'newTask') === 'existing'
				? String(read('secret', '') ?? '').trim()
				: storedRegistration(data)?.secret;
		const query = (this.getQueryData() ?? {}) as IDataObject;
		if (!secretMatches(query[SECRET_PARAMETER], expected)) {
			return refuse(401, 'Missing or wrong secret');
		}

		// 3. Body.
		const contentType = String(request.headers?.['content-type'] ?? '').toLowerCase();
		const parsed = parseEventBody(this.getBodyData(), request.rawBody, contentType.startsWith('application/json'));
		if (!parsed.ok) return refuse(400, `Not an event: ${parsed.reason}`);

		// 4. Event filter: answered 200 so that the service does not re-send it.
		if (!readEvents(read).includes(parsed.event)) {
			return { webhookResponse: { received: true, ignored: 'event not selected' } };
		}

		// 5. Repeated deliveries.
		if (options.ignoreRepeats !== false) {
			const capacity = Math.min(MAX_REMEMBERED, RecentKeys.clampCapacity(Number(options.rememberDeliveries ?? DEFAULT_REMEMBERED)));
			const key = hashKey(deliveryKey(parsed.payload));
			const memoryKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}:${this.getMode()}`;
			let memory = memories.get(memoryKey);
			if (!memory) {
				memory = new RecentKeys(capacity);
				memories.set(memoryKey, memory);
			}
			memory.setCapacity(capacity);
			const saved = RecentKeys.from(data.recentDeliveries, capacity);
			const repeated = memory.has(key) || saved.has(key);
			memory.add(key);
			saved.add(key);
			// Saved with the workflow by n8n 1.x; n8n 2.x drops it (the memory above covers that).
			data.recentDeliveries = saved.toArray();
			if (repeated) return { webhookResponse: { received: true, ignored: 'repeated delivery' } };
		}

		const output = buildOutput(parsed.payload, parsed.event, new Date().toISOString());
		return { workflowData: [this.helpers.returnJsonArray([output])] };
	}
}
