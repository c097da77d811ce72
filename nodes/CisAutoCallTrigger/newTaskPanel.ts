import type { INodeProperties } from 'n8n-workflow';

import { shortCallTaskPanel, shortPanelReader } from '../shared/callTaskPanel';
import type { ReadParameter } from '../shared/parameterReaders';

/**
 * "New Call Task" in trigger version 2: the shared short panel (shared/callTaskPanel.ts) with the
 * trigger's own settings of the task under "Advanced". Versions 1 and 1.1 keep every field on the panel.
 */

/** The first version with the short panel. */
export const SHORT_PANEL_VERSION = 2;

/** Trigger fields (top level in version 1) that version 2 keeps in "Advanced". */
const ADVANCED_FIELDS = ['partialResults', 'delay', 'oldTask'];

/**
 * The shared call-task fields as the trigger shows them: only Extra Fields has the trigger's own
 * text (its webhook targets are added to this trigger). Names, values, defaults and displayOptions
 * stay, so stored workflows read the same.
 */
export function inTriggerWords(fields: INodeProperties[]): INodeProperties[] {
	return fields.map((field) => {
		if (field.name === 'extraFields') {
			return {
				...field,
				hint: 'The README has examples. Webhook targets given here are added to this trigger.',
			};
		}
		if (field.type === 'collection')
			return { ...field, options: inTriggerWords(field.options as INodeProperties[]) };
		return field;
	});
}

/** Version 2's panel for New Call Task. */
export function shortPanel(triggerFields: INodeProperties[]): INodeProperties[] {
	const advanced = ADVANCED_FIELDS.map((name) => {
		const field = triggerFields.find((candidate) => candidate.name === name);
		if (!field) throw new Error(`No trigger field named ${name}`);
		return field;
	});
	return shortCallTaskPanel({ words: inTriggerWords, advanced });
}

/** Reads version 2's parameters by version 1's names, so one body builder serves every version. */
export function readerFor(read: ReadParameter, typeVersion: number): ReadParameter {
	return typeVersion < SHORT_PANEL_VERSION ? read : shortPanelReader(read, ADVANCED_FIELDS);
}
