import type { RunFeature } from '../feature';
import { readRepeatProtectionHours, repeatProtectionOption } from './option';
import { RepeatProtection } from './step';

/**
 * Repeat Protection: its option (operations that create), and its step, which records what an
 * execution sends so that n8n's Retry of a failed execution leaves it out.
 */
export const repeatProtection: RunFeature = {
	options: ({ creates }) => (creates ? [repeatProtectionOption] : []),
	read: ({ context, operation, options }) =>
		RepeatProtection.of(context, operation, readRepeatProtectionHours(options)),
};
