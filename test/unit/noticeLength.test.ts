import type { ICredentialType, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';

/* eslint-disable @typescript-eslint/no-require-imports */
const {
	noticeProblems,
	wordCount,
	sentenceCount,
	noticeVariants,
	MAX_NOTICE_WORDS,
	MAX_NOTICE_SENTENCES,
} = require('../lib/noticeLength') as {
	noticeProblems: (text: string) => string[];
	wordCount: (text: string) => number;
	sentenceCount: (text: string) => number;
	noticeVariants: (text: string) => string[];
	MAX_NOTICE_WORDS: number;
	MAX_NOTICE_SENTENCES: number;
};

/**
 * A notice is read before the first field, so it says one thing in at most 60
 * words and one or two sentences; the rest is in the docs page the node's Docs link opens.
 * Every notice is checked as it is in the description: each displayOptions variant (the same
 * name may appear once per operation with its own text), nested ones in collections, the
 * trigger's panel texts, the credentials' notices, and each text an expression can show.
 */

interface Notice {
	where: string;
	text: string;
}

function noticesIn(properties: INodeProperties[], where: string, out: Notice[]): void {
	properties.forEach((property, index) => {
		const here = `${where} > ${property.name}#${index}`;
		if (property.type === 'notice') out.push({ where: here, text: property.displayName });
		for (const option of (property.options ?? []) as Array<
			Partial<INodeProperties> & { values?: INodeProperties[] }
		>) {
			if (option.values) noticesIn(option.values, `${here} > ${String(option.name)}`, out);
			else if (typeof option.type === 'string') noticesIn([option as INodeProperties], here, out);
		}
	});
}

function nodeNotices(description: INodeTypeDescription): Notice[] {
	const out: Notice[] = [];
	noticesIn(description.properties, description.displayName, out);
	const panel = description.triggerPanel;
	if (panel && typeof panel === 'object') {
		const help = panel.executionsHelp;
		if (help && typeof help === 'object') {
			out.push({
				where: `${description.displayName}: trigger panel, not published`,
				text: help.inactive,
			});
			out.push({
				where: `${description.displayName}: trigger panel, published`,
				text: help.active,
			});
		}
		if (typeof panel.activationHint === 'string')
			out.push({
				where: `${description.displayName}: trigger panel, activation hint`,
				text: panel.activationHint,
			});
	}
	return out;
}

function credentialNotices(credential: ICredentialType): Notice[] {
	const out: Notice[] = [];
	noticesIn(credential.properties, credential.displayName, out);
	return out;
}

const notices: Notice[] = [
	...nodeNotices(new CisAutoCall().description),
	...nodeNotices(new CisAutoCallTrigger().description),
	...[new CisAutoCallApi(), new CisAutoCallLoginApi(), new CisAutoCallWebhookSecretApi()].flatMap(
		credentialNotices,
	),
];

describe('the notice measure itself', () => {
	test.each([
		['One sentence.', 2, 1],
		[
			'Paste the URL (in n8n 1.x: "Execute step"); e.g. 1.03 is 3 calls per second. Then publish.',
			17,
			2,
		],
		['It says "Wait at Most." Then it goes on! Really?', 10, 3],
		['Starting a task phones everyone already in it, at real cost', 11, 1],
	])('%j has %d words and %d sentences', (text, words, sentences) => {
		expect(wordCount(text)).toBe(words);
		expect(sentenceCount(text)).toBe(sentences);
	});

	test('a notice of 61 words, or of three sentences, is refused', () => {
		expect(noticeProblems(Array.from({ length: 61 }, () => 'word').join(' '))).toEqual([
			'61 words (at most 60)',
		]);
		expect(noticeProblems('One. Two. Three.')).toEqual(['3 sentences (at most 2)']);
	});

	test('an expression is measured by each text it can show, and one it cannot read is refused', () => {
		expect(
			noticeVariants('={{ $parameter.mode === "a" ? "Short one." : "Another short one." }}'),
		).toEqual(['Short one.', 'Another short one.']);
		expect(noticeVariants('=Calls {{ $parameter.count }} people.')).toEqual(['Calls … people.']);
		expect(
			noticeProblems(
				`={{ $parameter.x ? "${Array.from({ length: 61 }, () => 'w').join(' ')}" : "ok" }}`,
			),
		).toEqual(['61 words (at most 60)']);
		expect(noticeProblems('={{ $parameter.text }}')).toEqual([
			'an expression whose text cannot be read here',
		]);
	});
});

test('both nodes and the credentials have notices to check', () => {
	// the wait operations (two texts), the AI Agent notices, the trigger's modes and panel
	expect(notices.length).toBeGreaterThan(12);
	expect(notices.filter(({ where }) => /waitNotice/.test(where)).length).toBe(2);
});

test(`every notice is at most ${MAX_NOTICE_WORDS} words and ${MAX_NOTICE_SENTENCES} sentences`, () => {
	const problems = notices.flatMap(({ where, text }) =>
		noticeProblems(text).map((problem) => `${where}: ${problem}: ${JSON.stringify(text)}`),
	);
	expect(problems).toEqual([]);
});
