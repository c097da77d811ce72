'use strict';
/**
 * Workflow JSON of every contender: Manual Trigger → Code node producing N CRM rows → contender.
 * Each row: { phone: '7900…' (unique), name, crmId, company }.
 */

const PACKAGE = 'n8n-nodes-cis-autocall';
const TRIGGER = 'Start';
const ROWS = 'Rows';
const CONTENDER = 'Contender';
const BOT = 'bench-bot';
const SINGLE_PATH = '/cis/api/v1/telephony/autoCallCandidate/single';
const BATCH_PATH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';

function phoneOf(index) {
	return String(79000000000 + index);
}

/** The rows the Code node produces, also used by the floor client (the same data). */
function row(index) {
	return { phone: phoneOf(index), name: `Client ${index}`, crmId: `crm-${index}`, company: 'ACME' };
}

function rowsCode(count) {
	return [
		`const out = new Array(${count});`,
		`for (let i = 0; i < ${count}; i++) {`,
		'  out[i] = { json: { phone: String(79000000000 + i), name: `Client ${i}`, crmId: `crm-${i}`, company: "ACME" } };',
		'}',
		'return out;',
	].join('\n');
}

/** The 4.4 body of one row, as every contender sends it. */
function singleBody(index) {
	const r = row(index);
	return {
		phone: [r.phone],
		botSettingsId: BOT,
		variables: { name: r.name },
		callbackData: { crmId: r.crmId },
	};
}

function base(name, count, contender) {
	const nodes = [
		{
			parameters: {},
			id: 'n-start',
			name: TRIGGER,
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
		},
		{
			parameters: { jsCode: rowsCode(count) },
			id: 'n-rows',
			name: ROWS,
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, 0],
		},
	];
	const connections = { [TRIGGER]: { main: [[{ node: ROWS, type: 'main', index: 0 }]] } };
	if (contender) {
		nodes.push({ id: 'n-contender', name: CONTENDER, position: [440, 0], ...contender });
		connections[ROWS] = { main: [[{ node: CONTENDER, type: 'main', index: 0 }]] };
	}
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** Node-level settings: continue on fail, n8n's own retry of the whole node. */
function nodeSettings({
	continueOnFail = false,
	retryOnFail = false,
	maxTries = 3,
	waitBetweenTries = 1000,
} = {}) {
	const s = {};
	if (continueOnFail) s.onError = 'continueRegularOutput';
	if (retryOnFail) Object.assign(s, { retryOnFail: true, maxTries, waitBetweenTries });
	return s;
}

/** The 4.4 body of a row as JSON body parameters: 3 expressions per item (phone, variables, callbackData). */
const SINGLE_BODY_PARAMETERS = [
	{ name: 'phone', value: '={{ [$json.phone] }}' },
	{ name: 'botSettingsId', value: BOT },
	{ name: 'variables', value: '={{ { name: $json.name } }}' },
	{ name: 'callbackData', value: '={{ { crmId: $json.crmId } }}' },
];

/**
 * n8n's HTTP Request node calling 4.4 with the package's credential (predefined credential type,
 * which is what a user with this package installed would pick) and a JSON body of key/value pairs
 * with 3 expressions per item (phone, variables, callbackData).
 * batching: { batchSize, batchInterval } (Options → Batching), or undefined for the defaults;
 * bodyParameters: other body parameters.
 */
/**
 * @param {{ simUrl: string, credential: any, batching?: any, settings?: any, bodyParameters?: Array<{ name: string, value: string }> }} options
 */
function httpRequestNode({
	simUrl,
	credential,
	batching = undefined,
	settings = undefined,
	bodyParameters = SINGLE_BODY_PARAMETERS,
}) {
	const options = {};
	if (batching)
		options.batching = {
			batch: { batchSize: batching.batchSize, batchInterval: batching.batchInterval },
		};
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${simUrl}${SINGLE_PATH}`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'cisAutoCallApi',
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: { parameters: bodyParameters },
			options,
		},
		credentials: { cisAutoCallApi: { id: credential.id, name: credential.name } },
		...nodeSettings(settings),
	};
}

/** Candidate fields of this package's node: 'fromItems' (field names) or 'define' (3 expressions per item). */
function candidateInput(mode) {
	if (mode === 'fromItems') {
		return {
			inputMode: 'fromItems',
			phoneField: 'phone',
			variablesFields: 'name',
			callbackDataFields: 'crmId',
		};
	}
	return {
		inputMode: 'define',
		phone: '={{ $json.phone }}',
		candidateFields: {
			variablesJson: '={{ { name: $json.name } }}',
			callbackData: '={{ { crmId: $json.crmId } }}',
		},
	};
}

function cisNode({ credential, parameters, settings }) {
	return {
		type: `${PACKAGE}.cisAutoCall`,
		typeVersion: 1,
		parameters: { authentication: 'accessToken', resource: 'candidate', ...parameters },
		credentials: { cisAutoCallApi: { id: credential.id, name: credential.name } },
		...nodeSettings(settings),
	};
}

/** Create and Run (4.4, one request per item). options: concurrency, maxRequestsPerSecond, ... */
function createAndRunNode({ credential, mode, options = {}, settings }) {
	return cisNode({
		credential,
		settings,
		parameters: { operation: 'createAndRun', botSettingsId: BOT, ...candidateInput(mode), options },
	});
}

/** Create Batch From Template (4.5, batchSize items per request). */
function createBatchNode({ credential, mode, options = {}, settings }) {
	return cisNode({
		credential,
		settings,
		parameters: {
			operation: 'createBatch',
			...candidateInput(mode),
			taskSettings: { botSettingsId: BOT },
			options,
		},
	});
}

/**
 * n8n's Edit Fields (Set) node making one new item of three fixed fields per row: what n8n itself
 * spends on 100,000 new output items of the size Create Batch outputs, without any request.
 */
function setNode() {
	const field = (name, value) => ({ id: `f-${name}`, name, value, type: 'string' });
	return {
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		parameters: {
			mode: 'manual',
			assignments: {
				assignments: [
					field('autoCallId', '0b5c5d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e'),
					field('autoCallCandidateId', '1c6d6e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f'),
					field('phone', '79000000000'),
				],
			},
			includeOtherFields: false,
			options: {},
		},
	};
}

/**
 * A contender spec → workflow JSON. spec.kind: 'http' | 'createAndRun' | 'createBatch' | 'rowsOnly' | 'setNode'.
 */
function contenderWorkflow(spec, { count, simUrl, credential }) {
	const name = `bench ${spec.id} ${count}`;
	switch (spec.kind) {
		case 'rowsOnly':
			return base(name, count, null);
		case 'setNode':
			return base(name, count, setNode());
		case 'http':
			return base(
				name,
				count,
				httpRequestNode({ simUrl, credential, batching: spec.batching, settings: spec.settings }),
			);
		case 'createAndRun':
			return base(
				name,
				count,
				createAndRunNode({
					credential,
					mode: spec.mode,
					options: spec.options,
					settings: spec.settings,
				}),
			);
		case 'createBatch':
			return base(
				name,
				count,
				createBatchNode({
					credential,
					mode: spec.mode,
					options: spec.options,
					settings: spec.settings,
				}),
			);
		default:
			throw new Error(`unknown contender kind ${spec.kind}`);
	}
}

module.exports = {
	PACKAGE,
	TRIGGER,
	ROWS,
	CONTENDER,
	BOT,
	SINGLE_PATH,
	BATCH_PATH,
	phoneOf,
	row,
	rowsCode,
	singleBody,
	contenderWorkflow,
	httpRequestNode,
	createAndRunNode,
	createBatchNode,
};
