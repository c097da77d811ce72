import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

/**
 * The trigger's own words for call-task fields it shares with the action node (shared/callTaskFields.ts),
 * where the action node's text would not fit the trigger. Only texts change here: names, values, defaults
 * and displayOptions stay, so stored workflows read the same.
 */

interface Texts {
	displayName?: string;
	description?: string;
	/** Option names by option value. */
	options?: Record<string, string>;
}

const TEXTS: Record<string, Texts> = {
	extraFields: {
		description:
			'Settings of the service that this node does not show yet, as JSON merged into the new task last (the README has examples). Webhook targets given here are added to this trigger.',
	},
};

function renamed(option: INodePropertyOptions, names: Record<string, string> | undefined): INodePropertyOptions {
	const name = names?.[String(option.value)];
	return name === undefined ? option : { ...option, name };
}

/** `fields` with the trigger's words; nested collections are rewritten too. */
export function inTriggerWords(fields: INodeProperties[]): INodeProperties[] {
	return fields.map((field) => {
		const texts = TEXTS[field.name] ?? {};
		const result: INodeProperties = {
			...field,
			...(texts.displayName !== undefined ? { displayName: texts.displayName } : {}),
			...(texts.description !== undefined ? { description: texts.description } : {}),
		};
		if (field.type === 'options' || field.type === 'multiOptions') {
			result.options = (field.options as INodePropertyOptions[]).map((option) => renamed(option, texts.options));
		} else if (field.type === 'collection') {
			result.options = inTriggerWords(field.options as INodeProperties[]);
		} else if (field.type === 'fixedCollection') {
			result.options = (field.options as INodePropertyCollection[]).map((group) => ({ ...group, values: inTriggerWords(group.values) }));
		}
		return result;
	});
}
