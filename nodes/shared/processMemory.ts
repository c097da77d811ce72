import { randomUUID } from 'crypto';

import { ExpiringMap } from './expiringMap';

/**
 * Everything the nodes remember in the memory of one n8n process, in one place. Each memory is
 * named and declared here (what it holds, its cap, its expiry, and what a restart or another
 * process does not see); the feature that uses it takes it from here. CONTRIBUTING.md's table
 * "What a process remembers" lists the same memories (test/unit/processMemory.test.ts keeps the
 * two together). Nothing here outlives the process or is shared with another one: what must
 * survive a restart, or hold in queue mode, lives in n8n (the execution, static data, n8n's
 * de-duplication database).
 */

export interface MemoryDeclaration {
	/** What one entry holds, and its key. */
	holds: string;
	/** At most this many entries; beyond it the entry set longest ago goes first. */
	capacity: number;
	/** An entry is forgotten this long after it was last set; Infinity: only the capacity pushes it out. */
	expiresMs: number;
	/** Which process keeps it: the one that runs executions (main, or a queue-mode worker) or the one that takes webhooks. */
	keptBy: 'execution process' | 'webhook process';
	/** What a restart, or another worker or webhook process, does not see, and what follows. */
	notSeenElsewhere: string;
}

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export const PROCESS_MEMORIES = {
	earlierTries: {
		holds:
			"per node run (execution, node, run index): each item an earlier try of n8n's Retry On Fail created or may have created, with its request's fingerprint, and Create Batch's call tasks",
		capacity: 100,
		// n8n waits at most 5 s between tries; a record is kept this long after the end of its last try.
		expiresMs: 10 * MINUTE_MS,
		keptBy: 'execution process',
		notSeenElsewhere:
			'Nothing: all tries of a node run happen in one process (in queue mode the worker running the execution). A run that failed for good leaves its record until it expires.',
	},
	callsStartedPerExecution: {
		holds:
			"per execution and node (for an AI Agent's tools: per execution): the calls started so far, for Max Calls per Run",
		capacity: 1000,
		expiresMs: Number.POSITIVE_INFINITY,
		keptBy: 'execution process',
		notSeenElsewhere:
			'Nothing that counts: the count also travels with the execution (its context, which n8n saves with a waiting execution), so a resume after a restart or on another worker starts from it.',
	},
	sentRequestKeys: {
		holds:
			"a node's record when n8n offers no de-duplication helpers or its database cannot be asked: the keys of Repeat Protection (each creating request's fingerprint and part of the window) and of the daily limits, per workflow and node",
		// Repeat Protection keeps 100,000 requests per workflow and node, each with a key per part (4 parts).
		capacity: 400_000,
		// The part of the window is in the key: an old key is never found again, the capacity pushes it out.
		expiresMs: Number.POSITIVE_INFINITY,
		keptBy: 'execution process',
		notSeenElsewhere:
			"A retried execution after a restart or on another worker sends again, and the daily limits count per process. Used only where n8n's database cannot keep the record (a warning in n8n's log says so); otherwise the record is n8n's database.",
	},
	repeatProtectionRecordChanges: {
		holds:
			"per workflow and node: this process's changes of the node's record in n8n's database (Repeat Protection, the daily limits), one at a time, and the keys waiting to go together in the next",
		capacity: 10_000,
		// A change takes two or three reads and writes of one row; long after, nothing waits for it.
		expiresMs: 10 * MINUTE_MS,
		keptBy: 'execution process',
		notSeenElsewhere:
			'Another worker may change the same record at the same moment and drop a key this process wrote; each key is therefore asked again, up to 3 times, until the record shows it: rarer, not impossible.',
	},
	recordFallbackWarnings: {
		holds:
			"per workflow and node: that this process warned in n8n's log that the node's record is kept in its memory only",
		capacity: 1000,
		// The warning comes again once a day while the fallback lasts.
		expiresMs: DAY_MS,
		keptBy: 'execution process',
		notSeenElsewhere: 'Nothing to lose: each process warns for itself.',
	},
	dailySlotsClaimed: {
		holds:
			"per workflow and node: the keys of the day's slots this process took for Max Calls per Day, asked again with its next claim",
		capacity: 1000,
		// A slot is held at most 30 hours (a day and a quarter).
		expiresMs: 30 * HOUR_MS,
		keptBy: 'execution process',
		notSeenElsewhere:
			"Nothing of the count: the slots are on the node's record in n8n's database; this only lets the process write back a slot another worker's write dropped.",
	},
	knownRequestResults: {
		holds:
			'per workflow, node and request key: what the service answered (the ids), for the item of a request Repeat Protection leaves out',
		capacity: 10_000,
		expiresMs: Number.POSITIVE_INFINITY,
		keptBy: 'execution process',
		notSeenElsewhere:
			'A left-out item after a restart or on another worker says it was left out, without the earlier ids.',
	},
	waitKeysOfNodeRuns: {
		holds:
			"per node run (execution, node, run index): the key and time limit of the run's wait (… and Wait for Result), so that Retry On Fail marks its candidates the same way; each run of the node (an AI Agent's next call of the tool, a loop's next pass) waits with a key of its own",
		capacity: 10_000,
		expiresMs: HOUR_MS,
		keptBy: 'execution process',
		notSeenElsewhere:
			'Nothing: all tries of a node run happen in one process. The wait itself is kept by the execution.',
	},
	deliveriesSeen: {
		holds:
			"per trigger node, event and task / candidate / call: the latest delivery's fingerprint, to ignore the service's re-sends",
		// Each entry is about 300 bytes: at most about 30 MB. A re-send of an entry pushed out starts the workflow again.
		// Two deliveries per waiting lead (Call Ended, Person Done): 10,000 waiting leads take 20,000.
		capacity: 100_000,
		// The service re-sends an event for 24 hours.
		expiresMs: DAY_MS,
		keptBy: 'webhook process',
		notSeenElsewhere:
			'A re-send after a restart, or one that reaches another webhook process, starts the workflow again: its deliveryId is the same, for Remove Duplicates to drop it.',
	},
	waitsHandedOver: {
		holds:
			'per wait (execution, node, key hash): the results handed over so far, the last unanswered calls, Person Done events held back, the deliveries being handed over now, and whether the execution was resumed',
		// About 1.4 kB per wait of one person with its result: at most about 70 MB. A process can get an
		// event of every waiting lead (round robin): 10,000 waiting leads fit (docs/queue-mode.md).
		capacity: 50_000,
		// Longer than any wait: n8n ends a waiting execution at its time limit anyway.
		expiresMs: 31 * DAY_MS,
		keptBy: 'webhook process',
		notSeenElsewhere:
			"No result is lost: an event that holds one is answered 200 only once n8n says the wait needs it no more, so the service's re-sends bring it to a process that lives. An unanswered Call Ended is taken after at most 3 re-sends: a death after that loses its status words (the result says Not reached without them, after a 2-minute grace).",
	},
	handOverSlots: {
		holds:
			"the hand-overs of this process to n8n's own waiting address running now and those waiting for a free slot, in the order they came (one entry)",
		// One entry: the slots and their waiting line, each bounded by handOver.ts.
		capacity: 1,
		expiresMs: Number.POSITIVE_INFINITY,
		keptBy: 'webhook process',
		notSeenElsewhere:
			'Nothing to lose: each process limits its own hand-overs; one turned away is answered 503 and the service sends it again.',
	},
	webhookSecretReads: {
		holds:
			"per workflow, trigger node and credential: the hash of the webhook secret credential's secret as last read",
		capacity: 1000,
		// A changed secret counts within this time.
		expiresMs: SECOND_MS,
		keptBy: 'webhook process',
		notSeenElsewhere:
			'Nothing to lose: each process reads the credential itself, at most once a second.',
	},
} satisfies Record<string, MemoryDeclaration>;

export type MemoryName = keyof typeof PROCESS_MEMORIES;

const memoriesOfThisProcess = new Map<MemoryName, ExpiringMap<unknown>>();

/**
 * The one memory of this process by that name, with its declaration's cap and expiry: the only way
 * a file of nodes/ gets a memory (a class that keeps one is given it; test/unit/processMemory.test.ts checks).
 */
export function processMemory<Value>(name: MemoryName): ExpiringMap<Value> {
	let memory = memoriesOfThisProcess.get(name);
	if (!memory) {
		const { expiresMs, capacity } = PROCESS_MEMORIES[name];
		memory = new ExpiringMap<unknown>(expiresMs, capacity);
		memoriesOfThisProcess.set(name, memory);
	}
	return memory as ExpiringMap<Value>;
}

/**
 * This process's own name, new at each start: a webhook process that passes an event on through
 * n8n's public address (CisAutoCallTrigger/handOver/passOn.ts) tells an event that came back to itself apart.
 */
export const THIS_PROCESS = randomUUID();
