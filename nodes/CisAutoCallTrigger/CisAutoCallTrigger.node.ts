import { randomBytes } from 'crypto';
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { expectTaskId } from '../shared/answers';
import { authenticationProperty } from '../shared/authentication';
import { addWebhookTargets, buildCallTaskBody, callTaskFields } from '../shared/callTaskFields';
import { EVENT_NAMES, EVENTS, toEventsMap } from '../shared/events';
import { fingerprintOf } from '../shared/fingerprint';
import { type ApiClient, createApiClient } from '../shared/transport';
import { identityOf, InputError, requireInteger } from '../shared/validation';
import { DeliveryMemory, deliveryIdOf, MAX_REMEMBERED_DELIVERIES } from './deliveries';
import {
	DEFAULT_OLD_TASK_POLICY,
	httpCodeOf,
	OLD_TASK_POLICY_OPTIONS,
	readOldTaskPolicy,
	resumeTask,
	retireActionFor,
	retireTask,
	type RetireOutcome,
	type RetireReason,
} from './oldTask';
import { isAddressAllowed, parseAddressList } from './addresses';
import { parseEventBody } from './body';
import { buildOutput } from './output';
import { RecentSecrets } from './recentSecrets';
import { hashSecret, SECRET_PARAMETER, secretMatches, secretMatchesHash, withoutSecret, withSecret } from './secrets';

/** What create() keeps in the node's static data: the only thing the trigger stores there. */
interface Registration {
	autoCallId: string;
	/** The registered URL without its secret. */
	webhookUrl: string;
	fingerprint: string;
	/** hashSecret() of the generated secret; the secret itself is kept nowhere. */
	secretHash?: string;
	/** The secret in clear, as registrations before the hash kept it; replaced by secretHash at the next activation. */
	secret?: string;
	createdAt: string;
	/** Set when deactivation paused a running task, so that taking it back resumes it. */
	pausedByTrigger?: boolean;
}

const DEFAULT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
const MIN_SECRET_LENGTH = 16;
const WEBHOOK_SECRET_CREDENTIAL = 'cisAutoCallWebhookSecretApi';

/**
 * Deliveries seen by this n8n process (all triggers), for repeat detection. In memory only:
 * static data written from webhook() would be saved whole by the webhook process and could
 * overwrite a newer registration written by the main process (queue mode).
 */
const deliveries = new DeliveryMemory();

/** Secrets of the webhook secret credentials, read at most once a second per trigger node. */
const recentSecrets = new RecentSecrets();

const connectToNewTask = { show: { connectTo: ['newTask'] } };
const connectToExisting = { show: { connectTo: ['existing'] } };
/** The secret typed into the node by earlier versions: shown (and used) only while it holds a value. */
const legacySecretSet = [{ _cnd: { exists: true as const } }];


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

// ---------------------------------------------------------------------------------------------
// Settings, read and checked the same way at activation and per request
// ---------------------------------------------------------------------------------------------

interface TriggerOptions {
	allowedAddresses?: string;
	ignoreRepeats?: boolean;
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

/** The secret typed into the node by earlier versions, if it still holds one. */
function legacySecretOf(read: ParameterReader): string | undefined {
	const value = read('secret', '');
	const text = typeof value === 'string' ? value.trim() : '';
	return text === '' ? undefined : text;
}

/** The secret of the webhook secret credential selected in the node, if any. */
async function credentialSecret(context: IHookFunctions | IWebhookFunctions): Promise<string | undefined> {
	if (!context.getNode().credentials?.[WEBHOOK_SECRET_CREDENTIAL]) return undefined;
	const credential = await context.getCredentials(WEBHOOK_SECRET_CREDENTIAL);
	const secret = typeof credential?.secret === 'string' ? credential.secret.trim() : '';
	return secret === '' ? undefined : secret;
}

/** The secret Existing Task mode expects: the legacy field while it holds a value, else the credential's. */
async function existingTaskSecret(context: IHookFunctions): Promise<string | undefined> {
	return legacySecretOf((name, fallback) => context.getNodeParameter(name, fallback)) ?? (await credentialSecret(context));
}

/** Whether a delivery's secret is the one Existing Task mode expects (see RecentSecrets). */
async function existingTaskAccepts(context: IWebhookFunctions, given: unknown): Promise<boolean> {
	const legacy = legacySecretOf((name, fallback) => context.getNodeParameter(name, fallback));
	if (legacy !== undefined) return secretMatches(given, legacy);
	const reference = context.getNode().credentials?.[WEBHOOK_SECRET_CREDENTIAL];
	if (!reference) return false;
	const key = `${context.getWorkflow().id ?? ''}:${context.getNode().id}:${reference.id ?? ''}:${reference.name}`;
	try {
		const expectedHash = await recentSecrets.hashOf(key, async () => await credentialSecret(context));
		return expectedHash !== undefined && secretMatchesHash(given, expectedHash);
	} catch {
		return false;
	}
}

/** Problems with the settings that make the trigger unusable; thrown at activation. */
async function checkSettings(context: IHookFunctions): Promise<void> {
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
		const secret = await existingTaskSecret(context);
		if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
			throw new NodeOperationError(context.getNode(), `The webhook secret is missing or shorter than ${MIN_SECRET_LENGTH} characters`, {
				description: `Select a "CIS Auto-Call Webhook Secret API" credential whose secret has at least ${MIN_SECRET_LENGTH} characters, and add ?secret=<that value> to the URL pasted into the service.`,
			});
		}
	}
}

/** What n8n leaves in the body when it did not parse one. */
function isEmptyBody(body: unknown): boolean {
	return body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
}

function isTestListen(context: IHookFunctions): boolean {
	return context.getMode() === 'manual' || context.getActivationMode() === 'manual';
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

type RegistrationKey = 'registration' | 'parkedRegistration';

function storedRegistration(data: IDataObject, key: RegistrationKey = 'registration'): Registration | undefined {
	const value = data[key] as Registration | undefined;
	if (!value || typeof value !== 'object') return undefined;
	if (typeof value.autoCallId !== 'string' || typeof value.webhookUrl !== 'string' || typeof value.fingerprint !== 'string') {
		return undefined;
	}
	if (typeof value.secretHash !== 'string' && typeof value.secret !== 'string') return undefined;
	return value;
}

/** Whether a request's secret is the one registered with the task. */
function registrationAccepts(registration: Registration | undefined, given: unknown): boolean {
	if (!registration) return false;
	if (typeof registration.secretHash === 'string') return secretMatchesHash(given, registration.secretHash);
	return secretMatches(given, registration.secret);
}

/**
 * Brings static data written by earlier versions to the current shape: no secret in clear (its
 * hash instead) and no remembered deliveries. Runs in the main process (activation), where n8n
 * saves static data after the hooks.
 */
function tidyStaticData(data: IDataObject): void {
	if (data.recentDeliveries !== undefined) delete data.recentDeliveries;
	for (const key of ['registration', 'parkedRegistration'] as const) {
		const registration = storedRegistration(data, key);
		if (registration && typeof registration.secret === 'string') {
			const { secret, ...rest } = registration;
			data[key] = { ...rest, secretHash: hashSecret(secret) } as IDataObject;
		}
	}
}

function currentWebhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(context.getNode(), 'n8n gave this trigger no webhook URL');
	}
	return url;
}

/** Lazily created API client: hooks that need no request need no credentials. */
function clientFor(context: IHookFunctions): () => Promise<ApiClient> {
	let client: Promise<ApiClient> | undefined;
	return async () => (client ??= createApiClient(context));
}

/**
 * Applies the "Old Task" choice to a task the trigger stops using. Throws a NodeOperationError
 * that says what to do when the task could not be paused or stopped.
 */
async function retire(
	context: IHookFunctions,
	client: () => Promise<ApiClient>,
	registration: Registration,
	reason: RetireReason,
): Promise<RetireOutcome> {
	const policy = readOldTaskPolicy(context.getNodeParameter('oldTask', DEFAULT_OLD_TASK_POLICY));
	const action = retireActionFor(policy, reason);
	const id = registration.autoCallId;
	if (!action) return { result: 'left running', pausedHere: false };
	let outcome: RetireOutcome | { failed: Error };
	try {
		outcome = await retireTask(await client(), id, action);
	} catch (error) {
		outcome = { failed: error as Error };
	}
	if ('failed' in outcome) {
		const verb = action === 'pause' ? 'paused' : 'stopped';
		throw new NodeOperationError(context.getNode(), `The call task ${id} could not be ${verb}: ${outcome.failed.message}`, {
			description:
				reason === 'replaced'
					? `The settings changed, so this trigger would register a new task; none was created, so that two campaigns do not call at once. Pause or stop task ${id} (in the service, or with CIS Auto-Call → Call Task → Pause / Stop), or set "Old Task" to "Leave It Running", then activate again.`
					: `The workflow is deactivated, but task ${id} may still be calling its candidates. Pause or stop it in the service or with CIS Auto-Call → Call Task → Pause / Stop.`,
		});
	}
	context.logger.info(`CIS Auto-Call Trigger "${context.getNode().name}": call task ${id} ${outcome.result} (${reason === 'replaced' ? 'replaced by a new task' : 'workflow deactivated'})`);
	return outcome;
}

/**
 * A registration set aside after retire(): marked for resuming when the trigger paused it while
 * it ran. A task paused before its start moment (READY) is not marked: resuming it would start
 * calling at once instead of at that moment.
 */
function parkedAfter(registration: Registration, outcome: RetireOutcome): Registration {
	const { pausedByTrigger: _earlier, ...parked } = registration;
	return outcome.pausedHere && outcome.statusBefore !== 'READY' ? { ...parked, pausedByTrigger: true } : parked;
}

/**
 * Takes a parked task back: resumes it if deactivation paused it while it was running. False
 * when it cannot be taken back (deleted, or stopped meanwhile): a new task is created instead.
 */
async function takeBack(context: IHookFunctions, client: () => Promise<ApiClient>, parked: Registration): Promise<boolean> {
	if (parked.pausedByTrigger !== true) return true;
	try {
		await resumeTask(await client(), parked.autoCallId);
	} catch (error) {
		const code = httpCodeOf(error);
		if (code === '404' || code === '422' || code === '409') return false;
		throw new NodeOperationError(context.getNode(), `The call task ${parked.autoCallId} could not be resumed: ${(error as Error).message}`, {
			description: 'Deactivating the workflow paused it; activating with unchanged settings takes it back. Activate again, or start it with CIS Auto-Call → Call Task → Start.',
		});
	}
	context.logger.info(`CIS Auto-Call Trigger "${context.getNode().name}": call task ${parked.autoCallId} taken back and resumed`);
	return true;
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
		// 1.1: n8n evaluates no expression of its own before calling webhook() (for version 1 it
		// reads options.binaryData through the expression engine on every request) and leaves
		// bodies of other content types unread; webhook() reads those itself.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["events"].join(", ")}}',
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
					'New Call Task: a test listen creates no task, so no event arrives; build with mock data (output pane) or listen to an existing task. Publishing creates the task and its events start executions. Existing Task or Template: a test listen receives what the service sends to the Test URL. Publishing makes the Production URL answer.',
				active:
					'The workflow is published: events of the call task start executions, listed under Executions. A test listen still creates no task.',
			},
			activationHint:
				'Publish the workflow to create the call task (New Call Task) or to make the Production URL answer (Existing Task or Template).',
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
		properties,
	};

	methods = {
		credentialTest: {
			async cisAutoCallWebhookSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const secret = typeof credential.data?.secret === 'string' ? credential.data.secret.trim() : '';
				if (secret.length < MIN_SECRET_LENGTH) {
					return { status: 'Error', message: `The secret has ${secret.length} characters; use at least ${MIN_SECRET_LENGTH}` };
				}
				return { status: 'OK', message: 'The secret is long enough. Nothing is sent anywhere with it; the service sends it back in ?secret=.' };
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await checkSettings(this);
				if (this.getNodeParameter('connectTo', 'newTask') === 'existing') return true;
				if (isTestListen(this)) return false;
				const data = this.getWorkflowStaticData('node');
				tidyStaticData(data);
				const registration = storedRegistration(data);
				if (!registration) return false;
				if (registration.webhookUrl !== withoutSecret(currentWebhookUrl(this))) return false;
				return registration.fingerprint === desiredTask(this).fingerprint;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				await checkSettings(this);
				if (this.getNodeParameter('connectTo', 'newTask') === 'existing') return true;
				// A test listen would create a task that the service cannot remove: none is created,
				// and nothing registered is touched.
				if (isTestListen(this)) return true;

				const url = withoutSecret(currentWebhookUrl(this));
				const { body, target, fingerprint } = desiredTask(this);
				const data = this.getWorkflowStaticData('node');
				tidyStaticData(data);
				const client = clientFor(this);
				const current = storedRegistration(data);
				let parked = storedRegistration(data, 'parkedRegistration');

				// Re-activated with the same settings: the earlier task still reports to this URL with
				// its secret, so it is taken back instead of creating a second campaign.
				if (parked && parked.webhookUrl === url && parked.fingerprint === fingerprint) {
					if (await takeBack(this, client, parked)) {
						const { pausedByTrigger: _resumed, ...registration } = parked;
						data.registration = registration as unknown as IDataObject;
						delete data.parkedRegistration;
						return true;
					}
					delete data.parkedRegistration;
					parked = undefined;
				}

				// A new task replaces the ones registered before: "Old Task" says what becomes of them,
				// before anything new is created (if that fails, nothing is created).
				if (parked && parked.autoCallId !== current?.autoCallId) {
					const outcome = await retire(this, client, parked, 'replaced');
					if (outcome.result === 'stopped') delete data.parkedRegistration;
				}
				if (current) {
					const outcome = await retire(this, client, current, 'replaced');
					// Once paused or stopped it is no longer the registration; a paused one is parked, so
					// that if the new task cannot be created, going back to the old settings resumes it.
					if (outcome.result !== 'left running') {
						delete data.registration;
						if (outcome.result === 'stopped') delete data.parkedRegistration;
						else data.parkedRegistration = parkedAfter(current, outcome) as unknown as IDataObject;
					}
				}

				const secret = randomBytes(24).toString('hex');
				const ownTarget = { url: withSecret(url, secret), ...target };
				// Extra targets given in "Extra Body Fields" stay; this trigger is added to them.
				addWebhookTargets(body, [ownTarget]);

				let response: IDataObject | undefined;
				try {
					response = await (await client()).request<IDataObject>({
						method: 'POST',
						path: 'telephony/autoCall',
						body,
						repeatability: 'create',
						expect: expectTaskId,
					});
				} catch (error) {
					throw error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(this.getNode(), error as Error, {
								message: 'The call task could not be created',
							});
				}
				const registration: Registration = {
					autoCallId: identityOf(response?.id) as string,
					webhookUrl: url,
					fingerprint,
					secretHash: hashSecret(secret),
					createdAt: new Date().toISOString(),
				};
				data.registration = registration as unknown as IDataObject;
				delete data.parkedRegistration;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				// n8n also runs delete() after a test listen, on the test's own static data: there is
				// no registration there. A test listen never touches the production registration.
				if (isTestListen(this)) return true;
				if (this.getNodeParameter('connectTo', 'newTask') === 'existing') return true;
				const data = this.getWorkflowStaticData('node');
				tidyStaticData(data);
				const registration = storedRegistration(data);
				if (!registration) return true;
				// The service cannot detach a webhook from a task: "Old Task" says what becomes of the
				// task. If that fails, the error is n8n's to report and the registration stays.
				const outcome = await retire(this, clientFor(this), registration, 'deactivated');
				// Parked, so that a re-activation with unchanged settings takes the same task back
				// (and resumes it when it was paused here) rather than creating another campaign.
				delete data.registration;
				data.parkedRegistration = parkedAfter(registration, outcome) as unknown as IDataObject;
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

		// 2. Secret. Static data is only read here, never written (see `deliveries`).
		const given = ((this.getQueryData() ?? {}) as IDataObject)[SECRET_PARAMETER];
		let accepted: boolean;
		if (read('connectTo', 'newTask') === 'existing') {
			accepted = await existingTaskAccepts(this, given);
		} else {
			accepted = registrationAccepts(storedRegistration(this.getWorkflowStaticData('node')), given);
		}
		if (!accepted) return refuse(401, 'Missing or wrong secret');

		// 3. Body.
		const contentType = String(request.headers?.['content-type'] ?? '').toLowerCase();
		const body = this.getBodyData();
		if (isEmptyBody(body) && request.rawBody === undefined && typeof request.readRawBody === 'function') {
			// Version 1.1: n8n did not read a body whose content type it does not parse.
			await request.readRawBody();
		}
		const parsed = parseEventBody(body, request.rawBody, contentType.startsWith('application/json'));
		if (!parsed.ok) return refuse(400, `Not an event: ${parsed.reason}`);
		const deliveryId = deliveryIdOf(parsed.payload);

		// 4. Event filter: answered 200 so that the service does not re-send it.
		if (!readEvents(read).includes(parsed.event)) {
			return { webhookResponse: { received: true, deliveryId, ignored: 'event not selected' } };
		}

		// 5. Repeated deliveries: the same body again within 24 hours, in this process.
		if (options.ignoreRepeats !== false) {
			const scope = `${this.getWorkflow().id ?? ''}:${this.getNode().id}:${this.getMode()}`;
			if (deliveries.seenBefore(`${scope}:${deliveryId}`)) {
				return { webhookResponse: { received: true, deliveryId, ignored: 'repeated delivery' } };
			}
		}

		const output = buildOutput(parsed.payload, parsed.event, new Date().toISOString(), deliveryId);
		return {
			workflowData: [this.helpers.returnJsonArray([output])],
			webhookResponse: { received: true, deliveryId },
		};
	}
}
