import type { INodeExecutionData } from 'n8n-workflow';

import type { Operation } from '../operation';
import { Outcomes } from './outcome';
import { agentBuilderNotice } from '../agent';
import { addSkippedNumbers, agentOutput, normalOutput, summarizeFailure } from './output';
import { prepareAll } from './prepare';
import type { PipelineRun } from './run';
import { sendAll } from './send';
import { maskUrlSecrets } from '../../../shared/urlSecrets';

export { readRun, type PipelineRun } from './run';

/**
 * The one place that walks the items, step by step. The run's steps (run.steps: the memory of
 * earlier tries, then the run features in the order of runFeatures/index.ts) each act at their
 * places. Returns one output per item (or an error item) with pairedItem; as an AI Agent's tool,
 * every item gives the model's short text instead, and nothing is thrown.
 */
export async function runPipeline(
	run: PipelineRun,
	operation: Operation,
): Promise<INodeExecutionData[]> {
	const { steps } = run;
	const outcomes = new Outcomes(run.context, run.items.length, run.continueOnFail);
	// Every output names the entries left out of an item's phone list; tasks echo their webhook
	// URLs, whose `secret=` is masked in whatever the node outputs.
	const finished = (output: INodeExecutionData[]) =>
		maskUrlSecrets(addSkippedNumbers(output, run.skippedNumbers));

	// 1. Every item is read and checked before any request (no request is sent while any input is
	// bad, unless Continue On Fail turns bad items into error items).
	const prepared = prepareAll(run, operation, outcomes);

	// 2. A run that sends nothing: each item is checked as a real run checks it, and shows what it
	// would send; nothing is sent, booked or recorded.
	if (!run.sends) {
		for (const step of steps) step.check?.(operation, prepared, outcomes);
		for (const step of steps) step.show?.(operation, prepared, outcomes);
		return finished(normalOutput(outcomes.all));
	}

	// 3. What an earlier try of this node run, or an earlier execution, already sent is left out.
	for (const step of steps) await step.leaveOut?.(prepared, outcomes);

	try {
		// 4. The last word before sending (the guardrails), then 5. sending, with the run's concurrency.
		for (const step of steps) await step.beforeSending?.(run, operation, prepared, outcomes);
		await sendAll(run, operation, prepared, outcomes);
	} finally {
		// 6. Also when a step refuses the run: what was not sent leaves the records.
		for (const step of steps) await step.settle?.(outcomes);
	}
	for (const step of steps) step.afterSending?.(outcomes);

	// 7. The output.
	if (run.asAgentTool) {
		const errors = outcomes.all.flatMap((outcome) =>
			outcome && !outcome.ok ? [outcome.error] : [],
		);
		run.builderNotice = agentBuilderNotice(errors, run.items.length);
		return finished(agentOutput(operation, outcomes.all));
	}
	const failed = outcomes.firstFailed();
	if (failed !== -1 && !run.continueOnFail)
		throw summarizeFailure(run.context, outcomes.all, failed);
	return finished(normalOutput(outcomes.all));
}
