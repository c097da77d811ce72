import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiRequest } from '../../shared/transport';
import type { ItemOperation, Operation } from './operation';
import { readRun, runPipeline } from './pipeline';
import { operations } from './resources';
import { type AgentMode, agentFailure, agentModeOf, agentNotDoneHint, failureKindOf } from './agent';
import { runWaiting } from './waiting/start';

/**
 * The node's execute(): finds the operation, reads the run once and hands both to the pipeline
 * (pipeline/); a "… and Wait for Result" operation runs inside its wait (waiting/), also as an AI
 * Agent's tool.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const agentMode = agentModeOf(this);
	if (agentMode === 'none') return await runItems.call(this, agentMode);
	// As an AI Agent's tool the node never throws: the model reads short text for every item, and
	// nothing makes n8n run it again (its Retry On Fail re-runs a node that threw).
	let output: INodeExecutionData[][];
	try {
		output = await runItems.call(this, agentMode);
	} catch (error) {
		// Nothing of a run that threw was sent or may have been created: it was refused, or it failed.
		const kind = failureKindOf(error as Error, false);
		output = [this.getInputData().map((_, item) => ({ json: agentFailure(kind, error as Error), pairedItem: { item } }))];
	}
	const hint = agentNotDoneHint(output[0] ?? []);
	if (hint) this.addExecutionHints?.(hint);
	return output;
}

async function runItems(this: IExecuteFunctions, agentMode: AgentMode): Promise<INodeExecutionData[][]> {
	const operation = operationToRun(this);
	const waits = operation.kind === 'item' && operation.waitsForResult === true;
	const run = await readRun(this, operation, agentMode !== 'none');
	// A run that sends nothing waits for nothing (and makes no key).
	if (!waits || !run.sends) return [await runPipeline(run, operation)];
	return [await runWaiting(this, operation as ItemOperation<ApiRequest>, agentMode, async (marked) => await runPipeline(run, marked))];
}

function operationToRun(context: IExecuteFunctions): Operation {
	const resource = context.getNodeParameter('resource', 0) as string;
	const operationName = context.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(context.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	return operation;
}
