import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { expectTaskList } from '../../../shared/answerShapes';
import { TASK_STATUSES } from '../../../shared/taskStatus';
import { taskIdOf, taskListOf } from '../../helpers/callTaskLocator';
import { toInstant } from '../../../shared/convert';
import { simplifyOption, simplifyTask } from '../../helpers/simplifyTask';
import { requireInteger } from '../../../shared/validation';
import { defineOperation } from '../defineOperation';

const MAX_PAGE = 1000;
/** Return All stops here (100,000 tasks) rather than page on for ever. */
const MAX_PAGES = 100;

const fields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Created From',
				name: 'from',
				type: 'dateTime',
				default: '',
				description: 'Only tasks created at or after this moment',
			},
			{
				displayName: 'Created To',
				name: 'to',
				type: 'dateTime',
				default: '',
				description: 'Only tasks created at or before this moment',
			},
			{
				displayName: 'Keyword',
				name: 'keyword',
				type: 'string',
				default: '',
				description: 'Only tasks whose name contains this text',
			},
			{
				displayName: 'Sort',
				name: 'sort',
				type: 'options',
				options: [
					{ name: 'Created (Newest First)', value: '-createdAt' },
					{ name: 'Created (Oldest First)', value: 'createdAt' },
					{ name: 'Name (A to Z)', value: 'name' },
					{ name: 'Name (Z to A)', value: '-name' },
					{ name: 'Updated (Newest First)', value: '-updatedAt' },
					{ name: 'Updated (Oldest First)', value: 'updatedAt' },
				],
				default: '-updatedAt',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				options: TASK_STATUSES,
				default: [],
				description: 'Only tasks in these statuses',
			},
		],
	},
	simplifyOption,
];

interface ListQuery {
	qs: IDataObject;
	max: number;
	simplify: boolean;
}

export const getMany = defineOperation<ListQuery>({
	kind: 'item',
	fields,
	creates: false,
	prepare({ context, parameter }) {
		const timeZone = context.getTimezone();
		const instant = (field: string, value: unknown) =>
			value === undefined || value === null || value === ''
				? undefined
				: toInstant(field, value, timeZone);
		return (itemIndex) => {
			const returnAll = parameter('returnAll', itemIndex, false) as boolean;
			const max = returnAll
				? Infinity
				: requireInteger('limit', parameter('limit', itemIndex, 50), { min: 1 });
			const filters = parameter('filters', itemIndex, {}) as IDataObject;
			const qs: IDataObject = {};
			if (filters.keyword) qs.keyword = filters.keyword;
			if (Array.isArray(filters.status) && filters.status.length > 0)
				qs.status = filters.status.join(',');
			const from = instant('filters.from', filters.from);
			if (from) qs.from = from;
			const to = instant('filters.to', filters.to);
			if (to) qs.to = to;
			if (filters.sort) qs.sort = filters.sort;
			return { qs, max, simplify: parameter('simplify', itemIndex, false) === true };
		};
	},
	async execute({ client, context }, { qs, max, simplify }, itemIndex) {
		const tasks: IDataObject[] = [];
		const seen = new Set<string>();
		const stop = (message: string, description: string) =>
			new NodeOperationError(context.getNode(), `${message} [item ${itemIndex}]`, {
				itemIndex,
				description,
			});
		for (let offset = 0, pages = 0; tasks.length < max; pages++) {
			if (pages === MAX_PAGES) {
				throw stop(
					`Stopped listing call tasks after ${MAX_PAGES} pages (${tasks.length} tasks)`,
					`Return All reads at most ${MAX_PAGES} pages of ${MAX_PAGE.toLocaleString('en-US')} tasks. Narrow the list with the filters, or use Limit.`,
				);
			}
			const limit = Math.min(MAX_PAGE, max - tasks.length);
			const page = taskListOf(
				await client.request(
					{
						method: 'GET',
						path: 'telephony/autoCall',
						qs: { ...qs, limit, offset },
						repeatability: 'safe',
						beyondSpec: true,
						expect: expectTaskList,
					},
					itemIndex,
				),
			);
			const keys = page.map((task) => taskIdOf(task) ?? JSON.stringify(task));
			if (keys.length > 0 && keys.every((key) => seen.has(key))) {
				throw stop(
					`The service answered the page at offset ${offset} with call tasks it had already sent, so it seems to ignore "offset"`,
					`Return All stopped after ${tasks.length} tasks instead of reading the same page for ever. Use Limit (up to 1,000 tasks in one request, or more in pages if the server honours "offset") or narrow the list with the filters.`,
				);
			}
			for (const key of keys) seen.add(key);
			tasks.push(...page.slice(0, max - tasks.length));
			if (page.length < limit) break;
			offset += page.length;
		}
		return tasks.map((task) =>
			simplify ? simplifyTask(task, taskIdOf(task)) : { autoCallId: taskIdOf(task), ...task },
		);
	},
});
