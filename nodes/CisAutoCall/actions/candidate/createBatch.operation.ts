import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { candidateFields, candidateReader } from '../../../shared/candidateFields';
import { requestOptions } from '../../../shared/requestOptions';
import { optionalString } from '../../../shared/validation';
import { forOperation } from '../displayOptions';
import type { BatchOperation } from '../operation';
import { mapBatchResponse } from './batchResponse';

const taskSettings: INodeProperties = {
	displayName: 'Task Settings',
	name: 'taskSettings',
	type: 'collection',
	placeholder: 'Add Setting',
	default: {},
	options: [
		{
			displayName: 'Bot Script ID',
			name: 'botSettingsId',
			type: 'string',
			default: '',
			description: 'Script for the calls; left out, the template\'s script is used',
		},
		{
			displayName: 'Check Phones',
			name: 'checkPhone',
			type: 'boolean',
			default: false,
			description: 'Whether the service checks that the numbers are valid',
		},
		{
			displayName: 'Template ID',
			name: 'autoCallTemplateId',
			type: 'string',
			default: '',
			description: 'Call-task template to use; left out, the template marked default in the service is used',
		},
	],
};

export const description = forOperation('candidate', 'createBatch', [
	...candidateFields('batch'),
	taskSettings,
	requestOptions({ creates: true, batch: true }),
]);

function readTaskSettings(settings: IDataObject): IDataObject {
	const entry: IDataObject = {};
	const botSettingsId = optionalString(settings.botSettingsId);
	if (botSettingsId) entry.botSettingsId = botSettingsId;
	const autoCallTemplateId = optionalString(settings.autoCallTemplateId);
	if (autoCallTemplateId) entry.autoCallTemplateId = autoCallTemplateId;
	if (typeof settings.checkPhone === 'boolean') entry.checkPhone = settings.checkPhone;
	return entry;
}

export const createBatch: BatchOperation = {
	kind: 'batch',
	description,
	prepare({ parameter, items }) {
		const readCandidate = candidateReader(parameter, items, 'batch');
		const perItem = parameter('inputMode', 0, 'define') === 'define';
		const runSettings = perItem ? undefined : readTaskSettings(parameter('taskSettings', 0, {}) as IDataObject);
		return (itemIndex) => ({
			...readCandidate(itemIndex),
			...(runSettings ?? readTaskSettings(parameter('taskSettings', itemIndex, {}) as IDataObject)),
		});
	},
	async sendChunk({ client }, entries, itemIndexes) {
		const response = await client.request(
			{
				method: 'POST',
				path: 'telephony/autoCallCandidate/single/batch',
				body: { batch: entries },
				repeatability: 'create',
			},
			itemIndexes[0],
		);
		return mapBatchResponse(response, entries.length).map((result, index) => ({
			...result,
			phone: entries[index].phone,
		}));
	},
};
