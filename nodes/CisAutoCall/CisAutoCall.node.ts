import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { authenticationProperty, credentialDescriptions } from '../shared/authentication';
import { resourceProperties, resourceProperty, resources } from './actions/resources';
import { router } from './actions/router';
import { resumeWithResults } from './actions/waiting/resume';
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

/** The waiting execution's resume address: `<n8n>/webhook-waiting/<execution>/<node id>`. */
const resumeWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
		ndvHideUrl: true,
		ndvHideMethod: true,
	},
];

export class CisAutoCall implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'CIS Auto-Call',
		name: 'cisAutoCall',
		icon: { light: 'file:cisAutoCall.svg', dark: 'file:cisAutoCall.dark.svg' },
		group: ['transform'],
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: subtitle(),
		description:
			'Drive automated outbound calls by voice bots: call tasks, candidates, depersonalization and recordings. As an AI tool it dials real people at real cost.',
		defaults: { name: 'CIS Auto-Call' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: credentialDescriptions,
		// Create and Run and Wait for Result: the address a waiting execution is resumed at (by the
		// CIS Auto-Call Trigger). n8n uses restart webhooks only while an execution waits: nothing is
		// registered anywhere, so there is no webhook lifecycle (as in n8n's send-and-wait nodes).
		webhooks: resumeWebhooks,
		properties: [authenticationProperty, resourceProperty, ...resourceProperties],
	};

	methods = { listSearch: { searchCallTasks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await resumeWithResults(this);
	}
}
