import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { hashWaitKey } from '../../../shared/waitForResult';
import { savedNodeContextOf } from './n8nInternals';

/**
 * The wait as the waiting execution keeps it, between its start (start.ts) and its resume
 * (resume.ts): `<hash of the key>:<input items>:<items waited for>` (as ranges, "0-3,5"). Only
 * the key's hash is kept; the key itself only travels in the candidates' Callback Data.
 */
export interface StoredWait {
	hash: string;
	/** The input items of the node run. */
	total: number;
	/** The input items whose candidates are waited for, ascending. */
	items: number[];
	/** The entries left out of each item's phone list (by input item), for the result's output. */
	skippedNumbers: IDataObject;
}

/**
 * Where: the node's own context, which n8n saves with the waiting execution and loads again for
 * the resume, on every version. (n8n's custom data is not found again by the resume on n8n
 * 1.123.81, and holds 10 entries of 512 characters.)
 */
const WAIT_CONTEXT_KEY = 'cisAutoCallWait';
/** Beside it, the entries left out of the items' phone lists, as JSON (only when there are any). */
const SKIPPED_CONTEXT_KEY = 'cisAutoCallWaitSkippedNumbers';

function storedText(key: string, total: number, items: number[]): string {
	const ranges: string[] = [];
	for (let i = 0; i < items.length; i++) {
		let j = i;
		while (j + 1 < items.length && items[j + 1] === items[j] + 1) j++;
		ranges.push(i === j ? String(items[i]) : `${items[i]}-${items[j]}`);
		i = j;
	}
	return `${hashWaitKey(key)}:${total}:${ranges.join(',')}`;
}

function parseStored(value: unknown): StoredWait | undefined {
	if (typeof value !== 'string') return undefined;
	const [hash, totalText, list] = value.split(':');
	const total = Number(totalText);
	if (!hash || list === undefined || !Number.isInteger(total) || total < 0 || total > 1_000_000)
		return undefined;
	const items: number[] = [];
	for (const part of list.split(',').filter(Boolean)) {
		const [from, to] = part.split('-').map(Number);
		for (let item = from; item <= (to ?? from); item++) items.push(item);
	}
	return { hash, total, items, skippedNumbers: {} };
}

function parseSkipped(value: unknown): IDataObject {
	if (typeof value !== 'string') return {};
	try {
		const parsed: unknown = JSON.parse(value);
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
			? (parsed as IDataObject)
			: {};
	} catch {
		return {};
	}
}

/** The start of a wait keeps it in the execution (`items`: ascending). */
export function keepWait(
	context: IExecuteFunctions,
	key: string,
	items: number[],
	skippedNumbers: IDataObject = {},
): void {
	const nodeContext = context.getContext('node');
	nodeContext[WAIT_CONTEXT_KEY] = storedText(key, context.getInputData().length, items);
	if (Object.keys(skippedNumbers).length > 0)
		nodeContext[SKIPPED_CONTEXT_KEY] = JSON.stringify(skippedNumbers);
	else delete nodeContext[SKIPPED_CONTEXT_KEY];
}

/** The resume reads it back; undefined when the execution keeps none or it cannot be read. */
export function keptWait(context: IWebhookFunctions): StoredWait | undefined {
	try {
		const nodeContext: IDataObject | undefined = savedNodeContextOf(context);
		const stored = parseStored(nodeContext?.[WAIT_CONTEXT_KEY]);
		return (
			stored && { ...stored, skippedNumbers: parseSkipped(nodeContext?.[SKIPPED_CONTEXT_KEY]) }
		);
	} catch {
		return undefined;
	}
}
