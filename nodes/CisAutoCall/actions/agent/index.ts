/**
 * AI-agent mode: whether n8n runs the node as an AI Agent's tool (detection.ts), what the model
 * reads back for each item (replies.ts), and "… and Wait for Result" as a tool (waiting.ts, used by
 * the wait's two ends, waiting/start.ts and waiting/resume.ts). The limits a user sets for an agent are a run feature
 * (runFeatures/guardrails/).
 */
export { runsAsAgentTool } from './detection';
export { agentFailure, type AgentFailureKind, agentSuccess, CANDIDATE_ID_UNKNOWN, failureKindOf } from './replies';
export { agentWaitResult, type AgentWaitSetting, limitInWords, prepareAgentWait, refuseAgentWait } from './waiting';
