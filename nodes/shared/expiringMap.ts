/**
 * The bounded memory: a map whose entries expire `ttlMs` after they were last set (Infinity: never),
 * holding at most `capacity` entries (the oldest go first). Entries are kept in the order they were
 * last set, which is also the order in which they expire, so forgetting stops at the first entry
 * still alive. The memories of a process are declared in processMemory.ts.
 */
export class ExpiringMap<Value> {
	private readonly entries = new Map<string, { value: Value; expiresAt: number }>();

	constructor(
		private readonly ttlMs: number,
		private readonly capacity: number,
		private readonly now: () => number = Date.now,
	) {}

	get size(): number {
		this.forgetExpired();
		return this.entries.size;
	}

	get(key: string): Value | undefined {
		this.forgetExpired();
		return this.entries.get(key)?.value;
	}

	/** Sets the value and starts its time anew; the oldest entries go beyond the capacity. */
	set(key: string, value: Value): void {
		this.forgetExpired();
		this.entries.delete(key);
		this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
		while (this.entries.size > this.capacity)
			this.entries.delete(this.entries.keys().next().value as string);
	}

	delete(key: string): void {
		this.entries.delete(key);
	}

	private forgetExpired(): void {
		const now = this.now();
		for (const [key, { expiresAt }] of this.entries) {
			if (expiresAt > now) return;
			this.entries.delete(key);
		}
	}
}
