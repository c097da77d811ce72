/**
 * A workflow saved with 0.1.0 gives the same output items, field for field, with this
 * release as with 0.1.0 itself, except the rows of CHANGELOG.md's table "What changes for
 * workflows saved with 0.1.0".
 *
 * 0.1.0's own node code is built from its git commit (RELEASE_0_1_0, `git archive` + this
 * repository's TypeScript and packages) and run through n8n-core's engine beside the current node,
 * on the same steps as test/e2e/fixtures/0.1.0/every-operation.json (every operation, version-1
 * parameters as 0.1.0 saved them), each against a fresh simulator state. Ids the simulator makes
 * are random: both runs' ids are named by order of appearance before the outputs are compared.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ICredentialType, IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import type { Simulator } from '../../simulator';
import { runNode } from '../engine/harness';
import { credentialsFor, startSimulator } from '../actions/fixtures';

jest.setTimeout(180_000);

/** The commit of release 0.1.0 (test/e2e/fixtures/0.1.0/README.md). */
const RELEASE_0_1_0 = 'a016f41';
const REPO = path.resolve(__dirname, '..', '..');

interface Release {
	node: INodeType;
	credentialTypes: ICredentialType[];
}

/** 0.1.0's node and credentials, compiled from its commit with this repository's TypeScript. */
function build010(): Release {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-0.1.0-'));
	try {
		execFileSync('git', ['cat-file', '-e', `${RELEASE_0_1_0}^{commit}`], {
			cwd: REPO,
			stdio: 'pipe',
		});
	} catch {
		throw new Error(
			`Release 0.1.0's commit ${RELEASE_0_1_0} is not in this clone (a shallow clone?): run "git fetch --unshallow" (GitHub Actions: actions/checkout with fetch-depth: 0).`,
		);
	}
	const archive = execFileSync(
		'git',
		['archive', RELEASE_0_1_0, 'nodes', 'credentials', 'tsconfig.json', 'package.json'],
		{
			cwd: REPO,
			maxBuffer: 64 * 1024 * 1024,
		},
	);
	execFileSync('tar', ['-x', '-C', dir], { input: archive });
	fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
	execFileSync(
		process.execPath,
		[
			require.resolve('typescript/bin/tsc'),
			'-p',
			dir,
			'--outDir',
			path.join(dir, 'dist'),
			'--sourceMap',
			'false',
			'--declaration',
			'false',
		],
		{
			cwd: dir,
			stdio: 'pipe',
		},
	);
	/* eslint-disable @typescript-eslint/no-require-imports */
	const node = require(
		path.join(dir, 'dist', 'nodes', 'CisAutoCall', 'CisAutoCall.node.js'),
	).CisAutoCall;
	const api = require(
		path.join(dir, 'dist', 'credentials', 'CisAutoCallApi.credentials.js'),
	).CisAutoCallApi;
	const login = require(
		path.join(dir, 'dist', 'credentials', 'CisAutoCallLoginApi.credentials.js'),
	).CisAutoCallLoginApi;
	/* eslint-enable @typescript-eslint/no-require-imports */
	return { node: new node(), credentialTypes: [new api(), new login()] };
}

const current: Release = {
	node: new CisAutoCall(),
	credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
};

interface Step {
	name: string;
	parameters: (ids: Record<string, string>) => INodeParameters;
	items?: (ids: Record<string, string>) => IDataObject[];
	/** Ids this step's first output gives to later steps. */
	keep?: (json: IDataObject) => Record<string, string>;
	/** Wait until the simulator has played the calls started so far. */
	afterCallsEnded?: boolean;
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** The action nodes of every-operation.json in their order, with `$('Create task')` and `$json` given as values. */
const STEPS: Step[] = [
	{
		name: 'Create task',
		parameters: () => ({
			authentication: 'accessToken',
			resource: 'callTask',
			operation: 'create',
			name: 'Upgrade 0.1.0 task',
			defaultExecData: 'bot-upgrade',
			secondExec: 'end',
			cidType: 'default',
			startType: 'manual',
			cpsMode: 'everyNSeconds',
			secondsBetweenCalls: 2,
			fullListTime: 30,
			recordCall: true,
			recTrimLeft: 1,
			redialStrategyEn: true,
			redialRules: { busy: { redial: true, time: 600, count: 2 }, noAnswer: { redial: false } },
			additionalFields: {
				taskComment: 'saved with 0.1.0',
				callStrategy: 'STEP_2_STEP',
				useTr: true,
				allowCallTimeFrom: '09:00',
				allowCallTimeTo: '21:00',
				checkPhone: false,
				lifetime: 86400,
			},
			webhookUrls: {
				target: [
					{
						url: 'http://127.0.0.1:5681/hooks/upgrade-task',
						CALL_ENDED: true,
						CANDIDATE_CHANGED: true,
						partialResults: false,
						delay: 0,
					},
				],
			},
			options: { timeout: 30, maxRetries: 3, retryUncertainCreates: true },
		}),
		keep: (json) => ({ task: String(json.autoCallId) }),
	},
	{
		name: 'Get task',
		parameters: (ids) => ({
			authentication: 'login',
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId(ids.task),
			options: {},
		}),
	},
	{
		name: 'Find task',
		parameters: () => ({
			resource: 'callTask',
			operation: 'getMany',
			returnAll: false,
			limit: 1,
			filters: { keyword: 'Upgrade 0.1.0 task', sort: '-createdAt', status: ['BLANK'] },
			options: { concurrency: 5, maxRequestsPerSecond: 0 },
		}),
	},
	{
		name: 'Add candidate',
		parameters: (ids) => ({
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(ids.task),
			inputMode: 'define',
			phone: '79990007001',
			candidateFields: {
				callbackData: '{"crmId":"U-1"}',
				clientExternalId: 'U-1',
				timezone: '+03:00',
				variables: { variable: [{ name: 'name', value: 'Uma' }] },
			},
			forceStart: false,
			options: {},
		}),
	},
	{
		name: 'Cancel candidate',
		parameters: (ids) => ({
			resource: 'candidate',
			operation: 'cancel',
			autoCallId: byId(ids.task),
			phone: '79990007001',
			options: {},
		}),
	},
	{
		name: 'Add candidates',
		parameters: (ids) => ({
			resource: 'candidate',
			operation: 'addManyToTask',
			autoCallId: byId(ids.task),
			inputMode: 'fromItems',
			phoneField: 'phone',
			variablesFields: 'name',
			callbackDataFields: 'crmId',
			clientExternalIdField: 'crmId',
			forceStart: false,
			options: { batchSize: 100, concurrency: 5 },
		}),
		items: () => [
			{ crmId: 'U-2', name: 'Boris', phone: '79990007002' },
			{ crmId: 'U-3', name: 'Vera', phone: '79990007003' },
		],
	},
	{
		name: 'Start task',
		parameters: (ids) => ({
			resource: 'callTask',
			operation: 'start',
			autoCallId: byId(ids.task),
			options: {},
		}),
	},
	// After the started calls have ended: what Pause outputs (the task's statistics) then depends on
	// nothing but the node (a busy machine paused some runs mid-call: failed once, 2 in progress vs 0).
	{
		name: 'Pause task',
		afterCallsEnded: true,
		parameters: (ids) => ({
			resource: 'callTask',
			operation: 'pause',
			autoCallId: byId(ids.task),
			options: {},
		}),
	},
	{
		name: 'Call one person',
		parameters: () => ({
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-upgrade-single',
			phone: '79990007004',
			candidateFields: { callbackData: '{"crmId":"U-4"}', variablesJson: '{"name":"Ivan"}' },
			options: { retryUncertainCreates: true },
		}),
		keep: (json) => ({ candidate: String(json.autoCallCandidateId) }),
	},
	{
		name: 'Forget candidate',
		parameters: (ids) => ({
			resource: 'candidate',
			operation: 'depersonalize',
			autoCallCandidateId: ids.candidate,
			skipDeleteRecord: true,
			options: {},
		}),
	},
	{
		name: 'Forget call',
		parameters: () => ({
			resource: 'call',
			operation: 'depersonalize',
			callId: 'upgrade-0.1.0-call-1',
			skipDeleteRecord: false,
			options: {},
		}),
	},
	{
		name: 'Delete recording',
		parameters: () => ({
			resource: 'call',
			operation: 'deleteRecording',
			callId: 'upgrade-0.1.0-call-2',
			options: {},
		}),
	},
	{
		name: 'Create campaign',
		parameters: () => ({
			resource: 'candidate',
			operation: 'createBatch',
			inputMode: 'fromItems',
			phoneField: 'phone',
			variablesFields: 'name',
			callbackDataFields: 'crmId',
			clientExternalIdField: 'crmId',
			taskSettings: { botSettingsId: 'bot-upgrade-batch', checkPhone: false },
			options: { batchSize: 100 },
		}),
		items: () => [
			{ crmId: 'U-5', name: 'Dina', phone: '79990007005' },
			{ crmId: 'U-6', name: 'Egor', phone: '79990007006' },
		],
	},
	{
		name: 'Stop task',
		parameters: (ids) => ({
			resource: 'callTask',
			operation: 'stop',
			autoCallId: byId(ids.task),
			options: {},
		}),
	},
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** The outputs with the simulator's random ids named by order of appearance, and times as `<time>`. */
function canonical(value: unknown, names: Map<string, string>): unknown {
	if (typeof value === 'string') {
		if (UUID.test(value)) {
			if (!names.has(value)) names.set(value, `<id ${names.size + 1}>`);
			return names.get(value);
		}
		return TIME.test(value) ? '<time>' : value;
	}
	if (Array.isArray(value)) return value.map((entry) => canonical(entry, names));
	if (value && typeof value === 'object') {
		return Object.fromEntries(
			Object.entries(value).map(([key, entry]) => [key, canonical(entry, names)]),
		);
	}
	return value;
}

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(async () => {
	await sim.close();
});

async function runSteps(release: Release): Promise<Record<string, unknown>> {
	await sim.idle();
	sim.reset();
	sim.addCall({ id: 'upgrade-0.1.0-call-1', callTo: '79990007011' });
	sim.addCall({ id: 'upgrade-0.1.0-call-2', callTo: '79990007012' });
	const ids: Record<string, string> = {};
	const names = new Map<string, string>();
	const outputs: Record<string, unknown> = {};
	for (const step of STEPS) {
		if (step.afterCallsEnded) await sim.idle();
		const result = await runNode({
			...release,
			typeVersion: 1,
			credentials: credentialsFor(sim),
			parameters: step.parameters(ids),
			items: step.items?.(ids) ?? [{}],
		});
		if (result.error) throw new Error(`${step.name}: ${(result.error as Error).message}`);
		const json = result.items.map((item) => item.json);
		Object.assign(ids, step.keep?.(json[0]) ?? {});
		outputs[step.name] = canonical(
			result.items.map((item) => ({ json: item.json, pairedItem: item.pairedItem })),
			names,
		);
	}
	return outputs;
}

/**
 * The differences CHANGELOG.md's table names, by step: what a version-1 node now gives beyond
 * 0.1.0's output (none may be missing or renamed).
 */
const NAMED_DIFFERENCES: Record<
	string,
	(before: IDataObject[], after: IDataObject[]) => IDataObject[]
> = {};

describe('a workflow saved with 0.1.0: the same output items, field for field, as with 0.1.0 itself', () => {
	let before: Record<string, unknown>;
	let after: Record<string, unknown>;
	beforeAll(async () => {
		const release010 = build010();
		before = await runSteps(release010);
		after = await runSteps(current);
	});

	test.each(STEPS.map((step) => step.name))('%s', (name) => {
		expect(before[name]).toBeDefined();
		const adjust = NAMED_DIFFERENCES[name];
		const expected = adjust
			? adjust(before[name] as IDataObject[], after[name] as IDataObject[])
			: before[name];
		expect(after[name]).toEqual(expected);
	});

	test('the comparison can fail: a changed field of the current output is seen', () => {
		const changed = JSON.parse(JSON.stringify(after['Add candidate'])) as Array<{
			json: IDataObject;
		}>;
		changed[0].json.extra = 'a new field';
		expect(changed).not.toEqual(before['Add candidate']);
	});
});
