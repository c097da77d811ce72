import type { IDataObject } from 'n8n-workflow';

import { hashSecret } from './secret/hashing';

/**
 * What the trigger keeps in the node's static data, and nothing else: the registered task
 * (`registration`) and the one set aside at deactivation or replacement (`parkedRegistration`),
 * read the same way by the hooks and by webhook(), and brought up to date from earlier versions.
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
export function storedRegistration(data: IDataObject, key: RegistrationKey = 'registration'): Registration | undefined {
	const value = data[key] as Registration | undefined;
	if (!value || typeof value !== 'object') return undefined;
	if (typeof value.autoCallId !== 'string' || typeof value.webhookUrl !== 'string' || typeof value.fingerprint !== 'string') {
		return undefined;
	}
	if (typeof value.secretHash !== 'string' && typeof value.secret !== 'string') return undefined;
	return value;
}

/** Keeps `registration` under `key` in static data. */
export function keepRegistration(data: IDataObject, key: RegistrationKey, registration: Registration): void {
	data[key] = registration as unknown as IDataObject;
}

/**
 * Brings static data written by earlier versions to the current shape: no secret in clear (its
 * hash instead) and no remembered deliveries. Runs in the main process (activation), where n8n
 * saves static data after the hooks.
 */
export function tidyStaticData(data: IDataObject): void {
	if (data.recentDeliveries !== undefined) delete data.recentDeliveries;
	for (const key of ['registration', 'parkedRegistration'] as const) {
		const registration = storedRegistration(data, key);
		if (registration && typeof registration.secret === 'string') {
			const { secret, ...rest } = registration;
			data[key] = { ...rest, secretHash: hashSecret(secret) } as IDataObject;
		}
	}
}
