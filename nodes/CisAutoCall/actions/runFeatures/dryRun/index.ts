import type { RunFeature } from '../feature';
import { dryRunOption, readDryRun } from './option';
import { dryRunStep } from './step';

/**
 * Dry Run: its option (operations that create or start calls) and its step (check every item, show
 * what it would send, send nothing).
 */
export const dryRun: RunFeature = {
	options: ({ creates, dials, startsTask }) =>
		creates || dials || startsTask ? [dryRunOption] : [],
	read: ({ saved }) => (readDryRun(saved) ? dryRunStep : undefined),
};
