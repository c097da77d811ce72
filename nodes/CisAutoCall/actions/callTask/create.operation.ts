import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { addWebhookTargets, buildCallTaskBody } from '../../../shared/callTaskBody';
import { callTaskFields } from '../../../shared/callTaskFields';
import { shortCallTaskPanel, shortPanelReader } from '../../../shared/callTaskPanel';
import { createTask, createTaskRequest } from '../../../shared/callTasks';
import { EVENTS, toEventsMap } from '../../../shared/events';
import type { ApiRequest } from '../../../shared/transport';
import { InputError, requireHttpUrl, requireInteger } from '../../../shared/validation';
import { defineOperation } from '../defineOperation';
import { beforeVersion2, fromVersion2, SHORT_PANELS_VERSION } from '../../versions';

const webhookTargets: INodeProperties = {
	displayName: 'Webhook Targets',
	name: 'webhookUrls',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Webhook Target',
	default: {},
	description: "Addresses that receive the task's events",
	hint: 'To start a workflow on them, use the CIS Auto-Call Trigger node, which can create the task with itself as target.',
	options: [
		{
			displayName: 'Target',
			name: 'target',
			values: [
				{
					displayName: 'URL',
					name: 'url',
					type: 'string',
					default: '',
					placeholder: 'e.g. https://example.com/hooks/calls',
				},
				...EVENTS.map((event): INodeProperties => ({
					displayName: event.name,
					name: event.value,
					type: 'boolean',
					default: false,
					description: `Whether to send "${event.name}": ${event.description.toLowerCase()}`,
				})),
				{
					displayName: 'Partial Results',
					name: 'partialResults',
					type: 'boolean',
					default: false,
					description: 'Whether intermediate results are sent',
				},
				{
					displayName: 'Delay (Seconds)',
					name: 'delay',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: 0,
					description: 'Delay before each webhook is sent',
				},
			],
		},
	],
};

const fields: INodeProperties[] = [
	...updateDisplayOptions(beforeVersion2, callTaskFields),
	...updateDisplayOptions(fromVersion2, shortCallTaskPanel()),
	webhookTargets,
];

function readWebhookTargets(value: unknown): IDataObject[] {
	const targets = ((value as IDataObject | undefined)?.target ?? []) as IDataObject[];
	return targets.map((target, index) => {
		const chosen = EVENTS.map((event) => event.value).filter((name) => target[name] === true);
		if (chosen.length === 0) {
			throw new InputError(
				`webhookUrls[${index}]`,
				target.url,
				'has no event turned on; turn on at least one event',
			);
		}
		return {
			url: requireHttpUrl(`webhookUrls[${index}].url`, target.url),
			partialResults: target.partialResults === true,
			delay: requireInteger(`webhookUrls[${index}].delay`, target.delay ?? 0, { min: 0 }),
			events: toEventsMap(chosen),
		};
	});
}

export const create = defineOperation<ApiRequest>({
	kind: 'item',
	fields,
	creates: true,
	prepare({ context, parameter }) {
		const timeZone = context.getTimezone();
		const shortPanel = context.getNode().typeVersion >= SHORT_PANELS_VERSION;
		return (itemIndex) => {
			const read = (name: string, fallback: unknown) => parameter(name, itemIndex, fallback);
			const body = buildCallTaskBody(shortPanel ? shortPanelReader(read) : read, timeZone);
			const targets = readWebhookTargets(parameter('webhookUrls', itemIndex, {}));
			addWebhookTargets(body, targets);
			return createTaskRequest(body);
		};
	},
	async execute({ client }, request, itemIndex) {
		return await createTask(client, request, itemIndex);
	},
});
