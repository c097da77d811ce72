import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { authenticationProperty, credentialDescriptions } from '../shared/authentication';
import { operationDescriptions, operationProperties, resourceProperty } from './actions/resources';
import { router } from './actions/router';
import { searchCallTasks } from './methods/listSearch';

export class CisAutoCall implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'CIS Auto-Call',
		name: 'cisAutoCall',
		icon: { light: 'file:cisAutoCall.svg', dark: 'file:cisAutoCall.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Drive automated outbound calls by voice bots: call tasks, candidates, depersonalization and recordings. As an AI tool it dials real people at real cost.',
		defaults: { name: 'CIS Auto-Call' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: credentialDescriptions,
		properties: [authenticationProperty, resourceProperty, ...operationProperties, ...operationDescriptions],
	};

	methods = { listSearch: { searchCallTasks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
