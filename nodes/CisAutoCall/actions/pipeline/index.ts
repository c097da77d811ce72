import type { INodeExecutionData } from 'n8n-workflow';

import type { Guardrails } from '../../guardrails';
import type { Operation, Run } from '../operation';
import type { EarlierTries } from './earlierTries';
import { dryRunOutput } from './dryRun';
import { applyGuardrails, releaseUnstarted } from './guard';
import { Outcomes } from './outcome';
import { agentOutput, normalOutput, summarizeFailure } from './output';
import { prepareAll } from './prepare';
import { maskUrlSecrets } from '../../../shared/urlSecrets';
import type { RepeatProtection } from './repeatProtection';
import { sendAll } from './send';

/** How one run goes through the pipeline, as the router read it from the node's settings. */
export interface RunPlan {
	/** Bad items and failures become error items (or, for an AI Agent, short texts) instead of stopping the run. */
	continueOnFail: boolean;
	asAgentTool: boolean;
	/** Allowed Numbers and Max Calls per Run, for operations that dial. */
	guardrails?: Guardrails;
	earlierTries: EarlierTries;
	/** The record of requests sent by earlier executions (n8n's Retry); undefined when off. */
	repeatProtection?: RepeatProtection;
	/** Dry Run: check and show what would be sent; send, book and record nothing. */
	dryRun?: boolean;
}

/**
 * The one place that walks the items: checks every item first (no request is sent while any
 * input is bad, unless Continue On Fail turns bad items into error items), leaves out what an
 * earlier try or an earlier execution already sent, applies the guardrails, then sends with the run's concurrency, and
 * returns one output per item (or an error item) with pairedItem. As an AI Agent's tool, every
 * item gives the model's short text instead, and nothing is thrown.
 */
export async function runPipeline(run: Run, operation: Operation, plan: RunPlan): Promise<INodeExecutionData[]> {
	const { continueOnFail, earlierTries, guardrails, repeatProtection } = plan;
	const outcomes = new Outcomes(run.context, run.items.length, continueOnFail);
	const prepared = prepareAll(run, operation, outcomes);
	if (plan.dryRun) return maskUrlSecrets(dryRunOutput(operation, prepared, outcomes, guardrails));
	earlierTries.skipSentBefore(run.context, prepared, outcomes);
	await repeatProtection?.skipDoneBefore(prepared, outcomes);
	let booking;
	try {
		booking = guardrails ? applyGuardrails(run, operation, guardrails, prepared, outcomes) : undefined;
		await sendAll(run, operation, prepared, outcomes);
	} finally {
		// Also when a guardrail refuses the run: what was not sent leaves the record.
		await repeatProtection?.finish(outcomes);
	}

	const failed = outcomes.firstFailed();
	earlierTries.finish(outcomes, failed !== -1);
	if (booking) releaseUnstarted(booking, outcomes);
	// Tasks echo their webhook URLs, whose `secret=` is masked in whatever the node outputs.
	if (plan.asAgentTool) return maskUrlSecrets(agentOutput(operation, outcomes.all));
	if (failed !== -1 && !continueOnFail) throw summarizeFailure(run.context, outcomes.all, failed);
	return maskUrlSecrets(normalOutput(outcomes.all));
}
