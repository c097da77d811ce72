import type { INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';

/**
 * Which parameters n8n shows for given values, computed by n8n-workflow's own
 * getNodeParameters (the function the editor and the engine use to drop hidden parameters).
 */
const description = new CisAutoCall().description;
const node = { name: 'CIS Auto-Call', type: 'n8n-nodes-cis-autocall.cisAutoCall', typeVersion: 1, parameters: {} } as unknown as INode;

function shown(values: INodeParameters): INodeParameters {
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) as INodeParameters;
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
	[['allowCallTimeFrom', 'allowCallTimeTo'], { useTr: true }, { useTr: false }],
	[['detectRobotMode'], { detectRobot: true }, { detectRobot: false }],
	[['detectRobotGreeting'], { detectRobot: true, detectRobotMode: 'block' }, { detectRobot: true, detectRobotMode: 'back' }],
	[['normalizationErrorAction'], { phoneNormalization: 'RU' }, { phoneNormalization: 'none' }],
])('Call Task → Create additional fields %p appear only when their condition holds', (fields, on, off) => {
	for (const field of fields) {
		expect(shownIn('additionalFields', callTask, on)).toContain(field);
		expect(shownIn('additionalFields', callTask, off)).not.toContain(field);
	}
});

test('redial rule: time and count only when its redial is on', () => {
	const rules = description.properties.find((property) => property.name === 'redialRules') as INodeProperties;
	const busy = (rules.options as Array<{ name: string; values: INodeProperties[] }>).find((option) => option.name === 'busy');
	const visible = (redial: boolean) =>
		busy!.values.filter((value) => NodeHelpers.displayParameter({ redial }, value, node, description)).map((value) => value.name);
	expect(visible(true)).toEqual(['redial', 'time', 'count']);
	expect(visible(false)).toEqual(['redial']);
});

test('call limits: count only when on', () => {
	const additional = description.properties.find(
		(property) => property.name === 'additionalFields' && NodeHelpers.displayParameter(callTask, property, node, description),
	) as INodeProperties;
	const limit = (additional.options as INodeProperties[]).find((option) => option.name === 'candidateLimit') as INodeProperties;
	const values = (limit.options as Array<{ values: INodeProperties[] }>)[0].values;
	const visible = (redial: boolean) =>
		values.filter((value) => NodeHelpers.displayParameter({ redial }, value, node, description)).map((value) => value.name);
	expect(visible(true)).toEqual(['redial', 'count']);
	expect(visible(false)).toEqual(['redial']);
});

test('candidate input: defined fields or field names, never both', () => {
	const define = shown({ resource: 'candidate', operation: 'createAndRun', inputMode: 'define' });
	expect(define).toHaveProperty('phone');
	expect(define).not.toHaveProperty('phoneField');
	const byName = shown({ resource: 'candidate', operation: 'createAndRun', inputMode: 'fromItems' });
	expect(byName).toHaveProperty('phoneField');
	expect(byName).toHaveProperty('callbackDataFields');
	expect(byName).not.toHaveProperty('phone');
	expect(byName).not.toHaveProperty('clientExternalIdField');
	expect(shown({ resource: 'candidate', operation: 'createBatch', inputMode: 'fromItems' })).toHaveProperty('clientExternalIdField');
});

test('each operation shows only its own fields', () => {
	expect(Object.keys(shown({ resource: 'call', operation: 'deleteRecording' })).sort()).toEqual(
		['authentication', 'callId', 'operation', 'options', 'resource'].sort(),
	);
	expect(shown({ resource: 'call', operation: 'depersonalize' })).toHaveProperty('skipDeleteRecord');
	expect(shown({ resource: 'candidate', operation: 'depersonalize' })).toHaveProperty('autoCallCandidateId');
});

test('no operation offers to repeat creating requests (a repeat could call a person twice)', () => {
	const options = (values: INodeParameters) =>
		shownIn('options', values, {}).filter((name) => name === 'retryUncertainCreates');
	expect(options({ resource: 'candidate', operation: 'createAndRun' })).toEqual([]);
	expect(options({ resource: 'candidate', operation: 'createBatch' })).toEqual([]);
	expect(options({ resource: 'callTask', operation: 'create' })).toEqual([]);
});

test('usable as an AI tool, with both credentials selectable', () => {
	expect(description.usableAsTool).toBe(true);
	expect(description.credentials?.map((credential) => credential.name)).toEqual(['cisAutoCallApi', 'cisAutoCallLoginApi']);
});
