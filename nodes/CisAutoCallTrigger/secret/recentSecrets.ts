import type { ExpiringMap } from '../../shared/expiringMap';
import { PROCESS_MEMORIES } from '../../shared/processMemory';
import { hashSecret } from './hashing';

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
