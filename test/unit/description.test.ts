import type { INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';

/**
 * Which parameters n8n shows for given values, computed by n8n-workflow's own
 * getNodeParameters (the function the editor and the engine use to drop hidden parameters).
 */
const description = new CisAutoCall().description;
const node = {
	name: 'CIS Auto-Call',
	type: 'n8n-nodes-cis-autocall.cisAutoCall',
	typeVersion: 1,
	parameters: {},
} as unknown as INode;

function shown(values: INodeParameters): INodeParameters {
	return NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		node,
		description,
	) as INodeParameters;
}

function shownIn(collection: string, values: INodeParameters, inner: INodeParameters): string[] {
	const property = description.properties.find(
		(candidate) =>
			candidate.name === collection &&
			NodeHelpers.displayParameter(values, candidate, node, description),
	) as INodeProperties;
	return (property.options as INodeProperties[])
		.filter((option) => NodeHelpers.displayParameter(inner, option, node, description))
		.map((option) => option.name);
}

const callTask = { resource: 'callTask', operation: 'create' };

test.each([
	['secondExecData', 'secondExec', 'ch', 'end'],
	['cidData', 'cidType', 'gornum', 'default'],
	['cidData', 'cidType', 'pool', 'default'],
	['startMoment', 'startType', 'time', 'manual'],
	['recTrimLeft', 'recordCall', true, false],
	['redialRules', 'redialStrategyEn', true, false],
	['callsPerSecond', 'cpsMode', 'perSecond', 'raw'],
	['secondsBetweenCalls', 'cpsMode', 'everyNSeconds', 'perSecond'],
	['cps', 'cpsMode', 'raw', 'perSecond'],
])('Call Task → Create: %s appears only when %s is %p', (field, condition, on, off) => {
	expect(shown({ ...callTask, [condition]: on })).toHaveProperty(field);
	expect(shown({ ...callTask, [condition]: off })).not.toHaveProperty(field);
});

test.each([
	[['allowCallTimeFrom', 'allowCallTimeTo'], { useTr: true }, { useTr: false }], // older settings (0.1.0)
	[['detectRobotMode'], { detectRobot: true }, { detectRobot: false }],
	[
		['detectRobotGreeting'],
		{ detectRobot: true, detectRobotMode: 'block' },
		{ detectRobot: true, detectRobotMode: 'back' },
	],
	[['normalizationErrorAction'], { phoneNormalization: 'RU' }, { phoneNormalization: 'none' }],
])(
	'Call Task → Create additional fields %p appear only when their condition holds',
	(fields, on, off) => {
		for (const field of fields) {
			expect(shownIn('additionalFields', callTask, on)).toContain(field);
			expect(shownIn('additionalFields', callTask, off)).not.toContain(field);
		}
	},
);

test('redial rule: time and count only when its redial is on', () => {
	const rules = description.properties.find(
		(property) => property.name === 'redialRules',
	) as INodeProperties;
	const busy = (rules.options as Array<{ name: string; values: INodeProperties[] }>).find(
		(option) => option.name === 'busy',
	);
	const visible = (redial: boolean) =>
		busy!.values
			.filter((value) => NodeHelpers.displayParameter({ redial }, value, node, description))
			.map((value) => value.name);
	expect(visible(true)).toEqual(['redial', 'time', 'count']);
	expect(visible(false)).toEqual(['redial']);
});

test('call window: one choice on the panel; its hours and the time-zone notice show when chosen', () => {
	expect(shown({ ...callTask })).toHaveProperty('callWindow', 'anyTime');
	expect(shown({ ...callTask })).not.toHaveProperty('allowCallTimeFrom');
	expect(shown({ ...callTask, callWindow: 'candidateTime' })).toMatchObject({
		allowCallTimeFrom: '09:00',
		allowCallTimeTo: '21:00',
	});
	const notice = description.properties.find(
		(property) => property.name === 'callWindowNotice',
	) as INodeProperties;
	expect(notice.displayName).toMatch(/time zone/);
	expect(
		NodeHelpers.displayParameter(
			{ ...callTask, callWindow: 'candidateTime' },
			notice,
			node,
			description,
		),
	).toBe(true);
	expect(
		NodeHelpers.displayParameter({ ...callTask, callWindow: 'anyTime' }, notice, node, description),
	).toBe(false);
});

test('older call window settings are offered only where a saved workflow has them', () => {
	expect(shownIn('additionalFields', callTask, {})).not.toContain('useTr');
	expect(shownIn('additionalFields', callTask, { useTr: false })).toContain('useTr');
});

test('call limits: one number each, saying what 0 means', () => {
	const additional = description.properties.find(
		(property) =>
			property.name === 'additionalFields' &&
			NodeHelpers.displayParameter(callTask, property, node, description),
	) as INodeProperties;
	for (const name of ['candidateLimit', 'numberLimit']) {
		const limit = (additional.options as INodeProperties[]).find(
			(option) => option.name === name,
		) as INodeProperties;
		expect(limit.type).toBe('number');
		expect(limit.description).toMatch(/0 = no limit/);
	}
});

test('candidate input: defined fields or field names, never both', () => {
	const define = shown({ resource: 'candidate', operation: 'createAndRun', inputMode: 'define' });
	expect(define).toHaveProperty('phone');
	expect(define).not.toHaveProperty('phoneField');
	const byName = shown({
		resource: 'candidate',
		operation: 'createAndRun',
		inputMode: 'fromItems',
	});
	expect(byName).toHaveProperty('phoneField');
	expect(byName).toHaveProperty('callbackDataFields');
	expect(byName).not.toHaveProperty('phone');
	expect(byName).not.toHaveProperty('clientExternalIdField');
	expect(
		shown({ resource: 'candidate', operation: 'createBatch', inputMode: 'fromItems' }),
	).toHaveProperty('clientExternalIdField');
});

test('each operation shows only its own fields', () => {
	expect(Object.keys(shown({ resource: 'call', operation: 'deleteRecording' })).sort()).toEqual(
		['authentication', 'callId', 'irreversibleNotice', 'operation', 'options', 'resource'].sort(),
	);
	expect(shown({ resource: 'call', operation: 'depersonalize' })).toHaveProperty(
		'skipDeleteRecord',
	);
	expect(shown({ resource: 'candidate', operation: 'depersonalize' })).toHaveProperty(
		'autoCallCandidateId',
	);
});

test('no operation offers to repeat creating requests (a repeat could call a person twice)', () => {
	const options = (values: INodeParameters) =>
		shownIn('options', values, {}).filter((name) => name === 'retryUncertainCreates');
	expect(options({ resource: 'candidate', operation: 'createAndRun' })).toEqual([]);
	expect(options({ resource: 'candidate', operation: 'createBatch' })).toEqual([]);
	expect(options({ resource: 'callTask', operation: 'create' })).toEqual([]);
});

test('the operations that call people say to pin data while building; irreversible ones say so', () => {
	for (const operation of ['createAndRun', 'createBatch', 'addToTask', 'addManyToTask']) {
		expect(shown({ resource: 'candidate', operation })).toHaveProperty('dialsNotice');
	}
	expect(shown({ resource: 'callTask', operation: 'getMany' })).not.toHaveProperty('dialsNotice');
	const notices = description.properties.filter(
		(property) => property.name === 'irreversibleNotice',
	);
	expect(notices.length).toBeGreaterThanOrEqual(2);
	for (const notice of notices) expect(notice.displayName).toMatch(/cannot be undone/);
});

test('the canvas subtitle uses the options\' names ("Create and Run: Candidate")', () => {
	expect(description.subtitle).toContain('"Create and Run: Candidate"');
	expect(description.subtitle).toContain('"Delete Recording: Call"');
	expect(description.subtitle).not.toContain('$parameter["operation"] + ');
});

test('usable as an AI tool, with both credentials selectable', () => {
	expect(description.usableAsTool).toBe(true);
	expect(description.credentials?.map((credential) => credential.name)).toEqual([
		'cisAutoCallApi',
		'cisAutoCallLoginApi',
	]);
});

describe('credentials and n8n\'s "Custom API Call"', () => {
	// n8n 2.x adds a "Custom API Call" resource to nodes whose credential type, as n8n lists it,
	// carries `authenticate`; an own property is listed, a class method is not. This node has no
	// such operation, so the option must not appear (the browser test saw it when it did).
	// Untyped on purpose: a class method is not on the spread object's static type.
	/* eslint-disable @typescript-eslint/no-require-imports */
	it.each([
		[
			'cisAutoCallApi',
			() => new (require('../../credentials/CisAutoCallApi.credentials').CisAutoCallApi)(),
		],
		[
			'cisAutoCallLoginApi',
			() =>
				new (require('../../credentials/CisAutoCallLoginApi.credentials').CisAutoCallLoginApi)(),
		],
		/* eslint-enable @typescript-eslint/no-require-imports */
	])('%s sets its header in a class method, not an own property', (_name, make) => {
		const credential = make();
		expect(typeof credential.authenticate).toBe('function');
		expect(Object.prototype.hasOwnProperty.call(credential, 'authenticate')).toBe(false);
		expect({ ...credential }.authenticate).toBeUndefined();
	});
});

describe("descriptions are one short sentence, as n8n's are (the rest is in a hint, a notice or the docs)", () => {
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { sentenceCount, noticeVariants } = require('../lib/noticeLength') as {
		sentenceCount: (text: string) => number;
		noticeVariants: (text: string) => string[];
	};
	const { CisAutoCallTrigger } = require('../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node');
	const { CisAutoCallApi } = require('../../credentials/CisAutoCallApi.credentials');
	const { CisAutoCallLoginApi } = require('../../credentials/CisAutoCallLoginApi.credentials');
	const {
		CisAutoCallWebhookSecretApi,
	} = require('../../credentials/CisAutoCallWebhookSecretApi.credentials');
	/* eslint-enable @typescript-eslint/no-require-imports */
	const MAX_DESCRIPTION_LENGTH = 120;

	type Entry = Partial<INodeProperties> & {
		values?: Entry[];
		options?: Entry[];
		name?: string;
		description?: string;
	};

	/** The description of every parameter, option and credential field, nested ones included. */
	function descriptionsIn(entries: Entry[], path: string, out: Array<[string, string]>): void {
		entries.forEach((entry, index) => {
			const here = `${path} > ${String(entry.name)}#${index}`;
			if (typeof entry.description === 'string') out.push([here, entry.description]);
			for (const nested of [...(entry.options ?? []), ...(entry.values ?? [])])
				descriptionsIn([nested], here, out);
		});
	}

	const descriptions: Array<[string, string]> = [];
	// One description holds every version of a node, so this walks both versions' properties.
	for (const { displayName, properties } of [description, new CisAutoCallTrigger().description]) {
		descriptionsIn(properties as Entry[], displayName, descriptions);
	}
	for (const credential of [
		new CisAutoCallApi(),
		new CisAutoCallLoginApi(),
		new CisAutoCallWebhookSecretApi(),
	]) {
		descriptionsIn(credential.properties as Entry[], credential.displayName, descriptions);
	}

	/** What is wrong with a description: [] when it is one sentence of at most 120 characters. */
	function problems(text: string): string[] {
		const variants = noticeVariants(text);
		if (variants.length === 0) return ['an expression whose text cannot be read here'];
		return variants.flatMap((variant) => [
			...(variant.length > MAX_DESCRIPTION_LENGTH ? [`${variant.length} characters`] : []),
			...(sentenceCount(variant) > 1 ? [`${sentenceCount(variant)} sentences`] : []),
		]);
	}

	test('the check itself', () => {
		expect(problems('Whether the request has headers or not')).toEqual([]);
		expect(problems('Calls at most this many people, e.g. 10; 0 = no limit')).toEqual([]);
		expect(problems('One. Two.')).toEqual(['2 sentences']);
		expect(problems('x'.repeat(121))).toEqual(['121 characters']);
	});

	test('there are descriptions of both nodes and of the credentials to check', () => {
		expect(descriptions.length).toBeGreaterThan(130);
		for (const name of ['CIS Auto-Call >', 'CIS Auto-Call Trigger >', 'CIS Auto-Call API >']) {
			expect(descriptions.some(([where]) => where.startsWith(name))).toBe(true);
		}
		// Every version: version 1's Additional Fields and version 2's Campaign Settings, and their nested options.
		for (const collection of ['additionalFields', 'campaignSettings']) {
			expect(
				descriptions.some(([where]) =>
					new RegExp(`^CIS Auto-Call > ${collection}#\\d+ > callStrategy#0 > Parallel`).test(where),
				),
			).toBe(true);
		}
	});

	test(`every description is one sentence of at most ${MAX_DESCRIPTION_LENGTH} characters`, () => {
		const found = descriptions.flatMap(([where, text]) => {
			const wrong = problems(text);
			return wrong.length === 0 ? [] : [`${where}: ${wrong.join(', ')}: ${JSON.stringify(text)}`];
		});
		expect(found).toEqual([]);
	});
});
