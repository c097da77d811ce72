import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { credentialTexts, type EditorText, nodeTexts } from '../lib/editorTexts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findBanned } = require('../lib/editorWords') as {
	findBanned: (text: string) => string[];
};

/**
 * No text the editor shows (labels, descriptions, placeholders, hints, notices,
 * option names, credential fields) speaks the API (test/lib/editorWords.js has the list).
 */

function offenders(texts: EditorText[]): string[] {
	return texts.flatMap(({ where, text }) => {
		const found = findBanned(text);
		return found.length === 0 ? [] : [`${where}: ${found.join(', ')} in ${JSON.stringify(text)}`];
	});
}

describe('the words check itself', () => {
	test.each([
		['Status: BLANK', ['BLANK']],
		['sent as cps = 1.03', ['cps']],
		['Raw Value (Cps)', ['Raw Value', 'cps']],
		['see the spec', ['spec']],
		['set webhookUrls', ['webhookUrls']],
		['Events "Candidate Changed"', ['Candidate Changed']],
		['CALL_ENDED arrives', ['CALL_ENDED']],
	])('finds the API words in %j', (text, expected) => {
		expect(findBanned(text)).toEqual(expected);
	});

	test.each([
		'A call ended. The person is done.',
		'Use {{ $json.taskId }} from the trigger',
		'Paused tasks can be resumed; Ready, Running, Stopped, Finished',
		'n8n keeps the data',
		'the process is described in the README',
	])('lets plain words through: %j', (text) => {
		expect(findBanned(text)).toEqual([]);
	});
});

test("the trigger speaks the user's words (every version)", () => {
	expect(offenders(nodeTexts(new CisAutoCallTrigger().description))).toEqual([]);
});

test("the credentials speak the user's words", () => {
	const texts = [
		new CisAutoCallApi(),
		new CisAutoCallLoginApi(),
		new CisAutoCallWebhookSecretApi(),
	].flatMap(credentialTexts);
	expect(offenders(texts)).toEqual([]);
});

test("the action node speaks the user's words (every version)", () => {
	expect(offenders(nodeTexts(new CisAutoCall().description))).toEqual([]);
});
