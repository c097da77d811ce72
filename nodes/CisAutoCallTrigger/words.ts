import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

/**
 * The trigger's words for the call-task fields it shares with the action node (shared/callTaskFields.ts):
 * the shared table still carries some of the API's words, and the trigger shows none of them (issue 19).
 * Only texts change here: names, values, defaults and displayOptions stay, so stored workflows read the same.
 */

interface Texts {
	displayName?: string;
	description?: string;
	/** Option names by option value. */
	options?: Record<string, string>;
}

const TEXTS: Record<string, Texts> = {
	cidType: { options: { default: "The Line's Default Number" } },
	cpsMode: { options: { raw: 'Exact Intensity Value' } },
	callsPerSecond: { description: 'How many calls the task starts each second' },
	secondsBetweenCalls: { description: 'How many seconds pass between two calls' },
	cps: {
		displayName: 'Intensity Value',
		description: "The service's own intensity number, sent as it is: 1.03 is 3 calls per second, 0.97 is one call every 3 seconds",
	},
	extraFields: {
		description:
			'Settings of the service that this node does not show yet, as JSON merged into the new task last (the README has examples). Webhook targets given here are added to this trigger.',
	},
	providerId: { description: 'Identifier of your own telephone line (trunk) in the service; only with a line of your own' },
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
