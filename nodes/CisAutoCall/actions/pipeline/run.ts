import type { IDataObject, IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { perRunParameters } from '../../helpers/perRunParameters';
import { createApiClient } from '../../../shared/transport';
import type { Operation, Run } from '../operation';
import { readRunFeatures } from '../runFeatures';
import { traitsOf } from '../runFeatures/feature';
import { phoneReaderOf } from '../phones';
import type { ReadItemParameter } from '../../../shared/parameterReaders';
import type { ReadItemPhones, SkippedNumber } from '../../../shared/phones';
import type { Step } from '../runFeatures/feature';
import { readRunSettings } from '../sending';
import { EarlierTries } from './earlierTries';
import { inputError } from './outcome';

/**
 * The one run object, read once per run: what every operation gets (Run), and what the pipeline
 * walks with.
 */
export interface PipelineRun extends Run {
	/** Bad items and failures become error items (or, for an AI Agent, short texts) instead of stopping the run. */
	continueOnFail: boolean;
	asAgentTool: boolean;
	/** False when a step shows what the run would send instead of sending it. */
	sends: boolean;
	/** The steps of this run, in order: the memory of earlier tries, then the run features' steps. */
	steps: Step[];
	/** As an AI Agent's tool: the builder's notice of a refusal whose fix is theirs (set by the pipeline's output). */
	builderNotice?: NodeExecutionHint;
	/** The entries left out of each item's phone list (junk a CRM keeps), for the item's output. */
	skippedNumbers: Map<number, SkippedNumber[]>;
}

/**
 * Reads a run: its Options (how requests are sent, then each run feature, in the list's order;
 * a bad value throws before anything else, naming the option and item 0), the client, the
 * parameters and the memory of earlier tries.
 */
export async function readRun(
	context: IExecuteFunctions,
	operation: Operation,
	asAgentTool: boolean,
): Promise<PipelineRun> {
	let settings;
	let featureSteps: Step[];
	let readPhones: ReadItemPhones;
	let parameter: ReadItemParameter;
	const skippedNumbers = new Map<number, SkippedNumber[]>();
	try {
		const options = context.getNodeParameter('options', 0, {}) as IDataObject;
		const saved = (context.getNode().parameters.options ?? {}) as IDataObject;
		settings = readRunSettings(options, {
			batch: operation.kind === 'batch',
			nodeVersion: context.getNode().typeVersion,
		});
		featureSteps = readRunFeatures({ context, operation, asAgentTool, options, saved });
		parameter = perRunParameters(context);
		readPhones = phoneReaderOf(traitsOf(operation), parameter, saved, skippedNumbers);
	} catch (error) {
		throw inputError(context, error, 0);
	}
	const client = await createApiClient(context, settings);
	const earlierTries = EarlierTries.of(context, operation);
	return {
		context,
		items: context.getInputData(),
		client,
		settings,
		parameter,
		groupTasks: earlierTries.groupTasks,
		readPhones,
		// A tool gives one answer per item, like Continue On Fail.
		continueOnFail: asAgentTool || context.continueOnFail(),
		asAgentTool,
		sends: !featureSteps.some((step) => step.sendsNothing),
		steps: [earlierTries, ...featureSteps],
		skippedNumbers,
	};
}
