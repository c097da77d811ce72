import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { runAgentTool, runNode, type AgentToolOptions, type RunOptions, type RunResult } from '../engine/harness';
import { createSimulator, type Simulator } from '../../simulator';
import { useSimulator, type SimulatorHooks } from '../lib/simulator';

export const TOKEN = 'sim-token-7f3a9c';
export const EMAIL = 'robot@example.com';
export const PASSWORD = 'pa55-word-91x';

export async function startSimulator(options: Parameters<typeof createSimulator>[0] = {}): Promise<Simulator> {
	return await createSimulator({ token: TOKEN, users: [{ email: EMAIL, password: PASSWORD }], timeScale: 0.001, ...options });
}

/** The simulator of a test file, started with startSimulator once and emptied before each test (test/lib/simulator.ts). */
export function useActionSimulator(options: Parameters<typeof createSimulator>[0] = {}, hooks: SimulatorHooks = {}): Simulator {
	return useSimulator(() => startSimulator(options), hooks);
}

/** The path every API request of the service starts with. */
export const API = '/cis/api/v1/';

/** A resource locator value (the task field, autoCallId) given by id and picked in the list. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value, cachedResultName: 'picked in the list' });

/** Numbered phones with a file's own prefix: phoneOf(3) is prefix + '0000003'; phoneItems(n) the items of the first n. */
export function numberedPhones(prefix: string) {
	const phoneOf = (index: number) => `${prefix}${String(index).padStart(7, '0')}`;
	const phoneItems = (count: number) => Array.from({ length: count }, (_, index) => ({ phone: phoneOf(index) }));
	return { phoneOf, phoneItems };
}

/** Candidate → Create Batch From Template, the phones read from each item's field phone. */
export const createBatch = (options: INodeParameters = {}, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createBatch',
	inputMode: 'fromItems',
	phoneField: 'phone',
	options,
	...extra,
});

/** Candidate → Create and Run, the phone given by the expression {{ $json.phone }}. */
export const createAndRunByExpression = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
	...extra,
});

/** Candidate → Create and Run, Use Fields of the Input Items: the phone read from each item's field phone. */
export const createAndRunFromItems = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	inputMode: 'fromItems',
	phoneField: 'phone',
	botSettingsId: 'bot-1',
	options,
});

/** Both credentials of the action node, for the simulator. */
export function credentialsFor(sim: Simulator) {
	return {
		cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN },
		cisAutoCallLoginApi: {
			baseUrl: sim.url,
			loginUrl: `${sim.url}/api/v1/auth/login`,
			email: EMAIL,
			password: PASSWORD,
			ttl: 3600,
		},
	};
}

/**
 * Call Task → Create, Get and Get Many changed their panel in node version 2 (short panel, Simplify).
 * Tests written with version 1's parameters run them as version 1, as a stored workflow does;
 * version 2 has its own tests (test/actions/callTask/version2.test.ts), which pass typeVersion: 2.
 * Every other operation is the same in both versions and runs as the default version (2).
 */
function panelVersionOf(parameters: INodeParameters): number | undefined {
	return parameters.resource === 'callTask' && ['create', 'get', 'getMany'].includes(String(parameters.operation)) ? 1 : undefined;
}

/** Runs the action node through n8n-core's engine against the simulator. */
export async function runAction(
	sim: Simulator,
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	extra: Partial<RunOptions> = {},
): Promise<RunResult> {
	return await runNode({
		typeVersion: panelVersionOf(parameters),
		node: new CisAutoCall(),
		credentialTypes: actionCredentialTypes(),
		// A reused store keeps the token a login saved; writing the credentials again would clear it.
		credentials: extra.credentialStore ? undefined : credentialsFor(sim),
		parameters,
		items,
		...extra,
	});
}

/** Runs the action node as an AI Agent's tool (test/engine/harness.ts `runAgentTool`) against the simulator. */
export async function runTool(
	sim: Simulator,
	parameters: INodeParameters,
	toolCalls: IDataObject[],
	extra: Partial<AgentToolOptions> = {},
) {
	return await runAgentTool({
		node: new CisAutoCall(),
		credentialTypes: actionCredentialTypes(),
		credentials: credentialsFor(sim),
		parameters,
		toolCalls,
		...extra,
	});
}

/** Create and Run as an AI Agent's tool: the model gives the phone. */
export const createAndRunTool = (options: IDataObject = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: "={{ $fromAI('phone', 'Number of the person to call', 'string') }}",
	options: options as INodeParameters,
});

/** The single item the tool returned for one call, as the model reads it. */
export function toolAnswerOf(observation: string): IDataObject {
	const items = JSON.parse(observation) as IDataObject[];
	expect(items).toHaveLength(1);
	return items[0];
}

function actionCredentialTypes() {
	return [new CisAutoCallApi(), new CisAutoCallLoginApi()];
}

/** API requests the simulator received (control calls excluded). */
export function apiRequests(sim: Simulator) {
	return sim.requests.filter((request) => request.path.startsWith('/cis/api/v1/'));
}

export function jsonOf(result: RunResult): IDataObject[] {
	return result.items.map((item) => item.json);
}
