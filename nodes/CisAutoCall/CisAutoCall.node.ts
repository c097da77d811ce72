import type { IExecuteFunctions, INodeExecutionData, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { authenticationProperty, credentialDescriptions } from '../shared/authentication';
import { resourceProperties, resourceProperty, resources } from './actions/resources';
import { router } from './actions/router';
import { searchCallTasks } from './methods/listSearch';

/** The canvas subtitle in the options' own words ("Create and Run: Candidate"), not their values. */
function subtitle(): string {
	const cases = resources.flatMap(({ option: resource, operationProperty }) =>
		(operationProperty.options as INodePropertyOptions[]).map(
			(operation) =>
				`$parameter["resource"] === ${JSON.stringify(resource.value)} && $parameter["operation"] === ${JSON.stringify(operation.value)} ? ${JSON.stringify(`${operation.name}: ${resource.name}`)} : `,
		),
	);
	return `={{ ${cases.join('')}"" }}`;
}

export class CisAutoCall implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'CIS Auto-Call',
		name: 'cisAutoCall',
		icon: { light: 'file:cisAutoCall.svg', dark: 'file:cisAutoCall.dark.svg' },
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: subtitle(),
		description:
			'Drive automated outbound calls by voice bots: call tasks, candidates, depersonalization and recordings. As an AI tool it dials real people at real cost.',
		defaults: { name: 'CIS Auto-Call' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: credentialDescriptions,
		properties: [authenticationProperty, resourceProperty, ...resourceProperties],
	};

	methods = { listSearch: { searchCallTasks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
