/**
 * Guardrails for the operations that start calls: which numbers may be called, and how many calls
 * one workflow execution may start. They matter most when an AI Agent drives the node as a tool,
 * where a model chooses the numbers.
 */

// One entry for the guardrails: editor options, the settings parser, the process-wide call ledger
// and the texts an AI Agent reads back, each in its own file.
export * from './agentTexts';
export * from './ledger';
export * from './numbers';
export * from './options';
