import type {
	ICredentialType,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

/**
 * Every text of a node or credential description that the editor shows, with where it comes from,
 * for the words check (editorWords.js). Parameter names and values are not texts; placeholders
 * that show an expression are marked so that only their prose is checked.
 */
export interface EditorText {
	where: string;
	text: string;
}

type Entry = INodeProperties | INodePropertyOptions | INodePropertyCollection;

function isProperty(entry: Entry): entry is INodeProperties {
	return typeof (entry as INodeProperties).type === 'string' && 'default' in entry;
}

function isCollection(entry: Entry): entry is INodePropertyCollection {
	return Array.isArray((entry as INodePropertyCollection).values);
}

/** Texts of one property and of everything nested in it (options, collections, fixed collections). */
function propertyTexts(entry: Entry, path: string, out: EditorText[]): void {
	const here = `${path}${'name' in entry ? String(entry.name) : '?'}`;
	const add = (field: string, value: unknown) => {
		if (typeof value === 'string' && value.trim() !== '' && !value.startsWith('='))
			out.push({ where: `${here}.${field}`, text: value });
	};
	if (isProperty(entry)) {
		add('displayName', entry.displayName);
		add('description', entry.description);
		add('placeholder', entry.placeholder);
		add('hint', entry.hint);
		for (const option of (entry.options ?? []) as Entry[]) propertyTexts(option, `${here} > `, out);
		return;
	}
	if (isCollection(entry)) {
		add('displayName', entry.displayName);
		for (const value of entry.values) propertyTexts(value, `${here} > `, out);
		return;
	}
	const option = entry as INodePropertyOptions;
	add('name', option.name);
	add('description', option.description);
}

/** Every text the editor shows for a node description (all versions: one description holds them all). */
export function nodeTexts(description: INodeTypeDescription): EditorText[] {
	const out: EditorText[] = [];
	const top = description.displayName;
	out.push({ where: `${top}.displayName`, text: description.displayName });
	out.push({ where: `${top}.description`, text: description.description });
	const panel = description.triggerPanel;
	if (panel && typeof panel === 'object') {
		if (typeof panel.header === 'string')
			out.push({ where: `${top}.triggerPanel.header`, text: panel.header });
		const help = panel.executionsHelp;
		if (help && typeof help === 'object') {
			out.push({ where: `${top}.triggerPanel.inactive`, text: help.inactive });
			out.push({ where: `${top}.triggerPanel.active`, text: help.active });
		}
		if (typeof panel.activationHint === 'string')
			out.push({ where: `${top}.triggerPanel.activationHint`, text: panel.activationHint });
	}
	for (const property of description.properties) propertyTexts(property, `${top}: `, out);
	return out;
}

/** Every text the editor shows for a credential type. */
export function credentialTexts(credential: ICredentialType): EditorText[] {
	const out: EditorText[] = [
		{ where: `${credential.name}.displayName`, text: credential.displayName },
	];
	for (const property of credential.properties)
		propertyTexts(property, `${credential.name}: `, out);
	return out;
}
