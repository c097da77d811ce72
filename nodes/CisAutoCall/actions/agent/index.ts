/**
 * AI-agent mode: whether n8n runs the node as an AI Agent's tool (detection.ts), and what the model
 * reads back for each item (replies.ts). The limits a user sets for an agent are a run feature
 * (runFeatures/guardrails/).
 */
export { runsAsAgentTool } from './detection';
export { agentFailure, type AgentFailureKind, agentSuccess, CANDIDATE_ID_UNKNOWN, failureKindOf } from './replies';
