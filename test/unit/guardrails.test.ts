// The pure parts of the guardrails (Allowed Numbers, the call ledger behind Max Calls per
// Run, what an AI Agent reads back). The engine tests in test/rules/agentTool.test.ts run them in
// the node as n8n runs a tool.
import type { INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import {
	agentFailure,
	agentSuccess,
	DEFAULT_AGENT_MAX_CALLS,
} from '../../nodes/CisAutoCall/actions/agent';
import { NotSentError } from '../../nodes/CisAutoCall/actions/itemErrors';
import { operations } from '../../nodes/CisAutoCall/actions/resources';
import { traitsOf } from '../../nodes/CisAutoCall/actions/runFeatures/feature';
import {
	CallLedger,
	capRefusal,
	checkAllowedNumbers,
	firstDisallowed,
	parseAllowedNumbers,
	readGuardrails,
} from '../../nodes/CisAutoCall/actions/runFeatures/guardrails';
import { ExpiringMap } from '../../nodes/shared/expiringMap';
import { PROCESS_MEMORIES } from '../../nodes/shared/processMemory';
import { InputError } from '../../nodes/shared/validation';

const CALLS_STARTED = PROCESS_MEMORIES.callsStartedPerExecution;

const node = {
	id: 'n',
	name: 'CIS Auto-Call',
	type: 'n8n-nodes-cis-autocall.cisAutoCallTool',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

describe('Allowed Numbers', () => {
	test('rules are compared on digits: formatting and + are ignored', () => {
		const rules = parseAllowedNumbers('7900, +7 (495); 7 812-\n');
		expect(rules.map((rule) => rule.pattern)).toEqual(['7900', '7495', '7812']);
		expect(firstDisallowed(['79001234567', '74951234567', '78121234567'], rules)).toBeUndefined();
		expect(firstDisallowed(['79001234567', '79011234567'], rules)).toBe('79011234567');
	});

	test('a rule is a prefix; X is any one digit; a rule ending in X fixes the length', () => {
		const prefix = parseAllowedNumbers('79X0');
		expect(firstDisallowed(['79501234567'], prefix)).toBeUndefined();
		expect(firstDisallowed(['79511234567'], prefix)).toBe('79511234567');
		const whole = parseAllowedNumbers('+7 (495) XXX-XX-XX');
		expect(whole[0]).toMatchObject({ pattern: '7495XXXXXXX', wholeNumber: true });
		expect(firstDisallowed(['74951234567'], whole)).toBeUndefined();
		expect(firstDisallowed(['749512345678'], whole)).toBe('749512345678');
		expect(firstDisallowed(['7495123456'], whole)).toBe('7495123456');
	});

	test('no rules: every number is allowed', () => {
		expect(parseAllowedNumbers('')).toEqual([]);
		expect(parseAllowedNumbers(undefined)).toEqual([]);
		expect(firstDisallowed(['1'], [])).toBeUndefined();
	});

	test('a bad rule is a named input error, before anything is sent', () => {
		expect(() => parseAllowedNumbers('7900, seven')).toThrow(InputError);
		expect(() => parseAllowedNumbers('7900, seven')).toThrow(
			'Invalid allowedNumbers: "seven" is not a number prefix or pattern',
		);
		// A rule that begins with a wildcard would open every number.
		expect(() => parseAllowedNumbers('XXX')).toThrow(
			'Invalid allowedNumbers: "XXX" does not begin with a digit',
		);
		expect(() => parseAllowedNumbers({ a: 1 })).toThrow(
			'Invalid allowedNumbers: {"a":1} is not a text',
		);
	});

	test('the refusal names the number and the rules', () => {
		const rules = parseAllowedNumbers('7495, +7 (812)');
		expect(() => checkAllowedNumbers(['74950000001', '79990000001'], rules)).toThrow(
			'Refused: the number 79990000001 is not in Allowed Numbers ("7495", "+7 (812)"), so it was not called',
		);
		// Handled like bad input: the router adds the item, nothing is sent.
		expect(() => checkAllowedNumbers(['79990000001'], rules)).toThrow(InputError);
		expect(() => checkAllowedNumbers(['74950000001'], rules)).not.toThrow();
	});
});

describe('Max Calls per Run', () => {
	test('not set: no limit in a plain run, the small default as an agent tool', () => {
		expect(readGuardrails({}, false).maxCalls).toBeUndefined();
		expect(readGuardrails({}, true)).toMatchObject({
			maxCalls: DEFAULT_AGENT_MAX_CALLS,
			maxCallsIsDefault: true,
		});
		expect(readGuardrails({ maxCallsPerRun: 7 }, true)).toMatchObject({
			maxCalls: 7,
			maxCallsIsDefault: false,
		});
		expect(readGuardrails({ maxCallsPerRun: 7 }, false)).toMatchObject({ maxCalls: 7 });
	});

	test("an AI Agent's permissions count only when saved as true, never from a resolved expression", () => {
		expect(readGuardrails({}, true)).toMatchObject({ oneNumberPerCall: true, mayStartTask: false });
		expect(
			readGuardrails({ agentSeveralNumbers: true, agentMayStartTask: true }, true, {
				agentSeveralNumbers: '={{ true }}',
				agentMayStartTask: '={{ 1 }}',
			}),
		).toMatchObject({
			oneNumberPerCall: true,
			mayStartTask: false,
		});
		expect(
			readGuardrails({}, true, { agentSeveralNumbers: true, agentMayStartTask: true }),
		).toMatchObject({ oneNumberPerCall: false, mayStartTask: true });
		expect(readGuardrails({}, false)).toMatchObject({
			oneNumberPerCall: false,
			mayStartTask: true,
		});
	});

	test('the limits across runs count only as saved: off (0) when not saved, an expression refused naming the option', () => {
		expect(readGuardrails({ maxCallsPerDay: 5, callAgainAfterHours: 2 }, true)).toMatchObject({
			maxCallsPerDay: 0,
			callAgainAfterHours: 0,
		});
		expect(readGuardrails({}, true, { maxCallsPerDay: 3, callAgainAfterHours: 24 })).toMatchObject({
			maxCallsPerDay: 3,
			callAgainAfterHours: 24,
		});
		expect(() =>
			readGuardrails({ maxCallsPerDay: 1000 }, true, { maxCallsPerDay: "={{ $fromAI('limit') }}" }),
		).toThrow(/maxCallsPerDay/);
		expect(() => readGuardrails({}, false, { maxCallsPerDay: 1001 })).toThrow(/maxCallsPerDay/);
		expect(() => readGuardrails({}, false, { callAgainAfterHours: -1 })).toThrow(
			/callAgainAfterHours/,
		);
	});

	test('a value that is not a whole number of at least 1 is a named input error', () => {
		expect(() => readGuardrails({ maxCallsPerRun: 0 }, false)).toThrow(
			'Invalid maxCallsPerRun: 0 is below 1',
		);
		expect(() => readGuardrails({ maxCallsPerRun: 2.5 }, false)).toThrow(
			'Invalid maxCallsPerRun: 2.5 is not a whole number',
		);
	});

	test('the ledger books all or none, per key, and gives back what did not start', () => {
		const ledger = new CallLedger(
			new ExpiringMap<number>(CALLS_STARTED.expiresMs, CALLS_STARTED.capacity),
		);
		expect(ledger.book('a', 3, 5)).toBe(true);
		expect(ledger.book('a', 3, 5)).toBe(false);
		expect(ledger.used('a')).toBe(3);
		expect(ledger.book('b', 5, 5)).toBe(true);
		expect(ledger.book('a', 2, 5)).toBe(true);
		expect(ledger.book('a', 1, 5)).toBe(false);
		ledger.release('a', 1);
		expect(ledger.book('a', 1, 5)).toBe(true);
		expect(ledger.book('a', 100, undefined)).toBe(true);
		// Without a key (no execution id) nothing is remembered between runs.
		expect(ledger.book(undefined, 5, 5)).toBe(true);
		expect(ledger.book(undefined, 5, 5)).toBe(true);
	});

	test('the ledger keeps the newest executions only', () => {
		const ledger = new CallLedger(new ExpiringMap<number>(CALLS_STARTED.expiresMs, 2));
		ledger.book('a', 1, 5);
		ledger.book('b', 1, 5);
		ledger.book('c', 1, 5);
		expect([ledger.used('a'), ledger.used('b'), ledger.used('c')]).toEqual([0, 1, 1]);
	});

	test('the refusal says how many calls were allowed and how many already started', () => {
		const off = { maxCallsPerDay: 0, callAgainAfterHours: 0 };
		const plain = {
			asAgentTool: false,
			oneNumberPerCall: false,
			mayStartTask: true,
			allowShortNumbers: false,
			...off,
		};
		const agent = {
			asAgentTool: true,
			oneNumberPerCall: true,
			mayStartTask: false,
			allowShortNumbers: false,
			...off,
		};
		expect(
			capRefusal({ allowedNumbers: [], maxCalls: 5, maxCallsIsDefault: false, ...plain }, 5, 1)
				.message,
		).toBe(
			'Refused: this call would go beyond 5 calls per workflow execution ("Max Calls per Run"); 5 already started, so nothing was sent',
		);
		expect(
			capRefusal({ allowedNumbers: [], maxCalls: 3, maxCallsIsDefault: true, ...agent }, 1, 4)
				.message,
		).toContain(
			'these 4 calls would go beyond 3 calls per agent run (the limit for an AI Agent tool when "Max Calls per Run" is not set), counting all CIS Auto-Call tools of this workflow execution together; 1 already started',
		);
	});
});

describe('what the agent reads back', () => {
	test('a refusal: plain text without the item suffix, with what to do', () => {
		const error = new NotSentError(
			node,
			'Refused: the number 79990000001 is not in Allowed Numbers ("7495"), so it was not called [item 0]',
			{ description: 'Field "phone" of item 0. Nothing was sent to the service.' },
			'refused',
		);
		expect(agentFailure('refused', error)).toEqual({
			outcome: 'refused',
			message:
				'Refused: the number 79990000001 is not in Allowed Numbers ("7495"), so it was not called. This is a limit set for these calls: do not try to get around it (no other numbers, no repeats); tell the user.',
		});
	});

	test('bad input from the agent: what to correct, and never to invent a number', () => {
		const error = new NotSentError(
			node,
			'Invalid phone: "call mom" is not a phone number [item 0]',
			{},
			'input',
		);
		expect(agentFailure('refused', error).message).toBe(
			'Not sent: Invalid phone: "call mom" is not a phone number. Correct the value it names, using only what the user gave you (never invent a phone number), and try again.',
		);
	});

	test('a service error: message and description, no stack, bounded', () => {
		const error = new NodeApiError(
			node,
			{ httpCode: '400' },
			{
				message:
					'The service answered 400 to POST /cis/api/v1/telephony/autoCallCandidate/single: phone is invalid',
				description: 'The service refused the request: phone is invalid',
				httpCode: '400',
			},
		);
		const reply = agentFailure('failed', error);
		expect(reply.message).toBe(
			'Failed: The service answered 400 to POST /cis/api/v1/telephony/autoCallCandidate/single: phone is invalid. The service refused the request: phone is invalid. Correct what the message names and try once more, or tell the user.',
		);
		expect(String(reply.message)).not.toContain('    at ');
		const long = agentFailure('failed', new Error('x'.repeat(5000)));
		expect(String(long.message).length).toBeLessThan(800);
	});

	test('an unknown outcome tells the model not to call again', () => {
		const message =
			'Outcome unknown for POST /cis/api/v1/telephony/autoCallCandidate/single: the request timed out (ETIMEDOUT) after the request was sent';
		const error = new NodeApiError(node, {}, { message });
		error.message = message;
		error.context.statedOutcome = 'unknown';
		const reply = agentFailure('unknown', error);
		expect(agentFailure('unknown', new Error('the connection was dropped')).message).toMatch(
			/^Outcome unknown: the connection was dropped\. Do not repeat it/,
		);
		expect(reply).toEqual({
			outcome: 'unknown',
			message:
				'Outcome unknown for POST /cis/api/v1/telephony/autoCallCandidate/single: the request timed out (ETIMEDOUT) after the request was sent. Do not repeat it: it may have been carried out (a call may have started). Tell the user to check it in the service.',
		});
	});

	test('a success keeps the ids and drops the raw answer; without an id the answer stays', () => {
		expect(
			agentSuccess({
				autoCallCandidateId: 'c-1',
				autoCallId: 't-1',
				phone: ['79990000001'],
				response: { id: { identity: 'c-1' }, big: 'x' },
			}),
		).toEqual({
			outcome: 'done',
			autoCallCandidateId: 'c-1',
			autoCallId: 't-1',
			phone: ['79990000001'],
		});
		expect(
			agentSuccess({ autoCallCandidateId: undefined, unmappedResponse: { odd: true } }),
		).toEqual({
			outcome: 'done',
			autoCallCandidateId: undefined,
			unmappedResponse: { odd: true },
		});
	});

	test('a candidate sent whose id is unknown reads outcome "unknown", never "done"', () => {
		const answer = agentSuccess({
			autoCallId: 't-1',
			phone: ['79990000001'],
			candidateIdUnknown: 'The answer holds 2 entries for the 1 candidates',
			unmappedResponse: [],
		});
		expect(answer).toEqual({
			outcome: 'unknown',
			message: expect.stringMatching(
				/^Sent, but its candidate id is unknown: The answer holds 2 entries for the 1 candidates\. Do not repeat it/,
			),
			autoCallId: 't-1',
			phone: ['79990000001'],
		});
	});
});

describe('in the panel', () => {
	const properties = new CisAutoCall().description.properties;
	const shownFor = (property: INodeProperties) =>
		`${String(property.displayOptions?.show?.resource)}.${String(property.displayOptions?.show?.operation)}`;
	// The operations that dial, read from their declarations (the "… and Wait for Result" ones dial too, and are tools too).
	const declared = Object.entries(operations).flatMap(([resource, ofResource]) =>
		Object.entries(ofResource).map(([name, operation]) => ({
			id: `${resource}.${name}`,
			name,
			traits: traitsOf(operation),
		})),
	);
	const diallingInPanel = declared
		.filter(({ traits }) => traits.dials)
		.map(({ id }) => id)
		.sort();
	const startingTasks = declared.filter(({ traits }) => traits.startsTask).map(({ name }) => name);

	test('the operations that dial are found from their declarations', () => {
		expect(diallingInPanel).toEqual(
			expect.arrayContaining(['candidate.createAndRun', 'candidate.createAndRunAndWait']),
		);
		expect(diallingInPanel).not.toContain('callTask.get');
	});

	test('Allowed Numbers and Max Calls per Run are options of exactly the operations that start calls, not open to expressions', () => {
		const withGuardrails = properties
			.filter((property) => property.name === 'options')
			.filter((property) =>
				(property.options as INodeProperties[]).some((option) => option.name === 'allowedNumbers'),
			);
		expect(withGuardrails.map(shownFor).sort()).toEqual(diallingInPanel);
		for (const collection of withGuardrails) {
			const options = collection.options as INodeProperties[];
			const names = options.map((option) => option.name);
			expect(names).toContain('maxCallsPerRun');
			expect(
				options
					.filter((option) => ['allowedNumbers', 'maxCallsPerRun'].includes(option.name))
					.every((option) => option.noDataExpression),
			).toBe(true);
		}
	});

	test('the tool variant (and only it) shows that a default cap applies', () => {
		const notices = properties.filter((property) => property.name === 'agentToolNotice');
		expect(notices.map(shownFor).sort()).toEqual(diallingInPanel);
		for (const notice of notices) {
			expect(notice.displayOptions?.show?.['@tool']).toEqual([true]);
			expect(notice.displayName).toContain(
				`at most ${DEFAULT_AGENT_MAX_CALLS} numbers per agent run, counted over all CIS Auto-Call tools of the agent together`,
			);
		}
	});

	test('the permissions of an AI Agent are options no expression can set, on the operations that need them', () => {
		const optionNames = (operation: string) =>
			(properties.find(
				(property) =>
					property.name === 'options' &&
					property.displayOptions?.show?.operation?.includes(operation),
			)?.options ?? []) as INodeProperties[];
		for (const operation of diallingInPanel.map((id) => id.split('.')[1])) {
			const several = optionNames(operation).find(
				(option) => option.name === 'agentSeveralNumbers',
			);
			expect(several).toMatchObject({ type: 'boolean', default: false, noDataExpression: true });
		}
		expect(startingTasks).toEqual(expect.arrayContaining(['addToTask', 'start']));
		for (const operation of startingTasks) {
			const start = optionNames(operation).find((option) => option.name === 'agentMayStartTask');
			expect(start).toMatchObject({ type: 'boolean', default: false, noDataExpression: true });
		}
		expect(
			properties.filter((property) => property.name === 'agentStartNotice').map(shownFor),
		).toEqual(['callTask.start']);
	});
});
