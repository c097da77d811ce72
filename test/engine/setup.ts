/**
 * One-time engine set-up of n8n-core for the tests, and the names the harness gives its workflow and nodes.
 */
import './engine-env';

import { DataDeduplicationService } from 'n8n-core';
import type { IDataObject, INode, INodeTypes, IWorkflowBase } from 'n8n-workflow';
import { Expression, NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { harnessDeduplicator } from './deduplicator';

/** Package name used as the node type prefix, like n8n does for community packages. */
export const PACKAGE_NAME: string = (() => {
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		return (require('../../package.json') as { name: string }).name;
	} catch {
		return 'n8n-nodes-harness';
	}
})();

export const HARNESS_WORKFLOW_ID = 'HarnessWorkflow1';
export const DEFAULT_WEBHOOK_ID = '0b1c2d3e-4f50-4a61-8b72-9c8d7e6f5a40';
export const START_NODE_TYPE = 'n8n-nodes-harness.harnessStart';

let engineReady = false;

/**
 * Prepares n8n-core once per jest worker. The environment (user folder for
 * `InstanceSettings`, log level) is set by ./engine-env before n8n-core loads; here the
 * expression engine is pinned to `legacy`, and the de-duplication helpers get their store.
 */
export function setupEngine(): void {
	if (engineReady) return;
	engineReady = true;
	// `legacy` = tournament in the same V8 isolate (n8n-workflow's default engine). The `vm`
	// engine would need isolated-vm's native addon (not built; wants Node 24).
	Expression.setExpressionEngine('legacy');
	// n8n starts this service with its database; the harness with an in-memory stand-in.
	void DataDeduplicationService.init(harnessDeduplicator);
}

/**
 * The harness's workflow: a start node feeding the node under test, as n8n runs it (`workflow`)
 * and as it saves it (`workflowData`, what the execution hooks get).
 */
export function harnessWorkflow(
	nodeUnderTest: INode,
	nodeTypes: INodeTypes,
	{ name, staticData = {} }: { name: string; staticData?: IDataObject },
): { startNode: INode; workflow: Workflow; workflowData: IWorkflowBase } {
	const startNode: INode = {
		id: 'harness-start',
		name: nodeUnderTest.name === 'Harness Start' ? 'Harness Start 1' : 'Harness Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const nodes = [startNode, nodeUnderTest];
	const connections = {
		[startNode.name]: {
			main: [[{ node: nodeUnderTest.name, type: NodeConnectionTypes.Main, index: 0 }]],
		},
	};
	const settings = { executionOrder: 'v1' as const };
	const workflow = new Workflow({
		id: HARNESS_WORKFLOW_ID,
		name,
		nodes,
		connections,
		active: false,
		nodeTypes,
		staticData,
		settings,
	});
	const workflowData = {
		id: HARNESS_WORKFLOW_ID,
		name,
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	return { startNode, workflow, workflowData };
}
