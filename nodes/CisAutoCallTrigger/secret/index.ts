import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readSavedParameter } from '../../shared/parameterReaders';
import { storedRegistration } from '../registration';
import { SECRET_PARAMETER, secretMatches, secretMatchesHash } from './hashing';
import { RecentSecrets } from './recentSecrets';
import { processMemory } from '../../shared/processMemory';

/**
 * Everything about the webhook secret: the one question webhook() asks (does this delivery carry the right
 * secret?), the check at activation and the credential's test. New Call Task mode expects the
 * secret generated at registration (kept as a hash in static data); Existing Task mode the one of
 * the selected credential, or of the secret field of earlier versions while it holds a value.
 * Parameters are read here directly (top-level in every version), not through the panel layout, without
 * n8n's expression engine unless they hold an expression.
 */

export { hashSecret, SECRET_PARAMETER, withoutSecret, withSecret } from './hashing';

const MIN_SECRET_LENGTH = 16;
const WEBHOOK_SECRET_CREDENTIAL = 'cisAutoCallWebhookSecretApi';

/** Secrets of the webhook secret credentials, read at most once a second per trigger node. */
const recentSecrets = new RecentSecrets(processMemory('webhookSecretReads'));

type TriggerContext = IHookFunctions | IWebhookFunctions;

function connectsToExisting(context: TriggerContext): boolean {
	return readSavedParameter(context, 'connectTo', 'newTask') === 'existing';
}

/** The secret typed into the node by earlier versions, if it still holds one. */
function legacySecretOf(context: TriggerContext): string | undefined {
	const value = readSavedParameter(context, 'secret', '');
	const text = typeof value === 'string' ? value.trim() : '';
	return text === '' ? undefined : text;
}

/** The secret of the webhook secret credential selected in the node, if any. */
async function credentialSecret(context: TriggerContext): Promise<string | undefined> {
	if (!context.getNode().credentials?.[WEBHOOK_SECRET_CREDENTIAL]) return undefined;
	const credential = await context.getCredentials(WEBHOOK_SECRET_CREDENTIAL);
	const secret = typeof credential?.secret === 'string' ? credential.secret.trim() : '';
	return secret === '' ? undefined : secret;
}

/** Whether a secret is the one Existing Task mode expects (the credential's through RecentSecrets). */
async function existingTaskAccepts(context: IWebhookFunctions, given: unknown): Promise<boolean> {
	const legacy = legacySecretOf(context);
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

/** Whether a secret is the one generated when the trigger registered its task. */
function registrationAccepts(context: IWebhookFunctions, given: unknown): boolean {
	const registration = storedRegistration(context.getWorkflowStaticData('node'));
	if (!registration) return false;
	if (typeof registration.secretHash === 'string') return secretMatchesHash(given, registration.secretHash);
	return secretMatches(given, registration.secret);
}

/** Whether the delivery carries the secret this trigger expects (`?secret=` of its URL). */
export async function deliveryHasSecret(context: IWebhookFunctions): Promise<boolean> {
	const given = ((context.getQueryData() ?? {}) as IDataObject)[SECRET_PARAMETER];
	return connectsToExisting(context) ? await existingTaskAccepts(context, given) : registrationAccepts(context, given);
}

/** At activation in Existing Task mode: a secret of at least 16 characters must be set. */
export async function checkExistingTaskSecret(context: IHookFunctions): Promise<void> {
	if (!connectsToExisting(context)) return;
	const secret = legacySecretOf(context) ?? (await credentialSecret(context));
	if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
		throw new NodeOperationError(context.getNode(), `The webhook secret is missing or shorter than ${MIN_SECRET_LENGTH} characters`, {
			description: `Select a "CIS Auto-Call Webhook Secret API" credential whose secret has at least ${MIN_SECRET_LENGTH} characters, and add ?secret=<that value> to the URL pasted into the service.`,
		});
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
