/**
 * The node types n8n's engine sees in a harness workflow: a start node, the node under test
 * (versioned or not), with errors thrown by execute() recorded.
 */
import './engine-env';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, UserError } from 'n8n-workflow';
import { PACKAGE_NAME, START_NODE_TYPE } from './setup';

/** The harness-owned start node: behaves like n8n's Manual Trigger (passes its input on). */
class HarnessStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Start',
		name: 'harnessStart',
		group: ['trigger'],
		version: 1,
		description: 'Emits the items given to the harness',
		defaults: { name: 'Harness Start' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

export type AnyNodeType = INodeType | IVersionedNodeType;

export function nodeTypeName(node: AnyNodeType): string {
	return `${PACKAGE_NAME}.${node.description.name}`;
}

function isVersioned(node: AnyNodeType): node is IVersionedNodeType {
	return 'nodeVersions' in node;
}

export function defaultTypeVersion(node: AnyNodeType): number {
	if (isVersioned(node)) return node.currentVersion ?? node.description.defaultVersion ?? 1;
	const { version } = node.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Receives the error the node's execute() threw (the engine only keeps a flattened copy). */
export interface ErrorSink {
	thrown?: unknown;
}

/**
 * The same node type, with execute() observed: the error it throws is noted and rethrown
 * unchanged. Everything else (description, methods, prototype chain) is the original.
 */
function observeExecute(type: INodeType, sink: ErrorSink): INodeType {
	const original = type.execute;
	if (typeof original !== 'function') return type;
	const observed = Object.create(type) as INodeType;
	observed.execute = async function (this: IExecuteFunctions, ...args: unknown[]) {
		try {
			return await (original as (...a: unknown[]) => Promise<INodeExecutionData[][] | null>).apply(
				this,
				args,
			);
		} catch (error) {
			sink.thrown = error;
			throw error;
		}
	} as INodeType['execute'];
	return observed;
}

export class HarnessNodeTypes implements INodeTypes {
	private readonly types: Record<string, AnyNodeType> = {};

	private readonly observed = new Map<string, INodeType>();

	constructor(
		nodes: AnyNodeType[],
		private readonly sink?: ErrorSink,
	) {
		this.types[START_NODE_TYPE] = new HarnessStart();
		for (const node of nodes) this.types[nodeTypeName(node)] = node;
	}

	getByName(nodeType: string): AnyNodeType {
		const type = this.types[nodeType];
		if (!type) throw new UserError(`Harness: unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
		if (!this.sink || nodeType === START_NODE_TYPE) return type;
		const key = `${nodeType}@${String(version)}`;
		let observed = this.observed.get(key);
		if (!observed) {
			observed = observeExecute(type, this.sink);
			this.observed.set(key, observed);
		}
		return observed;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}
