import type { IGetNodeParameterOptions } from 'n8n-workflow';

/**
 * The two ways the nodes read their parameters, one type each for both nodes: by name (a hook,
 * a webhook, or one item already chosen), and by name for a given item (the action node's run).
 */

/** Reads one parameter by name, like `getNodeParameter(name, fallback)`. */
export type ReadParameter = (name: string, fallback?: unknown) => unknown;

/** Reads a node parameter for one item, like `getNodeParameter(name, itemIndex, fallback, options)`. */
export type ReadItemParameter = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
) => unknown;
