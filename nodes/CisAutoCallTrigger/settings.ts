import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { EVENT_NAMES } from '../shared/events';
import { parseAddressList } from './addresses';
import { type ParameterReader, parametersOf } from './parameters';
import { RecentSecrets } from './recentSecrets';
import { secretMatches, secretMatchesHash } from './secrets';

/**
 * The trigger's settings, read and checked the same way at activation (hooks) and per request
 * (webhook()), and the secret Existing Task mode expects.
 */

/** The events selected when the node is added, and read when a workflow has none saved. */
export const DEFAULT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
const MIN_SECRET_LENGTH = 16;
const WEBHOOK_SECRET_CREDENTIAL = 'cisAutoCallWebhookSecretApi';

/** Secrets of the webhook secret credentials, read at most once a second per trigger node. */
const recentSecrets = new RecentSecrets();

/** The "Options" collection of the trigger. */
export interface TriggerOptions {
	allowedAddresses?: string;
	ignoreRepeats?: boolean;
	/** Read by publicUrl.ts from the saved parameters only (never through an expression). */
	allowLocalUrl?: boolean;
	/** Whether events of calls a waiting execution gets (Create and Run and Wait for Result) also start this workflow. */
	outputWaitingCalls?: boolean;
}

// Kept here too: the hooks, verify.ts and activation.ts read parameters through settings.
export { type ParameterReader, parametersOf } from './parameters';

/** The selected events; older workflows may hold them as a comma-separated text. */
export function readEvents(read: ParameterReader): string[] {
	const value = read('events', DEFAULT_EVENTS);
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list.map((event) => String(event).trim()).filter((event) => event !== '');
}

/** The "Options" collection, empty when not set. */
export function readOptions(read: ParameterReader): TriggerOptions {
	return (read('options', {}) ?? {}) as TriggerOptions;
}

/** Whether the trigger listens to a task the user connected by hand ("Existing Task or Template"). */
export function connectsToExisting(read: ParameterReader): boolean {
	return read('connectTo', 'newTask') === 'existing';
}

/** "Test this trigger" (or a manual activation): no task is created, nothing registered is touched. */
export function isTestListen(context: IHookFunctions): boolean {
	return context.getMode() === 'manual' || context.getActivationMode() === 'manual';
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
	return legacySecretOf(parametersOf(context)) ?? (await credentialSecret(context));
}

/** Whether a delivery's secret is the one Existing Task mode expects (see RecentSecrets). */
export async function existingTaskAccepts(context: IWebhookFunctions, given: unknown): Promise<boolean> {
	const legacy = legacySecretOf(parametersOf(context));
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
export async function checkSettings(context: IHookFunctions): Promise<void> {
	const read = parametersOf(context);
	const events = readEvents(read);
	if (events.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No event is selected', {
			description: 'Select at least one event in "Events".',
		});
	}
	const unknown = events.filter((event) => !EVENT_NAMES.includes(event));
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
	if (connectsToExisting(read)) {
		const secret = await existingTaskSecret(context);
		if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
			throw new NodeOperationError(context.getNode(), `The webhook secret is missing or shorter than ${MIN_SECRET_LENGTH} characters`, {
				description: `Select a "CIS Auto-Call Webhook Secret API" credential whose secret has at least ${MIN_SECRET_LENGTH} characters, and add ?secret=<that value> to the URL pasted into the service.`,
			});
		}
	}
}

/** The node-level test of the webhook secret credential: long enough, and nothing is sent anywhere. */
export async function testWebhookSecret(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = typeof credential.data?.secret === 'string' ? credential.data.secret.trim() : '';
	if (secret.length < MIN_SECRET_LENGTH) {
		return { status: 'Error', message: `The secret has ${secret.length} characters; use at least ${MIN_SECRET_LENGTH}` };
	}
	return { status: 'OK', message: 'The secret is long enough. Nothing is sent anywhere with it; the service sends it back in ?secret=.' };
}
