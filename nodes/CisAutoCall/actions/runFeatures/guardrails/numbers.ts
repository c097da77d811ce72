import type { IDataObject } from 'n8n-workflow';

import {
	ASK_FOR_WHOLE_NUMBER,
	describeValue,
	InputError,
	Refusal,
	requireInteger,
} from '../../../../shared/validation';
import { MIN_PERSON_PHONE_DIGITS } from '../../../../shared/phones';
import { DEFAULT_AGENT_MAX_CALLS } from '../../agent';
import { MAX_CALL_AGAIN_HOURS, MAX_CALLS_PER_DAY } from './options';

// Reading the guardrail settings: Allowed Numbers parsed into rules, Max Calls per Run, and the
// refusal both raise.

/** One rule of Allowed Numbers: digits, and X for any one digit. */
export interface NumberRule {
	/** As the user wrote it, for messages. */
	text: string;
	pattern: string;
	/** A rule that ends in X describes whole numbers of its length; otherwise it is a prefix. */
	wholeNumber: boolean;
}

export interface Guardrails {
	allowedNumbers: NumberRule[];
	/** Undefined: no limit. */
	maxCalls?: number;
	/** Whether maxCalls is the agent default rather than the user's setting. */
	maxCallsIsDefault: boolean;
	/** An AI Agent's tool: the count is shared by all tools of the agent run, and the two rules below apply. */
	asAgentTool: boolean;
	/** A candidate may carry one number only (an AI Agent's tool, unless the user allowed several). */
	oneNumberPerCall: boolean;
	/** Whether an item may start a call task (always, except for an AI Agent's tool the user did not allow). */
	mayStartTask: boolean;
	/** Whether numbers shorter than a person's phone (internal lines) may be called; emergency numbers never. */
	allowShortNumbers: boolean;
	/** Max Calls per Day, as saved (0: off): numbers this node dials in any 24 hours, over all its runs. */
	maxCallsPerDay: number;
	/** Call a Number Again After (Hours), as saved (0: off). */
	callAgainAfterHours: number;
}

/**
 * `options` as n8n resolved them, `saved` as stored in the workflow: the two permissions of an AI
 * Agent's tool count only when saved as `true`, so that no expression (and no `$fromAI()`) can
 * turn them on.
 */
export function readGuardrails(
	options: IDataObject,
	asAgentTool: boolean,
	saved: IDataObject = {},
): Guardrails {
	for (const name of ['allowedNumbers', 'maxCallsPerRun']) refuseModelValue(name, saved[name]);
	const allowedNumbers = parseAllowedNumbers(options.allowedNumbers);
	const limits = readLimitsAsSaved(saved);
	const setting = options.maxCallsPerRun;
	const unset = setting === undefined || setting === null || setting === '';
	// An AI Agent's tool unset gets the agent's default cap; a workflow's node unset has none.
	const maxCallsIsDefault = unset && asAgentTool;
	const maxCalls = !unset
		? requireInteger('maxCallsPerRun', setting, { min: 1 })
		: maxCallsIsDefault
			? DEFAULT_AGENT_MAX_CALLS
			: undefined;
	return {
		allowedNumbers,
		maxCalls,
		maxCallsIsDefault,
		asAgentTool,
		oneNumberPerCall: asAgentTool && saved.agentSeveralNumbers !== true,
		mayStartTask: !asAgentTool || saved.agentMayStartTask === true,
		allowShortNumbers: saved.allowShortNumbers === true,
		...limits,
	};
}

/**
 * A guardrail the model may not set: a saved value that asks the model (`$fromAI()`) is refused naming
 * the option; a builder's own expression ({{ $vars.allowed }}) is read as n8n resolved it.
 */
function refuseModelValue(name: string, saved: unknown): void {
	if (typeof saved === 'string' && /\$fromAI\s*\(/i.test(saved)) {
		throw new InputError(
			name,
			saved,
			'asks the model ($fromAI()): this option must be set in the workflow, not by the model',
		);
	}
}

/**
 * The limits across runs, as saved in the workflow: an expression (or a model's `$fromAI()`) is
 * never evaluated for them, and is refused naming the option.
 */
function readLimitsAsSaved(
	saved: IDataObject,
): Pick<Guardrails, 'maxCallsPerDay' | 'callAgainAfterHours'> {
	const read = (name: string, max: number) => {
		const value = saved[name];
		return value === undefined || value === null || value === ''
			? 0
			: requireInteger(name, value, { min: 0, max });
	};
	return {
		maxCallsPerDay: read('maxCallsPerDay', MAX_CALLS_PER_DAY),
		callAgainAfterHours: read('callAgainAfterHours', MAX_CALL_AGAIN_HOURS),
	};
}

export function parseAllowedNumbers(value: unknown): NumberRule[] {
	if (value === undefined || value === null) return [];
	if (typeof value !== 'string') {
		throw new InputError(
			'allowedNumbers',
			value,
			'is not a text; enter number prefixes separated by commas, e.g. 7900, +7 (495)',
		);
	}
	return value
		.split(/[,;\n]+/)
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.map((text) => {
			if (!/^\+?[0-9Xx()\-. ]+$/.test(text)) {
				throw new InputError(
					'allowedNumbers',
					text,
					'is not a number prefix or pattern; use digits, and X for any one digit, e.g. 7900 or +7 (495) XXX-XX-XX',
				);
			}
			const pattern = text.replace(/[^0-9Xx]/g, '').toUpperCase();
			if (!/^[0-9]/.test(pattern)) {
				throw new InputError(
					'allowedNumbers',
					text,
					'does not begin with a digit, so it would allow any number',
				);
			}
			return { text, pattern, wholeNumber: pattern.endsWith('X') };
		});
}

function matchesRule(digits: string, rule: NumberRule): boolean {
	if (digits.length < rule.pattern.length) return false;
	if (rule.wholeNumber && digits.length !== rule.pattern.length) return false;
	for (let index = 0; index < rule.pattern.length; index++) {
		const expected = rule.pattern[index];
		if (expected !== 'X' && expected !== digits[index]) return false;
	}
	return true;
}

/** The first number (digits, as toPhones gives them) that no rule allows; none when there are no rules. */
export function firstDisallowed(phones: string[], rules: NumberRule[]): string | undefined {
	if (rules.length === 0) return undefined;
	return phones.find((digits) => !rules.some((rule) => matchesRule(digits, rule)));
}

/** As an AI Agent's tool, refuses a candidate with several numbers unless the user allowed it. */
export function checkOneNumber(phones: string[], guardrails: Guardrails): void {
	if (!guardrails.oneNumberPerCall || phones.length <= 1) return;
	throw new Refusal(
		'phone',
		`${phones.length} numbers`,
		`this call gives ${phones.length} numbers for one person, and an AI Agent may give one number per call, so nothing was called`,
		'limit',
		{
			builderFix: 'turn on "AI Agent May Give Several Numbers per Call" in Options to allow more',
			forModel:
				'Call again with the one number the user meant; if it is unclear which, ask the user.',
		},
	);
}

/** As an AI Agent's tool, refuses starting a call task (it phones everyone in it) unless the user allowed it. */
export function checkTaskStart(startsTask: boolean, guardrails: Guardrails): void {
	if (!startsTask || guardrails.mayStartTask) return;
	throw new Refusal(
		'start',
		true,
		'starting a call task phones everyone already in it, and an AI Agent may not do that here, so nothing was sent',
		'limit',
		{ builderFix: 'turn on "AI Agent May Start the Task" in Options to allow it' },
	);
}

/** Refuses a candidate with a number outside Allowed Numbers. */
export function checkAllowedNumbers(phones: string[], rules: NumberRule[]): void {
	const number = firstDisallowed(phones, rules);
	if (number === undefined) return;
	const allowed = rules.map((rule) => describeValue(rule.text)).join(', ');
	throw new Refusal(
		'phone',
		number,
		`the number ${number} is not in Allowed Numbers (${allowed}), so it was not called`,
	);
}

/**
 * Emergency and service numbers of many countries (112 and 911 are answered almost everywhere).
 * No bot may dial them, whatever the settings: the list is short numbers only, so a person's
 * phone is never caught.
 */
const EMERGENCY_NUMBERS: readonly string[] = Object.freeze([
	'112',
	'911',
	'999',
	'000',
	'110',
	'100',
	'101',
	'102',
	'103',
	'104',
	'108',
	'113',
	'115',
	'117',
	'118',
	'119',
	'120',
	'122',
	'123',
	'190',
	'192',
	'193',
	'997',
	'998',
	'061',
	'062',
	'15',
	'17',
	'18',
]);

/**
 * The emergency number a dialled number reaches, if any: the number itself, or one behind a
 * country or trunk code (+1 911, +44 999, 8 112) or an international prefix (00, 011).
 */
export function emergencyNumberIn(digits: string): string | undefined {
	const national = digits.replace(/^(00|011)/, '');
	for (const candidate of [digits, national]) {
		if (EMERGENCY_NUMBERS.includes(candidate)) return candidate;
		for (let prefix = 1; prefix <= 3; prefix++) {
			const rest = candidate.slice(prefix);
			if (rest.length >= 2 && EMERGENCY_NUMBERS.includes(rest)) return rest;
		}
	}
	return undefined;
}

/**
 * Why no bot may dial a number: an emergency number (always), or a number too short to be a
 * person's phone unless the user allowed short numbers; undefined when it may be dialled. Applies
 * to every version of the node.
 */
export function undiallable(digits: string, allowShortNumbers: boolean): Refusal | undefined {
	const emergency = emergencyNumberIn(digits);
	if (emergency !== undefined) {
		return new Refusal(
			'phone',
			digits,
			`${digits} is an emergency number (${emergency}); no bot may call it, so nothing was called`,
			'badNumber',
			{ inShort: `an emergency number (${emergency}); no bot may call it` },
		);
	}
	if (!allowShortNumbers && digits.length < MIN_PERSON_PHONE_DIGITS) {
		return new Refusal(
			'phone',
			digits,
			`${digits} has ${digits.length} digits, too few for a person's phone (at least ${MIN_PERSON_PHONE_DIGITS}), so nothing was called`,
			'badNumber',
			{
				inShort: `${digits.length} digits, too few for a person's phone (at least ${MIN_PERSON_PHONE_DIGITS})`,
				builderFix: 'to call an internal short number, turn on "Allow Short Numbers" in Options',
				forModel: ASK_FOR_WHOLE_NUMBER,
			},
		);
	}
	return undefined;
}

/** Refuses the first number no bot may dial (the last word before sending, whatever read the numbers). */
export function checkDiallable(phones: string[], allowShortNumbers: boolean): void {
	for (const digits of phones) {
		const refusal = undiallable(digits, allowShortNumbers);
		if (refusal) throw refusal;
	}
}
