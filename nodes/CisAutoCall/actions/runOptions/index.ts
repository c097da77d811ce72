import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	agentMayStartTaskOption,
	agentSeveralNumbersOption,
	allowedNumbersOption,
	allowShortNumbersOption,
	type Guardrails,
	maxCallsPerRunOption,
	readGuardrails,
} from '../../guardrails';
import type { Operation } from '../operation';
import { dryRunOption, readDryRun } from './dryRun';
import { readRepeatProtectionHours, repeatProtectionOption } from './repeatProtection';
import { readRunSettings, type RunSettings, sendingOptions } from './sending';

export { type RunSettings } from './sending';

/**
 * A run's options in one place: the "Options" collection each operation shows, and what one run
 * reads from it. Values come from the resolved options; the switches that guard people and cost
 * (Dry Run, the guardrails an AI Agent could widen) only from the saved ones, never from an expression.
 */

/**
 * The "Options" collection of an operation: first, for the operations that start calls
 * (`startsCalls`), the guardrails; for those that may start a task (`startsTask`), whether an AI
 * Agent may do so; then Dry Run, Repeat Protection for the operations that create, and how
 * requests are sent.
 */
export function runOptionsField({
	creates,
	batch,
	startsCalls = false,
	startsTask = false,
}: {
	creates: boolean;
	batch: boolean;
	startsCalls?: boolean;
	startsTask?: boolean;
}): INodeProperties {
	const options: INodeProperties[] = [
		...(startsCalls ? [allowedNumbersOption, maxCallsPerRunOption, agentSeveralNumbersOption, allowShortNumbersOption] : []),
		...(startsTask ? [agentMayStartTaskOption] : []),
		...(creates || startsCalls || startsTask ? [dryRunOption] : []),
		...(creates ? [repeatProtectionOption] : []),
		...sendingOptions({ creates, batch }),
	];
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** What one run of the node does, as its options say. */
export interface RunOptions {
	settings: RunSettings;
	/** Allowed Numbers, Max Calls per Run and the AI Agent rules, for operations that dial or start a task. */
	guardrails?: Guardrails;
	/** Repeat Protection; 0: off (and for operations that create nothing). */
	repeatProtectionHours: number;
	/** Dry Run: check and show what would be sent; send nothing. */
	dryRun: boolean;
}

/** Reads the options of a run (throws InputError on a bad value, naming the option). */
export function readRunOptions(context: IExecuteFunctions, operation: Operation, asAgentTool: boolean): RunOptions {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const saved = (context.getNode().parameters.options ?? {}) as IDataObject;
	const settings = readRunSettings(options, { batch: operation.kind === 'batch', nodeVersion: context.getNode().typeVersion });
	const guardrails = operation.dialledPhones || operation.startsTask ? readGuardrails(options, asAgentTool, saved) : undefined;
	return {
		settings,
		guardrails,
		repeatProtectionHours: operation.creates ? readRepeatProtectionHours(options) : 0,
		dryRun: readDryRun(saved),
	};
}
