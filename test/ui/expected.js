'use strict';
/**
 * What a node's description says the editor shows for given parameter values, computed with
 * n8n-workflow's own NodeHelpers (the rules the editor applies to displayOptions). The browser
 * test compares this with what the editor really shows: a parameter the description displays but
 * the editor hides (as n8n's editor does with parameters that the credentials depend on) fails.
 */
const { NodeHelpers } = require('n8n-workflow');

/** The node as the editor adds it: the description's default version (its displayOptions may name versions). */
function nodeOf(description) {
	const versions = [].concat(description.version);
	return { typeVersion: description.defaultVersion ?? Math.max(...versions) };
}

/** The node's parameter values with defaults filled in, as the editor holds them. */
function valuesOf(description, values) {
	return (
		NodeHelpers.getNodeParameters(
			description.properties,
			values,
			true,
			false,
			nodeOf(description),
			description,
		) || {}
	);
}

/**
 * The field n8n's editor moves from the panel into the credential window ("Connect using"): the
 * `authentication` parameter the credentials depend on, when it has no "none" option
 * (nodeTypesUtils.getMainAuthField in n8n's editor). Everything else stays in the panel.
 */
function mainAuthField(description) {
	const referenced = new Set(
		(description.credentials || []).flatMap((credential) =>
			Object.keys(credential.displayOptions?.show || {}),
		),
	);
	return description.properties.find(
		(property) =>
			property.name === 'authentication' &&
			referenced.has('authentication') &&
			!(property.options || []).some((option) => option.value === 'none'),
	);
}

/** Top-level properties displayed for these values: [{name, displayName, type, required}]. */
function displayedProperties(description, values) {
	const full = valuesOf(description, values);
	return description.properties
		.filter((property) => property.type !== 'hidden')
		.filter((property) =>
			NodeHelpers.displayParameter(full, property, nodeOf(description), description),
		);
}

/** Properties hidden for these values whose label is not also the label of a displayed one. */
function hiddenProperties(description, values) {
	const shown = displayedProperties(description, values);
	const shownLabels = new Set(shown.map((property) => property.displayName));
	return description.properties.filter(
		(property) =>
			property.type !== 'hidden' &&
			!shown.includes(property) &&
			!shownLabels.has(property.displayName),
	);
}

/** Credential types displayed for these values. */
function displayedCredentials(description, values) {
	const full = valuesOf(description, values);
	return (description.credentials || []).filter((credential) =>
		NodeHelpers.displayParameter(full, credential, nodeOf(description), description),
	);
}

/** [{resource, resourceName, operation, operationName, action}] of an action node, in panel order. */
function operationsOf(description) {
	const resource = description.properties.find((property) => property.name === 'resource');
	const result = [];
	for (const resourceOption of resource.options) {
		const values = { resource: resourceOption.value };
		const operation = displayedProperties(description, values).find(
			(property) => property.name === 'operation',
		);
		for (const operationOption of operation.options) {
			result.push({
				resource: resourceOption.value,
				resourceName: resourceOption.name,
				operation: operationOption.value,
				operationName: operationOption.name,
				action: operationOption.action,
			});
		}
	}
	return result;
}

/**
 * Short panels: how many fields each panel shows before any collection is
 * opened (notices and the field n8n moves into the credential window not counted). A panel that
 * grows fails the browser suite; change a number here only with the panel it describes.
 */
const FIELD_COUNTS = {
	trigger: {
		// Connect To, Events, Name, Bot Script ID, Start, Campaign Settings, Advanced, Options.
		newTask: 8,
		// Connect To, Events, Options.
		existing: 3,
	},
	// The action node as new nodes get it (version 2): Call Task → Create shows its short panel
	// (Name, Bot Script ID, Start, Campaign Settings, Advanced, Webhook Targets, Options besides
	// Resource and Operation); Get and Get Many add Simplify.
	action: {
		'call.deleteRecording': 4,
		'call.depersonalize': 5,
		'callTask.create': 9,
		'callTask.get': 5,
		'callTask.getMany': 7,
		'callTask.pause': 4,
		'callTask.start': 4,
		'callTask.stop': 4,
		'candidate.addManyToTask': 8,
		'candidate.addToTask': 8,
		'candidate.addToTaskAndWait': 10,
		'candidate.cancel': 5,
		'candidate.createAndRun': 7,
		'candidate.createAndRunAndWait': 9,
		'candidate.createBatch': 8,
		'candidate.depersonalize': 5,
	},
};

/** The fields a panel shows for these values, counted like FIELD_COUNTS. */
function fieldCount(description, values) {
	const inCredentialWindow = mainAuthField(description);
	return displayedProperties(description, values).filter(
		(property) => property.type !== 'notice' && property !== inCredentialWindow,
	).length;
}

module.exports = {
	mainAuthField,
	displayedProperties,
	hiddenProperties,
	displayedCredentials,
	operationsOf,
	valuesOf,
	nodeOf,
	fieldCount,
	FIELD_COUNTS,
};
