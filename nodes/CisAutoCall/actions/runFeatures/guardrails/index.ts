import type { RunFeature } from '../feature';
import { readGuardrails } from './numbers';
import {
	agentMayStartTaskOption,
	agentSeveralNumbersOption,
	allowedNumbersOption,
	allowShortNumbersOption,
	maxCallsPerRunOption,
} from './options';
import { GuardrailsStep } from './step';

/**
 * The guardrails' room, for the operations that start calls: which numbers may be called, and how
 * many calls one workflow execution may start. They matter most when an AI Agent drives the node
 * as a tool, where a model chooses the numbers. Each part in its own file: the editor options, the
 * settings parser and number rules, the process-wide call ledger, the step, and the texts an AI
 * Agent reads back (also used by the router and the pipeline's output, through this index).
 */
export const guardrails: RunFeature = {
	options: ({ startsCalls = false, startsTask = false }) => [
		...(startsCalls ? [allowedNumbersOption, maxCallsPerRunOption, agentSeveralNumbersOption, allowShortNumbersOption] : []),
		...(startsTask ? [agentMayStartTaskOption] : []),
	],
	read: ({ operation, asAgentTool, options, saved }) =>
		operation.dialledPhones || operation.startsTask ? new GuardrailsStep(readGuardrails(options, asAgentTool, saved)) : undefined,
};

export * from './agentTexts';
export * from './ledger';
export * from './numberLengths';
export * from './numbers';
export * from './options';
