import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiRequest } from '../../shared/transport';
import type { ItemOperation, Operation } from './operation';
import { readRun, runPipeline } from './pipeline';
import { operations } from './resources';
import {
	type AgentMode,
	agentBuilderNotice,
	agentFailure,
	agentModeOf,
	agentNotDoneHint,
	failureKindOf,
} from './agent';
import { runWaiting } from './waiting/start';

/**
 * The node's execute(): finds the operation, reads the run once and hands both to the pipeline
 * (pipeline/); a "… and Wait for Result" operation runs inside its wait (waiting/), also as an AI
 * Agent's tool.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const agentMode = agentModeOf(this);
	if (agentMode === 'none') return (await runItems.call(this, agentMode)).output;
	// As an AI Agent's tool the node never throws: the model reads short text for every item, and
	// nothing makes n8n run it again (its Retry On Fail re-runs a node that threw).
	let output: INodeExecutionData[][];
	// The builder's fix of a refusal goes to the notice, never to the model.
	let builderNotice: NodeExecutionHint | undefined;
	try {
		({ output, builderNotice } = await runItems.call(this, agentMode));
	} catch (error) {
		// Nothing of a run that threw was sent or may have been created: it was refused, or it failed.
		const kind = failureKindOf(error as Error, false);
		const items = this.getInputData();
		output = [
			items.map((_, item) => ({ json: agentFailure(kind, error as Error), pairedItem: { item } })),
		];
		builderNotice = agentBuilderNotice(
			items.map(() => error as Error),
			items.length,
		);
	}
	const hint = builderNotice ?? agentNotDoneHint(output[0] ?? []);
	if (hint) this.addExecutionHints?.(hint);
	return output;
}

async function runItems(
	this: IExecuteFunctions,
	agentMode: AgentMode,
): Promise<{ output: INodeExecutionData[][]; builderNotice?: NodeExecutionHint }> {
	const operation = operationToRun(this);
	const waits = operation.kind === 'item' && operation.waitsForResult === true;
	const run = await readRun(this, operation, agentMode !== 'none');
	// A run that sends nothing waits for nothing (and makes no key).
	if (!waits || !run.sends)
		return { output: [await runPipeline(run, operation)], builderNotice: run.builderNotice };
	const output = [
		await runWaiting(
			this,
			operation as ItemOperation<ApiRequest>,
			agentMode,
			async (marked) => await runPipeline(run, marked),
		),
	];
	return { output, builderNotice: run.builderNotice };
}

function operationToRun(context: IExecuteFunctions): Operation {
	const resource = context.getNodeParameter('resource', 0) as string;
	const operationName = context.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(
			context.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	}
	return operation;
}
