import type { INodeProperties } from 'n8n-workflow';

import { dryRun } from './dryRun';
import type { OptionsShape, RunFeature, RunSource, Step } from './feature';
import { guardrails } from './guardrails';
import { repeatProtection } from './repeatProtection';
import { sendingOptions } from './sending';

/**
 * The run features, in order: their options come in this order in the Options collection, are
 * read in this order once per run, and their steps act in this order at each place of the
 * pipeline's walk (pipeline/index.ts). Adding a run option: one folder and one line in the list.
 */
export const runFeatures: readonly RunFeature[] = [
	guardrails,
	dryRun,
	repeatProtection,
];

/**
 * The "Options" collection of an operation: the run features' options for an operation of its
 * shape, then how requests are sent (sending.ts).
 */
export function runOptionsField(shape: OptionsShape): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...runFeatures.flatMap((feature) => feature.options(shape)), ...sendingOptions(shape)],
	};
}

/** The steps of one run, in the list's order (throws InputError naming a bad option). */
export function readRunFeatures(source: RunSource): Step[] {
	return runFeatures.map((feature) => feature.read(source)).filter((step): step is Step => step !== undefined);
}
