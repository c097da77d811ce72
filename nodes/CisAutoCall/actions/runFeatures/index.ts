import type { INodeProperties } from 'n8n-workflow';

import { dryRun } from './dryRun';
import {
	type OperationTraits,
	type RunFeature,
	type RunSource,
	type Step,
	traitsOf,
} from './feature';
import { guardrails } from './guardrails';
import { repeatProtection } from './repeatProtection';

/**
 * The run features, in order: their options come in this order in the Options collection, are
 * read in this order once per run, and their steps act in this order at each place of the
 * pipeline's walk (pipeline/index.ts).
 */
export const runFeatures: readonly RunFeature[] = [guardrails, dryRun, repeatProtection];

/** The run features' options in the Options collection of an operation with these traits. */
export function runFeatureOptions(traits: OperationTraits): INodeProperties[] {
	return runFeatures.flatMap((feature) => feature.options(traits));
}

/**
 * The steps of one run, in the list's order (throws InputError naming a bad option). A feature is
 * read only for an operation that shows its options: an option is shown exactly where its step applies.
 */
export function readRunFeatures(
	source: RunSource,
	features: readonly RunFeature[] = runFeatures,
): Step[] {
	const traits = traitsOf(source.operation);
	return features
		.filter((feature) => feature.options(traits).length > 0)
		.map((feature) => feature.read(source))
		.filter((step): step is Step => step !== undefined);
}
