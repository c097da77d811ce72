import { hashSecret } from './hashing';

/**
 * How long a webhook secret read from its credential is used before it is read again. Reading a
 * credential in a webhook call costs n8n a database query, a decryption and, with its default
 * expression engine, a fresh expression isolate: more than the rest of the delivery. Within this
 * time a changed secret is not seen yet; after it, every delivery is checked against the new one.
 */
export const SECRET_FRESH_MS = 1000;

/** Entries beyond this count are pruned of the expired ones. */
const PRUNE_ABOVE = 1000;

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
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly freshMs = SECRET_FRESH_MS,
		private readonly now: () => number = Date.now,
	) {}

	get size(): number {
		return this.entries.size;
	}

	/**
	 * The hash of the secret for `key`: read with `read` unless it was read less than `freshMs`
	 * ago. Deliveries that arrive while a read is under way wait for that read. A failed read is
	 * not kept (the next delivery reads again).
	 */
	hashOf(key: string, read: () => Promise<string | undefined>): Promise<string | undefined> {
		const now = this.now();
		const entry = this.entries.get(key);
		if (entry && now - entry.readAt < this.freshMs) return entry.hash;
		const hash = read().then((secret) => (secret === undefined ? undefined : hashSecret(secret)));
		this.entries.set(key, { readAt: now, hash });
		hash.catch(() => {
			if (this.entries.get(key)?.hash === hash) this.entries.delete(key);
		});
		if (this.entries.size > PRUNE_ABOVE) this.prune(now);
		return hash;
	}

	private prune(now: number): void {
		for (const [key, entry] of this.entries) {
			if (now - entry.readAt >= this.freshMs) this.entries.delete(key);
		}
	}
}
