import type { IDataObject, INodeProperties } from 'n8n-workflow';

/**
 * Dry Run: the operations that create or start calls can check every item and show what would be
 * sent, with nothing sent and nothing counted, so mappings are tried before the first paid call.
 */
export const dryRunOption: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	// A run that calls nobody must never turn into one that calls people through an expression.
	noDataExpression: true,
	default: false,
	// Also on the AI Agent tool: an agent can be tried out without calling anyone (the model reads
	// that nothing was sent).
	description: 'Whether to check the items and show what would be sent, without calling anyone',
	hint: 'Each item gives the request it would send; nothing reaches the service.',
};

/** Only a saved `true` counts: Dry Run is a switch, never the result of an expression. */
export function readDryRun(savedOptions: IDataObject | undefined): boolean {
	return savedOptions?.dryRun === true;
}
