import type { IDataObject } from 'n8n-workflow';

import { expectTask } from '../../../shared/answers';
import { autoCallIdLocator, readTaskId, taskIdOf, taskNotFoundMeans } from '../../../shared/callTaskLocator';
import { requestOptions } from '../../../shared/requestOptions';
import { forOperation } from '../displayOptions';
import type { ItemOperation, PreparedRequest } from '../operation';

export const description = forOperation('callTask', 'get', [
	autoCallIdLocator,
	requestOptions({ creates: false, batch: false }),
]);

export const get: ItemOperation<PreparedRequest> = {
	kind: 'item',
	description,
	creates: false,
	prepare({ parameter }) {
		return (itemIndex) => {
			const id = readTaskId(parameter, itemIndex);
			return {
				request: {
					method: 'GET',
					path: `telephony/autoCall/${encodeURIComponent(id)}`,
					repeatability: 'safe',
					beyondSpec: true,
					notFoundMeans: taskNotFoundMeans([id]),
					expect: expectTask,
				},
				echo: { autoCallId: id },
			};
		};
	},
	async execute({ client }, { request, echo }, itemIndex) {
		const response = await client.request<IDataObject>(request, itemIndex);
		const task = (response?.item ?? response) as IDataObject;
		return { ...echo, ...task, autoCallId: taskIdOf(task) ?? echo.autoCallId };
	},
};
