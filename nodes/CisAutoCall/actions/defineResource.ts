import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { forOperation } from './displayOptions';
import type { Operation } from './operation';
import { withoutKey } from '../../shared/convert';

/** One resource of the node (Call Task, Candidate, Call) with its operations. */
export interface Resource {
	/** Its entry in the Resource list. */
	option: { name: string; value: string };
	/** value → operation: what the router dispatches on. */
	operations: Record<string, Operation>;
	/** The Operation list shown when this resource is chosen. */
	operationProperty: INodeProperties;
	/** Each operation's fields, shown only when that operation is chosen. */
	fields: INodeProperties[];
}

/** An operation's entry in the Operation list (the words the editor shows) and the operation. */
export interface OperationEntry {
	name: string;
	value: string;
	description: string;
	action: string;
	operation: Operation;
}

/**
 * A resource from its operations, each named once, by its entry: its place in the Operation
 * list (in the order given, which n8n's lint wants alphabetical), the value the router finds it
 * by and its fields are shown for.
 */
export function defineResource(
	resource: { name: string; value: string },
	defaultValue: string,
	entries: OperationEntry[],
): Resource {
	const options: INodePropertyOptions[] = entries.map((entry) => withoutKey(entry, 'operation'));
	return {
		option: resource,
		operations: Object.fromEntries(entries.map(({ value, operation }) => [value, operation])),
		operationProperty: {
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.value] } },
			options,
			default: defaultValue,
		},
		fields: entries.flatMap(({ value, operation }) =>
			forOperation(resource.value, value, operation.fields),
		),
	};
}
