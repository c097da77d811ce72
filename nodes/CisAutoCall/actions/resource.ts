import type { INodeProperties } from 'n8n-workflow';

import { forOperation } from './displayOptions';
import type { Operation } from './operation';

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

/**
 * A resource from its operations, each named once: its menu entry gives its place in the
 * Operation list (in the order given, which n8n's lint wants alphabetical) and the value its
 * fields are shown for.
 */
export function defineResource(
	resource: { name: string; value: string },
	operationList: Operation[],
	defaultOperation: Operation,
): Resource {
	const defaultValue = defaultOperation.menu.value;
	return {
		option: resource,
		operations: Object.fromEntries(operationList.map((operation) => [operation.menu.value, operation])),
		operationProperty: {
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.value] } },
			options: operationList.map((operation) => operation.menu),
			default: defaultValue,
		},
		fields: operationList.flatMap((operation) => forOperation(resource.value, operation.menu.value, operation.fields)),
	};
}
