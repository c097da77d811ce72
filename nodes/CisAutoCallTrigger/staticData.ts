import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger keeps in the node's static data, and nothing else: the registered task
 * (`registration`) and the one set aside at deactivation or replacement (`parkedRegistration`).
 * Written at publishing (registration/), read the same way there and by each delivery's secret
 * check (secret/); registration/ also brings it up to date from earlier versions.
 */

/** What create() keeps in the node's static data: the only thing the trigger stores there. */
export interface Registration {
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

/** Where a registration is kept: the one in use, or the one set aside (parked). */
export type RegistrationKey = 'registration' | 'parkedRegistration';

/** The registration kept under `key`, if it has the shape create() writes. */
export function storedRegistration(
	data: IDataObject,
	key: RegistrationKey = 'registration',
): Registration | undefined {
	const value = data[key] as Registration | undefined;
	if (!value || typeof value !== 'object') return undefined;
	if (
		typeof value.autoCallId !== 'string' ||
		typeof value.webhookUrl !== 'string' ||
		typeof value.fingerprint !== 'string'
	) {
		return undefined;
	}
	if (typeof value.secretHash !== 'string' && typeof value.secret !== 'string') return undefined;
	return value;
}

/** Keeps `registration` under `key` in static data. */
export function keepRegistration(
	data: IDataObject,
	key: RegistrationKey,
	registration: Registration,
): void {
	data[key] = registration as unknown as IDataObject;
}
