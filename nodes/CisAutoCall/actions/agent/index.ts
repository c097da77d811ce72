/**
 * AI-agent mode: whether n8n runs the node as an AI Agent's tool, decided once (detection.ts), what
 * the model reads back for each item (replies.ts), "… and Wait for Result" as a tool (waiting.ts,
 * used by the wait's two ends, waiting/start.ts and waiting/resume.ts), and the agent's options and
 * notices (options.ts). The limits a user sets for an agent are a run feature (runFeatures/guardrails/),
 * which shows the agent's options next to its own.
 */
export { type AgentMode, agentModeOf } from './detection';
export {
	agentBuilderNotice,
	agentFailure,
	agentNotDoneHint,
	agentSuccess,
	CANDIDATE_ID_UNKNOWN,
	failureKindOf,
} from './replies';
export { agentWaitResult, limitInWords, prepareAgentWait, refuseAgentWait } from './waiting';
export {
	agentMayStartTaskOption,
	agentSeveralNumbersOption,
	agentStartNotice,
	agentToolNotice,
	DEFAULT_AGENT_MAX_CALLS,
} from './options';
