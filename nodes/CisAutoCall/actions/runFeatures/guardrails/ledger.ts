import type { IExecuteFunctions } from 'n8n-workflow';

import type { ExpiringMap } from '../../../../shared/expiringMap';
import { processMemory } from '../../../../shared/processMemory';
import { Refusal } from '../../../../shared/validation';
import type { Guardrails } from './numbers';

/**
 * Calls (numbers) started per workflow execution and node, or for an AI Agent's tools per execution
 * (ledgerKeyOf), so that Max Calls per Run holds over every run in one execution: an agent calls its
 * tools once per tool call, a loop runs the node once per pass. An execution runs in one process (in
 * queue mode, on one worker), so process memory holds it (`callsStartedPerExecution`: its cap and
 * expiry are the declaration's).
 */
export class CallLedger {
	constructor(private readonly started: ExpiringMap<number>) {}

	used(key: string | undefined): number {
		return key === undefined ? 0 : (this.started.get(key) ?? 0);
	}

	/** Books `count` calls if they fit under `max` (all or none); returns whether they were booked. */
	book(key: string | undefined, count: number, max: number | undefined): boolean {
		const used = this.used(key);
		if (max !== undefined && used + count > max) return false;
		if (key !== undefined && count > 0) {
			this.started.set(key, used + count);
		}
		return true;
	}

	/** Gives back calls that were booked but proved not to have started (the service refused them). */
	release(key: string | undefined, count: number): void {
		if (key === undefined || count <= 0) return;
		const left = Math.max(0, this.used(key) - count);
		if (left === 0) this.started.delete(key);
		else this.started.set(key, left);
	}
}

export const callLedger = new CallLedger(processMemory('callsStartedPerExecution'));

/**
 * The count a run books against: an AI Agent's tools share one per workflow execution (n8n runs
 * every tool call of an agent, whichever tool node, in the agent's execution and gives it that
 * execution's id; a sub-workflow runs as an execution of its own, so it starts a count of its own);
 * otherwise one per execution and node. Undefined when n8n gives no execution id (then each run
 * counts alone).
 */
export function ledgerKeyOf(context: IExecuteFunctions, asAgentTool: boolean): string | undefined {
	const executionId = context.getExecutionId();
	if (!executionId) return undefined;
	const workflowId = context.getWorkflow().id ?? '';
	return JSON.stringify(
		asAgentTool
			? [workflowId, executionId, 'agent tools']
			: [workflowId, executionId, context.getNode().name],
	);
}

/** Refuses the calls of a run that would go beyond Max Calls per Run. */
export function capRefusal(guardrails: Guardrails, used: number, count: number): Refusal {
	const max = guardrails.maxCalls as number;
	const setting = guardrails.maxCallsIsDefault
		? 'the limit for an AI Agent tool when "Max Calls per Run" is not set'
		: '"Max Calls per Run"';
	const calls = count === 1 ? 'this call' : `these ${count} calls`;
	const scope = guardrails.asAgentTool ? 'per agent run' : 'per workflow execution';
	const shared = guardrails.asAgentTool
		? ', counting all CIS Auto-Call tools of this workflow execution together'
		: '';
	return new Refusal(
		'maxCallsPerRun',
		max,
		`${calls} would go beyond ${max} ${max === 1 ? 'call' : 'calls'} ${scope} (${setting})${shared}; ${used} already started, so nothing was sent`,
		'limit',
		// a workflow's error names the setting already; an AI Agent's builder reads the fix in the notice
		guardrails.asAgentTool
			? { builderFix: 'raise "Max Calls per Run" in Options to allow more' }
			: {},
	);
}
