import { RecentSecrets, SECRET_FRESH_MS } from '../../nodes/CisAutoCallTrigger/secret';
import { hashSecret } from '../../nodes/CisAutoCallTrigger/secret/hashing';
import { ExpiringMap } from '../../nodes/shared/expiringMap';
import { PROCESS_MEMORIES } from '../../nodes/shared/processMemory';

/** The secrets as the trigger keeps them (the process's `webhookSecretReads`), on a clock of the test's. */
function secretsOn(now: () => number): RecentSecrets {
	return new RecentSecrets(
		new ExpiringMap(SECRET_FRESH_MS, PROCESS_MEMORIES.webhookSecretReads.capacity, now),
		now,
	);
}

function clock(start = 1_000_000) {
	let now = start;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("RecentSecrets: a credential's secret read at most once per second per trigger node", () => {
	test('within the second the last read serves; after it the credential is read again and a new secret counts', async () => {
		const time = clock();
		const secrets = secretsOn(time.now);
		let stored = 'first-secret-of-16-chars';
		let reads = 0;
		const read = async () => {
			reads++;
			return stored;
		};
		expect(await secrets.hashOf('wf:node:cred', read)).toBe(hashSecret('first-secret-of-16-chars'));
		stored = 'second-secret-of-16-chars';
		time.advance(SECRET_FRESH_MS - 1);
		expect(await secrets.hashOf('wf:node:cred', read)).toBe(hashSecret('first-secret-of-16-chars'));
		expect(reads).toBe(1);
		time.advance(1);
		expect(await secrets.hashOf('wf:node:cred', read)).toBe(
			hashSecret('second-secret-of-16-chars'),
		);
		expect(reads).toBe(2);
	});

	test('deliveries that arrive during a read wait for it instead of reading too', async () => {
		const secrets = secretsOn(clock().now);
		let reads = 0;
		let finish: (secret: string) => void = () => {};
		const read = async () => {
			reads++;
			return await new Promise<string>((resolve) => (finish = resolve));
		};
		const waiting = [
			secrets.hashOf('k', read),
			secrets.hashOf('k', read),
			secrets.hashOf('k', read),
		];
		finish('a-secret-of-16-chars!');
		expect(await Promise.all(waiting)).toEqual(
			new Array(3).fill(hashSecret('a-secret-of-16-chars!')),
		);
		expect(reads).toBe(1);
	});

	test('each workflow and node reads for itself (n8n decides per workflow whether it may use a credential)', async () => {
		const secrets = secretsOn(clock().now);
		const keysRead: string[] = [];
		const readFor = (key: string) => async () => {
			keysRead.push(key);
			return key === 'wf1:node:cred' ? 'the-secret-of-workflow-1' : undefined;
		};
		expect(await secrets.hashOf('wf1:node:cred', readFor('wf1:node:cred'))).toBe(
			hashSecret('the-secret-of-workflow-1'),
		);
		expect(await secrets.hashOf('wf2:node:cred', readFor('wf2:node:cred'))).toBeUndefined();
		expect(keysRead).toEqual(['wf1:node:cred', 'wf2:node:cred']);
	});

	test('a failed read is not kept: the next delivery reads again', async () => {
		const secrets = secretsOn(clock().now);
		let reads = 0;
		const failing = async (): Promise<string> => {
			reads++;
			throw new Error('credential not found');
		};
		await expect(secrets.hashOf('k', failing)).rejects.toThrow('credential not found');
		await expect(secrets.hashOf('k', failing)).rejects.toThrow('credential not found');
		expect(reads).toBe(2);
		expect(secrets.size).toBe(0);
	});
});
