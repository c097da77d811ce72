import { randomBytes } from 'crypto';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { addWebhookTargets, buildCallTaskBody } from '../../shared/callTaskBody';
import { createTask, createTaskRequest } from '../../shared/callTasks';
import { toEventsMap } from '../../shared/events';
import { fingerprintOf } from '../../shared/fingerprint';
import { type ApiClient, createApiClient, errorMayHaveCarriedOut } from '../../shared/transport';
import { InputError, refuseExpressionTypedAsText, requireInteger } from '../../shared/validation';
import { parkedAfter, retire, takeBack } from './oldTask';
import { refuseLocalWebhookUrl } from './publicUrl';
import { keepRegistration, type Registration, storedRegistration } from '../staticData';
import { readEvents } from '../delivery';
import { hashSecret, withoutSecret, withSecret } from '../secret';
import { parametersOf } from '../triggerParameters';
import { ActivationRefusal } from './settings';
import { withoutKey } from '../../shared/convert';
import { maskUrlSecretsInText } from '../../shared/urlSecrets';

/**
 * New Call Task mode's side of n8n's webhook lifecycle: whether the registered task still fits
 * the settings (checkExists), registering a new task or taking the old one back (create), and
 * setting it aside at deactivation (delete). The node's hooks check the settings and the mode,
 * then call these.
 */

interface DesiredTask {
	body: IDataObject;
	target: IDataObject;
	fingerprint: string;
}

/** Bad settings found while reading them: refused at once, naming the field. */
function settingsError(context: IHookFunctions, error: unknown): Error {
	if (error instanceof InputError) {
		return new ActivationRefusal(
			context.getNode(),
			error.message,
			`Check the field "${error.field}" of the trigger.`,
		);
	}
	return new NodeOperationError(context.getNode(), error as Error);
}

/**
 * Before a new task is made of them: no setting holds an expression typed as text (it would become
 * the task's name or bot script as it is, such as "{{ $json.name }}"). Only here, not at every
 * activation, so that a trigger whose task is registered (or taken back) keeps running as it did.
 */
function refuseExpressionsTypedAsText(context: IHookFunctions): void {
	try {
		// Not the trigger's Options: switches and addresses checked on their own, some of which n8n never
		// lets be an expression (it drops their "=", so their text would be taken for one typed as text).
		for (const [name, raw] of Object.entries(context.getNode().parameters)) {
			// Nor a secret: the refusal quotes the value it refuses.
			if (name !== 'options' && name !== 'secret') refuseExpressionTypedAsText(name, raw);
		}
	} catch (error) {
		throw settingsError(context, error);
	}
}

/** The call task the current settings describe (without the secret) and its fingerprint. */
function desiredTask(context: IHookFunctions): DesiredTask {
	const read = parametersOf(context);
	let body: IDataObject;
	let delay: number;
	try {
		body = buildCallTaskBody(read, context.getTimezone());
		delay = requireInteger('delay', read('delay', 0), { min: 0 });
	} catch (error) {
		throw settingsError(context, error);
	}
	const events = readEvents(read);
	const partialResults = read('partialResults', false) === true;
	const target: IDataObject = { partialResults, delay, events: toEventsMap(events) };
	const fingerprint = fingerprintOf({ body, events: [...events].sort(), partialResults, delay });
	return { body, target, fingerprint };
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

/** checkExists(): whether the registered task reports to this URL and matches the settings. */
export function isRegistered(context: IHookFunctions): boolean {
	const data = context.getWorkflowStaticData('node');
	tidyStaticData(data);
	const registration = storedRegistration(data);
	if (!registration) return false;
	if (registration.webhookUrl !== withoutSecret(currentWebhookUrl(context))) return false;
	return registration.fingerprint === desiredTask(context).fingerprint;
}

/**
 * create(): takes back the parked task when the settings are unchanged; otherwise applies "Old
 * Task" to the tasks registered before, then creates a new task reporting here.
 */
export async function register(context: IHookFunctions): Promise<void> {
	const url = withoutSecret(currentWebhookUrl(context));
	// Before anything is paused, stopped or created: a task reporting to a URL nobody can reach
	// would call people with no event ever arriving.
	refuseLocalWebhookUrl(context, url);
	const { body, target, fingerprint } = desiredTask(context);
	const data = context.getWorkflowStaticData('node');
	tidyStaticData(data);
	const client = clientFor(context);
	const current = storedRegistration(data);
	let parked = storedRegistration(data, 'parkedRegistration');

	// Re-activated with the same settings: the earlier task still reports to this URL with
	// its secret, so it is taken back instead of creating a second campaign.
	if (parked && parked.webhookUrl === url && parked.fingerprint === fingerprint) {
		if (await takeBack(context, client, parked)) {
			keepRegistration(data, 'registration', withoutKey(parked, 'pausedByTrigger'));
			delete data.parkedRegistration;
			return;
		}
		delete data.parkedRegistration;
		parked = undefined;
	}

	refuseExpressionsTypedAsText(context);
	await retireEarlierTasks(context, client, data, current, parked);

	const secret = randomBytes(24).toString('hex');
	const autoCallId = await createOwnTask(context, client, body, {
		url: withSecret(url, secret),
		...target,
	});
	const registration: Registration = {
		autoCallId,
		webhookUrl: url,
		fingerprint,
		secretHash: hashSecret(secret),
		createdAt: new Date().toISOString(),
	};
	keepRegistration(data, 'registration', registration);
	delete data.parkedRegistration;
}

/**
 * A new task replaces the ones registered before: "Old Task" says what becomes of them, before
 * anything new is created (if that fails, nothing is created).
 */
async function retireEarlierTasks(
	context: IHookFunctions,
	client: () => Promise<ApiClient>,
	data: IDataObject,
	current: Registration | undefined,
	parked: Registration | undefined,
): Promise<void> {
	if (parked && parked.autoCallId !== current?.autoCallId) {
		const outcome = await retire(context, client, parked, 'replaced');
		if (outcome.result === 'stopped') delete data.parkedRegistration;
	}
	if (!current) return;
	const outcome = await retire(context, client, current, 'replaced');
	// Once paused or stopped it is no longer the registration; a paused one is parked, so
	// that if the new task cannot be created, going back to the old settings resumes it.
	if (outcome.result === 'left running') return;
	delete data.registration;
	if (outcome.result === 'stopped') delete data.parkedRegistration;
	else keepRegistration(data, 'parkedRegistration', parkedAfter(current, outcome));
}

/** Creates the task that reports to `ownTarget` (this trigger), and gives its id. */
async function createOwnTask(
	context: IHookFunctions,
	client: () => Promise<ApiClient>,
	body: IDataObject,
	ownTarget: IDataObject,
): Promise<string> {
	// Extra targets given in "Extra Body Fields" stay; this trigger is added to them.
	addWebhookTargets(body, [ownTarget]);
	try {
		return (await createTask(await client(), createTaskRequest(body))).autoCallId;
	} catch (error) {
		// n8n 2.x tries a failed publishing again (up to 5 times): after a request that may have
		// created the task, that would create another paid campaign each time. Final instead.
		if (errorMayHaveCarriedOut(error)) throw outcomeUnknown(context, body, error as Error);
		throw error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(context.getNode(), error as Error, {
					message: 'The call task could not be created',
				});
	}
}

/** A task creation that may have created the task: final, so that nobody creates another. */
function outcomeUnknown(
	context: IHookFunctions,
	body: IDataObject,
	error: Error,
): ActivationRefusal {
	const name = typeof body.name === 'string' ? `"${body.name}" ` : '';
	return new ActivationRefusal(
		context.getNode(),
		`Outcome unknown: the call task ${name}may have been created. Check the service for it before publishing again`,
		`No answer the service promises came back (${maskUrlSecretsInText(error.message)}). The trigger did not try again, so at most one task was created; if it exists, delete it or use Connect To "Existing Task or Template" with it.`,
	);
}

/**
 * delete(): the service cannot detach a webhook from a task, so "Old Task" says what becomes of
 * the task. If that fails, the error is n8n's to report and the registration stays.
 */
export async function unregister(context: IHookFunctions): Promise<void> {
	const data = context.getWorkflowStaticData('node');
	tidyStaticData(data);
	const registration = storedRegistration(data);
	if (!registration) return;
	const outcome = await retire(context, clientFor(context), registration, 'deactivated');
	// Parked, so that a re-activation with unchanged settings takes the same task back
	// (and resumes it when it was paused here) rather than creating another campaign.
	delete data.registration;
	keepRegistration(data, 'parkedRegistration', parkedAfter(registration, outcome));
}
