import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ExpiringMap } from '../../shared/expiringMap';
import { readSavedParameter } from '../../shared/parameterReaders';
import { PROCESS_MEMORIES, processMemory } from '../../shared/processMemory';
import { storedRegistration } from '../staticData';
import { hashSecret, SECRET_PARAMETER, secretMatches, secretMatchesHash } from './hashing';

/**
 * Everything about the webhook secret: the one question webhook() asks (does this delivery carry the right
 * secret?), the check at activation and the credential's test, and the credential's secret kept
 * as a hash for a second (`RecentSecrets`). New Call Task mode expects the
 * secret generated at registration (kept as a hash in static data); Existing Task mode the one of
 * the selected credential, or of the secret field of earlier versions while it holds a value.
 * Parameters are read here directly (top-level in every version), not through the panel layout, without
 * n8n's expression engine unless they hold an expression.
 */

export { hashSecret, SECRET_PARAMETER, withoutSecret, withSecret } from './hashing';

const MIN_SECRET_LENGTH = 16;
const WEBHOOK_SECRET_CREDENTIAL = 'cisAutoCallWebhookSecretApi';

/**
 * How long a webhook secret read from its credential is used before it is read again. Reading a
 * credential in a webhook call costs n8n a database query, a decryption and, with its default
 * expression engine, a fresh expression isolate: more than the rest of the delivery. Within this
 * time a changed secret is not seen yet; after it, every delivery is checked against the new one.
 */
export const SECRET_FRESH_MS = PROCESS_MEMORIES.webhookSecretReads.expiresMs;

interface Entry {
	readAt: number;
	/** hashSecret() of the secret, or undefined when the credential holds none. */
	hash: Promise<string | undefined>;
}

/**
 * The secrets of the triggers' credentials as last read, per trigger node and credential, kept
 * only as hashes. The key must name the workflow and node: n8n decides per workflow whether it
 * may use a credential, so one workflow's read must never serve another.
 */
export class RecentSecrets {
	/** `entries`: the process's `webhookSecretReads` (its expiry is SECRET_FRESH_MS); `now`: the same clock as theirs. */
	constructor(
		private readonly entries: ExpiringMap<Entry>,
		private readonly now: () => number = Date.now,
	) {}

	get size(): number {
		return this.entries.size;
	}

	/**
	 * The hash of the secret for `key`: read with `read` unless it was read less than SECRET_FRESH_MS
	 * ago. Deliveries that arrive while a read is under way wait for that read. A failed read is
	 * not kept (the next delivery reads again).
	 */
	hashOf(key: string, read: () => Promise<string | undefined>): Promise<string | undefined> {
		const now = this.now();
		const entry = this.entries.get(key);
		if (entry && now - entry.readAt < SECRET_FRESH_MS) return entry.hash;
		const hash = read().then((secret) => (secret === undefined ? undefined : hashSecret(secret)));
		this.entries.set(key, { readAt: now, hash });
		hash.catch(() => {
			if (this.entries.get(key)?.hash === hash) this.entries.delete(key);
		});
		return hash;
	}
}

/** Secrets of the webhook secret credentials, read at most once a second per trigger node. */
const recentSecrets = new RecentSecrets(processMemory('webhookSecretReads'));

type TriggerContext = IHookFunctions | IWebhookFunctions;

function connectsToExisting(context: TriggerContext): boolean {
	return readSavedParameter(context, 'connectTo', 'newTask') === 'existing';
}

/** A secret as trimmed text; undefined when the value holds none. */
function secretIn(value: unknown): string | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	return text === '' ? undefined : text;
}

/** The secret typed into the node by earlier versions, if it still holds one. */
function legacySecretOf(context: TriggerContext): string | undefined {
	return secretIn(readSavedParameter(context, 'secret', ''));
}

/** The secret of the webhook secret credential selected in the node, if any. */
async function credentialSecret(context: TriggerContext): Promise<string | undefined> {
	if (!context.getNode().credentials?.[WEBHOOK_SECRET_CREDENTIAL]) return undefined;
	const credential = await context.getCredentials(WEBHOOK_SECRET_CREDENTIAL);
	return secretIn(credential?.secret);
}

/** What a delivery's secret is: the one expected, not it, or not known now (n8n could not read the credential). */
export type SecretCheck = 'matches' | 'wrong' | { unreadable: string };

const checkOf = (matches: boolean): SecretCheck => (matches ? 'matches' : 'wrong');

/** Checks a secret against the one Existing Task mode expects (the credential's through RecentSecrets). */
async function existingTaskAccepts(
	context: IWebhookFunctions,
	given: unknown,
): Promise<SecretCheck> {
	const legacy = legacySecretOf(context);
	if (legacy !== undefined) return checkOf(secretMatches(given, legacy));
	const reference = context.getNode().credentials?.[WEBHOOK_SECRET_CREDENTIAL];
	if (!reference) return 'wrong';
	const key = `${context.getWorkflow().id ?? ''}:${context.getNode().id}:${reference.id ?? ''}:${reference.name}`;
	try {
		const expectedHash = await recentSecrets.hashOf(
			key,
			async () => await credentialSecret(context),
		);
		return checkOf(expectedHash !== undefined && secretMatchesHash(given, expectedHash));
	} catch (error) {
		// Its database busy or down, or the credential gone: nothing is accepted, and the sender is not blamed.
		return { unreadable: error instanceof Error ? error.message : String(error) };
	}
}

/** Checks a secret against the one generated when the trigger registered its task. */
function registrationAccepts(context: IWebhookFunctions, given: unknown): SecretCheck {
	const registration = storedRegistration(context.getWorkflowStaticData('node'));
	if (!registration) return 'wrong';
	if (typeof registration.secretHash === 'string')
		return checkOf(secretMatchesHash(given, registration.secretHash));
	return checkOf(secretMatches(given, registration.secret));
}

/** Checks the secret the delivery carries (`?secret=` of its URL) against the one this trigger expects. */
export async function checkDeliverySecret(context: IWebhookFunctions): Promise<SecretCheck> {
	const given = ((context.getQueryData() ?? {}) as IDataObject)[SECRET_PARAMETER];
	return connectsToExisting(context)
		? await existingTaskAccepts(context, given)
		: registrationAccepts(context, given);
}

/** At activation in Existing Task mode: a secret of at least 16 characters must be set. */
export async function checkExistingTaskSecret(context: IHookFunctions): Promise<void> {
	if (!connectsToExisting(context)) return;
	const secret = legacySecretOf(context) ?? (await credentialSecret(context));
	if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
		throw new NodeOperationError(
			context.getNode(),
			`The webhook secret is missing or shorter than ${MIN_SECRET_LENGTH} characters`,
			{
				description: `Select a "CIS Auto-Call Webhook Secret API" credential whose secret has at least ${MIN_SECRET_LENGTH} characters, and add ?secret=<that value> to the URL pasted into the service.`,
			},
		);
	}
}

/** The node-level test of the webhook secret credential: long enough, and nothing is sent anywhere. */
export async function testWebhookSecret(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = secretIn(credential.data?.secret) ?? '';
	if (secret.length < MIN_SECRET_LENGTH) {
		return {
			status: 'Error',
			message: `The secret has ${secret.length} characters; use at least ${MIN_SECRET_LENGTH}`,
		};
	}
	return {
		status: 'OK',
		message:
			'The secret is long enough. Nothing is sent anywhere with it; the service sends it back in ?secret=.',
	};
}
