import type { RunFeature } from '../feature';
import { readGuardrails } from './numbers';
import { agentMayStartTaskOption, agentSeveralNumbersOption } from '../../agent';
import {
	allowedNumbersOption,
	allowShortNumbersOption,
	callAgainAfterHoursOption,
	maxCallsPerDayOption,
	maxCallsPerRunOption,
} from './options';
import { GuardrailsStep } from './step';

/**
 * The guardrails, for the operations that start calls: which numbers may be called, and how many
 * calls one workflow execution may start. They matter most when an AI Agent drives the node as a
 * tool, where a model chooses the numbers; and the limits across runs (calls per day, a number called
 * again), counted in n8n's database. Each part in its own file: the editor options, the
 * settings parser and number rules, the process-wide call ledger and the step.
 */
export const guardrails: RunFeature = {
	options: ({ dials, startsTask }) => [
		...(dials
			? [
					allowedNumbersOption,
					maxCallsPerRunOption,
					maxCallsPerDayOption,
					callAgainAfterHoursOption,
					agentSeveralNumbersOption,
					allowShortNumbersOption,
				]
			: []),
		...(startsTask ? [agentMayStartTaskOption] : []),
	],
	read: ({ context, asAgentTool, options, saved }) =>
		GuardrailsStep.of(context, readGuardrails(options, asAgentTool, saved)),
};

export { CallLedger, capRefusal } from './ledger';
export {
	checkAllowedNumbers,
	emergencyNumberIn,
	firstDisallowed,
	parseAllowedNumbers,
	readGuardrails,
	undiallable,
} from './numbers';
export { Refusal } from '../../../../shared/validation';
