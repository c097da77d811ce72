import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { agentFailure, type AgentFailureKind, type Guardrails, readGuardrails, runsAsAgentTool } from '../guardrails';
import { perRunParameters } from '../helpers/parameters';
import { readRunSettings } from '../helpers/requestOptions';
import { createApiClient } from '../../shared/transport';
import type { Run } from './operation';
import { runPipeline } from './pipeline';
import { readDryRun } from '../helpers/dryRunOption';
import { readRepeatProtectionHours } from '../helpers/repeatProtectionOption';
import { EarlierTries } from './pipeline/earlierTries';
import { RepeatProtection } from './pipeline/repeatProtection';
import { NotSentError } from './itemErrors';
import { inputError } from './pipeline/outcome';
import { operations } from './resources';

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
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	let settings;
	let guardrails: Guardrails | undefined;
	let repeatProtectionHours = 0;
	try {
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		settings = readRunSettings(options, { batch: operation.kind === 'batch', nodeVersion: this.getNode().typeVersion });
		if (operation.dialledPhones || operation.startsTask) {
			// The saved options, not the resolved ones: no expression may grant an AI Agent more.
			const saved = (this.getNode().parameters.options ?? {}) as IDataObject;
			guardrails = readGuardrails(options, asAgentTool, saved);
		}
		if (operation.creates) repeatProtectionHours = readRepeatProtectionHours(options);
	} catch (error) {
		throw inputError(this, error, 0);
	}
	const client = await createApiClient(this, settings);
	const earlierTries = EarlierTries.of(this, operation);
	const run: Run = { context: this, items, client, settings, parameter: perRunParameters(this), groupTasks: earlierTries.groupTasks };
	// A tool gives one answer per item, like Continue On Fail.
	const continueOnFail = asAgentTool || this.continueOnFail();
	// The saved options, not the resolved ones: Dry Run is never the result of an expression.
	const dryRun = readDryRun(this.getNode().parameters.options as IDataObject | undefined);
	const repeatProtection = dryRun ? undefined : RepeatProtection.of(this, operation, repeatProtectionHours);
	return [await runPipeline(run, operation, { continueOnFail, asAgentTool, guardrails, earlierTries, repeatProtection, dryRun })];
}
