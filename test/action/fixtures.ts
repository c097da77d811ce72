import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { runNode, type RunOptions, type RunResult } from '../engine/harness';
import { createSimulator, type Simulator } from '../../simulator';

export const TOKEN = 'sim-token-7f3a9c';
export const EMAIL = 'robot@example.com';
export const PASSWORD = 'pa55-word-91x';

export async function startSimulator(options: Parameters<typeof createSimulator>[0] = {}): Promise<Simulator> {
	return await createSimulator({ token: TOKEN, users: [{ email: EMAIL, password: PASSWORD }], timeScale: 0.001, ...options });
}

/** Runs the action node through n8n-core's engine against the simulator, with the token credential. */
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

/** Runs the action node through n8n-core's engine against the simulator. */
/**
 * Call Task → Create, Get and Get Many changed their panel in node version 2 (short panel, Simplify).
 * Tests written with version 1's parameters run them as version 1, as a stored workflow does;
 * version 2 has its own tests (test/actions/callTask/version2.test.ts), which pass typeVersion: 2.
 * Every other operation is the same in both versions and runs as the default version (2).
 */
function panelVersionOf(parameters: INodeParameters): number | undefined {
	return parameters.resource === 'callTask' && ['create', 'get', 'getMany'].includes(String(parameters.operation)) ? 1 : undefined;
}

export async function runAction(
	sim: Simulator,
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	extra: Partial<RunOptions> = {},
): Promise<RunResult> {
	return await runNode({
		typeVersion: panelVersionOf(parameters),
		node: new CisAutoCall(),
		credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
		// A reused store keeps the token a login saved; writing the credentials again would clear it.
		credentials: extra.credentialStore ? undefined : credentialsFor(sim),
		parameters,
		items,
		...extra,
	});
}

/** API requests the simulator received (control calls excluded). */
export function apiRequests(sim: Simulator) {
	return sim.requests.filter((request) => request.path.startsWith('/cis/api/v1/'));
}

export function jsonOf(result: RunResult): IDataObject[] {
	return result.items.map((item) => item.json);
}
