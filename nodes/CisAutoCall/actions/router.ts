import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { agentFailure, type AgentFailureKind, runsAsAgentTool } from '../guardrails';
import { perRunParameters } from '../helpers/parameters';
import { type ApiRequest, createApiClient } from '../../shared/transport';
import type { ItemOperation, Run } from './operation';
import { runPipeline } from './pipeline';
import { EarlierTries } from './pipeline/earlierTries';
import { RepeatProtection } from './pipeline/repeatProtection';
import { NotSentError } from './itemErrors';
import { inputError } from './pipeline/outcome';
import { operations } from './resources';
import { readRunOptions, type RunOptions } from './runOptions';
import { markedForWait, scrub, startWait, waitForCandidates, type Wait } from './waiting';

/**
 * The node's execute(): finds the operation, builds the run (settings, client, parameters,
 * memory of earlier tries) and hands it to the pipeline (pipeline/: prepare → guard → send →
 * output).
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	if (!runsAsAgentTool(this)) return await runItems.call(this, false);
	// As an AI Agent's tool the node never throws: the model reads short text for every item, and
	// nothing makes n8n run it again (its Retry On Fail re-runs a node that threw).
	try {
		return await runItems.call(this, true);
	} catch (error) {
		const kind: AgentFailureKind = error instanceof NotSentError ? 'refused' : 'failed';
		return [this.getInputData().map((_, item) => ({ json: agentFailure(kind, error as Error), pairedItem: { item } }))];
	}
}

async function runItems(this: IExecuteFunctions, asAgentTool: boolean): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	let operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const waits = operation.kind === 'item' && operation.waitsForResult === true;
	if (waits && asAgentTool) {
		// An AI Agent's tool answers at once: n8n cannot pause an agent's tool.
		throw new NotSentError(
			this.getNode(),
			'Not sent: an operation that waits for the result cannot be used by an AI Agent. Use "Create and Run" or "Add to Task" as the tool instead',
		);
	}
	let options: RunOptions;
	try {
		options = readRunOptions(this, operation, asAgentTool);
	} catch (error) {
		throw inputError(this, error, 0);
	}
	const { settings, guardrails, dryRun } = options;
	// Dry Run sends nothing, so nothing is waited for (and no key is made).
	let wait: Wait | undefined;
	if (waits && !dryRun) {
		wait = startWait(this);
		operation = markedForWait(operation as ItemOperation<ApiRequest>, wait);
	}
	const client = await createApiClient(this, settings);
	const earlierTries = EarlierTries.of(this, operation);
	const run: Run = { context: this, items, client, settings, parameter: perRunParameters(this), groupTasks: earlierTries.groupTasks };
	// A tool gives one answer per item, like Continue On Fail.
	const continueOnFail = asAgentTool || this.continueOnFail();
	const repeatProtection = dryRun ? undefined : RepeatProtection.of(this, operation, options.repeatProtectionHours);
	const plan = { continueOnFail, asAgentTool, guardrails, earlierTries, repeatProtection, dryRun };
	if (!wait) return [await runPipeline(run, operation, plan)];
	let output: INodeExecutionData[];
	try {
		output = await runPipeline(run, operation, plan);
	} catch (error) {
		// An error may quote the request, and with it the wait's key.
		const failure = error as Error & { description?: string };
		failure.message = scrub(failure.message, wait.key);
		if (typeof failure.description === 'string') failure.description = scrub(failure.description, wait.key);
		throw failure;
	}
	return [await waitForCandidates(this, wait, output)];
}
