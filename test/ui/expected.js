'use strict';
/**
 * What a node's description says the editor shows for given parameter values, computed with
 * n8n-workflow's own NodeHelpers (the rules the editor applies to displayOptions). The browser
 * test compares this with what the editor really shows: a parameter the description displays but
 * the editor hides (as n8n's editor does with parameters that the credentials depend on) fails.
 */
const { NodeHelpers } = require('n8n-workflow');

const NODE = { typeVersion: 1 };

/** The node's parameter values with defaults filled in, as the editor holds them. */
function valuesOf(description, values) {
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, NODE, description) || {};
}

/**
 * The field n8n's editor moves from the panel into the credential window ("Connect using"): the
 * `authentication` parameter the credentials depend on, when it has no "none" option
 * (nodeTypesUtils.getMainAuthField in n8n's editor). Everything else stays in the panel.
 */
function mainAuthField(description) {
	const referenced = new Set((description.credentials || []).flatMap((credential) => Object.keys(credential.displayOptions?.show || {})));
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
		.filter((property) => NodeHelpers.displayParameter(full, property, NODE, description));
}

/** Properties hidden for these values whose label is not also the label of a displayed one. */
function hiddenProperties(description, values) {
	const shown = displayedProperties(description, values);
	const shownLabels = new Set(shown.map((property) => property.displayName));
	return description.properties.filter(
		(property) => property.type !== 'hidden' && !shown.includes(property) && !shownLabels.has(property.displayName),
	);
}

/** Credential types displayed for these values. */
function displayedCredentials(description, values) {
	const full = valuesOf(description, values);
	return (description.credentials || []).filter((credential) =>
		NodeHelpers.displayParameter(full, credential, NODE, description),
	);
}

/** [{resource, resourceName, operation, operationName, action}] of an action node, in panel order. */
function operationsOf(description) {
	const resource = description.properties.find((property) => property.name === 'resource');
	const result = [];
	for (const resourceOption of resource.options) {
		const values = { resource: resourceOption.value };
		const operation = displayedProperties(description, values).find((property) => property.name === 'operation');
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

module.exports = { mainAuthField, displayedProperties, hiddenProperties, displayedCredentials, operationsOf, valuesOf };
