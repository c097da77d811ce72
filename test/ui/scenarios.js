'use strict';
/**
 * What a user sees in n8n's editor, checked in a real browser. Each scenario gets the context
 * built by test/ui/run.js: { page, url, checks, types: {action, trigger}, sim, images, client }.
 */
const crypto = require('crypto');
const path = require('path');
const {
	closeNdv,
	isShown,
	ndvOf,
	nodePanelEntryDescription,
	normalise,
	openNewWorkflow,
	optionsOf,
	parametersOf,
	screenshot,
	searchNodePanel,
	selectOption,
	shownParameterTexts,
} = require('./editor');
const {
	leadWebhook,
	apiRequestsSince,
	chain,
	cisNode,
	codeNode,
	manualTrigger,
	noOp,
	triggerNode,
	sleep,
	NO_REDIAL,
	MANUAL,
} = require('../e2e/harness');
const {
	displayedCredentials,
	displayedProperties,
	hiddenProperties,
	mainAuthField,
	operationsOf,
	valuesOf,
	fieldCount,
	FIELD_COUNTS,
} = require('./expected');
const { findBanned } = require('../lib/editorWords');
const {
	noticeProblems,
	wordCount,
	MAX_NOTICE_WORDS,
	MAX_NOTICE_SENTENCES,
} = require('../lib/noticeLength');
const { TRIGGER_TYPE, webhookTarget, startCrmStub } = require('../../scripts/lib/playground');
// The built package's own text (dist/ exists only after the build, so it is required by path: the
// tools' type-check, tsconfig.tools.json, runs without a build).
/** @type {{ LOCAL_URL_MESSAGE: string }} */
const { LOCAL_URL_MESSAGE } = require(
	path.join(
		__dirname,
		'..',
		'..',
		'dist',
		'nodes',
		'CisAutoCallTrigger',
		'registration',
		'publicUrl',
	),
);
const { secs, servedNodeTypes } = require('../lib/suite');

const ENTRY = 'CIS Auto-Call';

/** Developer wording that must not reach the user. */
const DEVELOPER_WORDING = [
	/\bspec\b/i,
	/\bCIS API\b/,
	/\bendpoint\b/i,
	/\bpayload\b/i,
	/\bcamelCase\b/,
];

/** Compares what the editor shows with what the description displays for these values. */
async function compareWithDescription(page, description, values) {
	const texts = await shownParameterTexts(page);
	const inCredentialWindow = mainAuthField(description);
	const missing = displayedProperties(description, values).filter(
		(property) => property !== inCredentialWindow && !isShown(texts, property),
	);
	const unexpected = hiddenProperties(description, values).filter(
		(property) => property.type !== 'notice' && isShown(texts, property),
	);
	const credentialsExpected = displayedCredentials(description, values).length > 0;
	// The label is there with the list of credentials, or with the "Connect to …" button n8n shows
	// for a credential type that has no saved credential yet.
	const credential = ndvOf(page).getByTestId('credentials-label').first();
	await credential
		.waitFor({ state: credentialsExpected ? 'visible' : 'hidden', timeout: 3000 })
		.catch(() => undefined);
	const credentialsShown = await credential.isVisible();
	const problems = [];
	if (missing.length)
		problems.push(
			`the description displays but the editor hides: ${missing.map((p) => `"${p.displayName}" (${p.name})`).join(', ')}`,
		);
	if (unexpected.length)
		problems.push(
			`the editor shows what the description hides: ${unexpected.map((p) => `"${p.displayName}"`).join(', ')}`,
		);
	if (credentialsExpected !== credentialsShown) {
		const slot = await ndvOf(page)
			.getByTestId('node-credentials-slot')
			.innerText()
			.catch(() => '(no credential slot)');
		problems.push(
			`credential selector ${credentialsShown ? 'shown' : 'hidden'}, the description ${credentialsExpected ? 'displays' : 'hides'} it; the panel shows: ${normalise(slot).slice(0, 120)}`,
		);
	}
	return {
		problems,
		texts,
		shown: displayedProperties(description, values),
		notices: shownNotices(texts, description, values),
	};
}

/** The notices the panel shows, as the editor shows them: [{name, text}] (matched to the description's notices). */
function shownNotices(texts, description, values) {
	return displayedProperties(description, values)
		.filter((property) => property.type === 'notice')
		.map((notice) => {
			const wanted = normalise(notice.displayName.replace(/<[^>]+>/g, '')).slice(0, 80);
			const lines = texts.find((item) => normalise(item.join(' ')).includes(wanted));
			return lines ? { name: notice.name, text: normalise(lines.join(' ')) } : null;
		})
		.filter(Boolean);
}

/** Short notices: every notice read from the editor is at most 60 words and two sentences. */
async function checkNoticeLengths(checks, label, seen) {
	return checks.check(
		`${label}: every notice the editor shows is at most ${MAX_NOTICE_WORDS} words and ${MAX_NOTICE_SENTENCES} sentences`,
		async () => {
			if (!seen.length) throw new Error('no notice was read from the editor');
			const problems = seen.flatMap(({ where, text }) =>
				noticeProblems(text).map((problem) => `${where}: ${problem}: «${text.slice(0, 100)}…»`),
			);
			if (problems.length) throw new Error([...new Set(problems)].join('\n'));
			const longest = seen.reduce((a, b) => (wordCount(b.text) > wordCount(a.text) ? b : a));
			return `${seen.length} notices read; the longest has ${wordCount(longest.text)} words (${longest.where})`;
		},
	);
}

/** The node panel from its parameters to its output pane (the empty input pane left out). */
async function panelScreenshot(page, file) {
	const parameters = await parametersOf(page).boundingBox();
	const ndv = await ndvOf(page).boundingBox();
	const x = Math.max(ndv.x, parameters.x - 24);
	await page.screenshot({
		path: file,
		clip: { x, y: ndv.y, width: ndv.x + ndv.width - x, height: ndv.height },
		animations: 'disabled',
	});
	return file;
}

/** The API words (test/lib/editorWords.js) in texts read from the editor, as "word in «text»" lines. */
function apiWordsIn(texts) {
	const found = [];
	for (const text of new Set(texts)) {
		const words = findBanned(text);
		if (words.length) found.push(`${words.join(', ')} in «${text.slice(0, 100)}»`);
	}
	return found;
}

/** Compares the fields a panel shows before any collection is opened with FIELD_COUNTS (expected.js). */
function checkFieldCount(texts, description, values, expected) {
	const inCredentialWindow = mainAuthField(description);
	const shown = displayedProperties(description, values).filter(
		(property) =>
			property.type !== 'notice' && property !== inCredentialWindow && isShown(texts, property),
	).length;
	const described = fieldCount(description, values);
	if (shown !== expected || described !== expected) {
		throw new Error(
			`${shown} fields on the panel (${described} in the description), expected.js says ${expected}`,
		);
	}
	return `${shown} fields`;
}

function developerWordingIn(text) {
	return DEVELOPER_WORDING.filter((pattern) => pattern.test(text)).map((pattern) => {
		const match = text.match(pattern);
		const at = Math.max(0, match.index - 40);
		return `…${text.slice(at, match.index + 40)}…`;
	});
}

/* ------------------------------------------------------------------ node panel */

async function nodePanel(ctx) {
	const { page, url, checks, types, images } = ctx;
	await openNewWorkflow(page, url);
	await page.getByTestId('canvas-add-button').click();
	for (const query of ['auto-call', 'calls', 'voice bot', 'dialer', 'outbound call']) {
		await checks.check(
			`node panel: searching "${query}" for a trigger lists ${ENTRY} first`,
			async () => {
				const names = await searchNodePanel(page, query);
				if (names[0] !== ENTRY) throw new Error(`order: ${names.slice(0, 5).join(' | ')}`);
				return names.slice(0, 3).join(' | ');
			},
		);
	}
	// n8n ranks popular built-in nodes up: an exact alias match (the best score a word can get) still
	// comes after Execute Sub-workflow and Calendly for "call".
	await checks.check(
		`node panel: searching "call" for a trigger lists ${ENTRY} among the first three`,
		async () => {
			const names = await searchNodePanel(page, 'call');
			const rank = names.indexOf(ENTRY) + 1;
			if (rank < 1 || rank > 3) throw new Error(`order: ${names.slice(0, 5).join(' | ')}`);
			return `rank ${rank}: ${names.slice(0, 3).join(' | ')}`;
		},
	);
	await checks.check(
		`node panel: the ${ENTRY} entry shows a description of the whole package, not only of the trigger`,
		async () => {
			await searchNodePanel(page, 'CIS');
			const text = await nodePanelEntryDescription(page, ENTRY);
			// n8n shows the trigger's description for a node merged with its trigger; it has to speak for both.
			if (text !== normalise(types.trigger.description)) throw new Error(`shown: "${text}"`);
			if (/^starts the workflow/i.test(text))
				throw new Error(`"${text}" describes the trigger only`);
			const missing = ['call task', 'candidate', 'event'].filter(
				(word) => !text.toLowerCase().includes(word),
			);
			if (missing.length) throw new Error(`"${text}" does not mention: ${missing.join(', ')}`);
			return `"${text}"`;
		},
	);
	await checks.check(
		`node panel: ${ENTRY} lists its triggers and its ${operationsOf(types.action).length} actions with their own texts`,
		async () => {
			await page
				.getByTestId('node-creator-item-name')
				.getByText(ENTRY, { exact: true })
				.first()
				.click();
			const creator = page.getByTestId('node-creator');
			const actionsHeader = creator.getByText(/^Actions \(\d+\)$/);
			await actionsHeader.click();
			await creator
				.getByTestId('node-creator-item-name')
				.getByText(operationsOf(types.action)[0].action, { exact: true })
				.waitFor();
			const text = await creator.innerText();
			const actions = operationsOf(types.action).map((operation) => operation.action);
			const missing = actions.filter((action) => !text.includes(action));
			if (missing.length) throw new Error(`actions not listed: ${missing.join(', ')}`);
			const badText = actions.filter((action) => /\b[a-z]+ s\b/.test(action));
			if (badText.length) throw new Error(`garbled action names: ${badText.join(', ')}`);
			return screenshot(creator, path.join(images, 'node-panel.png'));
		},
	);
}

/* ------------------------------------------------------------------ trigger (points 1, 2, 3, 7) */

async function addTriggerFromPanel(page, url) {
	await openNewWorkflow(page, url);
	await page.getByTestId('canvas-add-button').click();
	await searchNodePanel(page, 'CIS Auto-Call');
	await page
		.getByTestId('node-creator-item-name')
		.getByText(ENTRY, { exact: true })
		.first()
		.click();
	await page
		.getByTestId('node-creator')
		.getByTestId('node-creator-item-name')
		.getByText(/^On /)
		.first()
		.click();
	await ndvOf(page).waitFor();
	await parametersOf(page).waitFor();
}

/** The text n8n shows in the trigger's Parameters tab and its output side ("Test this trigger"). */
async function triggerPanelText(page) {
	return normalise(await ndvOf(page).innerText());
}

const PRODUCTION_URL = /https?:\/\/[^\s"']+\/webhook\/[0-9a-f-]{36}\/webhook\b/;

async function trigger(ctx) {
	const { page, url, checks, types, images } = ctx;
	const description = types.trigger;
	const connectTo = description.properties.find((property) => property.name === 'connectTo');
	const modes = connectTo.options.map((option) => ({ value: option.value, name: option.name }));
	await addTriggerFromPanel(page, url);

	await checks.check('trigger: "Connect To" is shown with both choices', async () => {
		const visible = await parametersOf(page).getByTestId('parameter-input-connectTo').isVisible();
		if (!visible)
			throw new Error(
				'"Connect To" is not in the panel: New Call Task is the only mode a user can reach',
			);
		const names = (await optionsOf(page, 'connectTo')).map((option) => option.name);
		const wanted = modes.map((mode) => mode.name);
		if (JSON.stringify(names) !== JSON.stringify(wanted))
			throw new Error(`choices: ${names.join(' | ')}; wanted ${wanted.join(' | ')}`);
		return names.join(' | ');
	});

	const triggerNotices = [];
	for (const mode of modes) {
		const values = { connectTo: mode.value };
		const label = `trigger: "${mode.name}" shows the fields and credential its description shows, and no others`;
		await checks.check(label, async () => {
			const input = parametersOf(page).getByTestId('parameter-input-connectTo');
			if (await input.isVisible()) await selectOption(page, 'connectTo', mode.name);
			else if (mode.value !== valuesOf(description, {}).connectTo)
				throw new Error('cannot switch: "Connect To" is not shown');
			const { problems, shown, notices } = await compareWithDescription(page, description, values);
			triggerNotices.push(
				...notices.map((notice) => ({ where: `${mode.name}: ${notice.name}`, text: notice.text })),
			);
			if (problems.length) throw new Error(problems.join('\n'));
			const file = path.join(
				images,
				`trigger-${mode.value === 'existing' ? 'existing' : 'new-task'}.png`,
			);
			return `${shown.length} parameters; ${await panelScreenshot(page, file)}`;
		});
		await checks.check(
			`trigger: "${mode.name}": ${FIELD_COUNTS.trigger[mode.value]} fields before any collection is opened (expected.js)`,
			async () => {
				return checkFieldCount(
					await shownParameterTexts(page),
					description,
					values,
					FIELD_COUNTS.trigger[mode.value],
				);
			},
		);
		await checks.check(
			`trigger: "${mode.name}": no API words in the panel (test/lib/editorWords.js)`,
			async () => {
				const texts = (await shownParameterTexts(page)).flat();
				texts.push(
					...(await optionsOf(page, 'connectTo'))
						.flatMap((option) => [option.name, option.description])
						.filter(Boolean),
				);
				const found = apiWordsIn(texts);
				if (found.length) throw new Error(found.slice(0, 8).join('\n'));
				return `${texts.length} texts read`;
			},
		);
		await checks.check(
			`trigger: "${mode.name}": the panel says how to get a test event and what publishing does`,
			async () => {
				const text = await triggerPanelText(page);
				const missing = [/test this trigger/i, /publish/i].filter((pattern) => !pattern.test(text));
				if (missing.length) throw new Error(`the panel never mentions ${missing.join(', ')}`);
				if (mode.value !== 'existing' && !/mock data|sample data/i.test(text))
					throw new Error('no way to get sample data without a campaign');
				return 'test events and publishing explained';
			},
		);
		if (mode.value === 'existing') {
			await checks.check(
				'trigger: "Existing Task or Template" shows the production URL to copy and where the secret goes',
				async () => {
					const webhooks = ndvOf(page).getByText('Webhook URLs', { exact: true });
					await webhooks.click();
					await ndvOf(page).getByText('Production URL', { exact: true }).click();
					const text = await triggerPanelText(page);
					const url = text.match(PRODUCTION_URL);
					if (!url) throw new Error('no production URL is shown');
					if (!/\?secret=/.test(text))
						throw new Error('the panel does not say that ?secret= goes at the end');
					await webhooks.click();
					return `${url[0]} (+ ?secret= and the credential's secret)`;
				},
			);
			await checks.check(
				'trigger: "New Call Task" shows no URL to paste (the trigger registers itself)',
				async () => {
					await selectOption(
						page,
						'connectTo',
						modes.find((other) => other.value !== 'existing').name,
					);
					const shown = await ndvOf(page).getByText('Webhook URLs', { exact: true }).isVisible();
					await selectOption(page, 'connectTo', mode.name);
					if (shown) throw new Error('"Webhook URLs" is shown in New Call Task mode');
					return 'Webhook URLs hidden';
				},
			);
		} else {
			await checks.check(
				'trigger: "New Call Task": the rest of the settings wait in "Campaign Settings" and "Advanced"',
				async () => {
					const texts = await shownParameterTexts(page);
					const collections = displayedProperties(description, values).filter(
						(property) => property.type === 'collection',
					);
					const names = collections.map((property) => property.displayName);
					for (const wanted of ['Campaign Settings', 'Advanced']) {
						if (!names.includes(wanted))
							throw new Error(`no "${wanted}" collection (collections: ${names.join(', ')})`);
					}
					const missing = collections.filter((property) => !isShown(texts, property));
					if (missing.length)
						throw new Error(
							`not on the panel: ${missing.map((property) => property.displayName).join(', ')}`,
						);
					const inside = collections.map(
						(property) => `${property.displayName} (${property.options.length})`,
					);
					return inside.join(', ');
				},
			);
		}
	}
	await checkNoticeLengths(checks, 'trigger', triggerNotices);
	await closeNdv(page);
}

/* ------------------------------------------------------------------ action node (points 4, 6, 8, 9, 10) */

async function addActionAfterTrigger(page, actionNames) {
	await page.getByTestId('canvas-handle-plus').first().click();
	const names = await searchNodePanel(page, 'call');
	await page
		.getByTestId('node-creator-item-name')
		.getByText(ENTRY, { exact: true })
		.first()
		.click();
	const actions = page.getByTestId('node-creator').getByTestId('node-creator-item-name');
	await actions.getByText(actionNames[0], { exact: true }).first().click();
	await ndvOf(page).waitFor();
	await parametersOf(page).getByTestId('parameter-input-resource').waitFor();
	return names;
}

async function action(ctx) {
	const { page, checks, types, images } = ctx;
	const description = types.action;
	let names;
	await checks.check(
		`node panel: searching "call" for a next step lists ${ENTRY} among the first three`,
		async () => {
			names = await addActionAfterTrigger(
				page,
				operationsOf(description).map((operation) => operation.action),
			);
			const rank = names.indexOf(ENTRY) + 1;
			if (rank < 1 || rank > 3) throw new Error(`order: ${names.slice(0, 5).join(' | ')}`);
			return `rank ${rank}: ${names.slice(0, 3).join(' | ')}`;
		},
	);
	if (!(await parametersOf(page).getByTestId('parameter-input-resource').isVisible())) {
		throw new Error("the action node's panel did not open");
	}
	await credentials(ctx);
	const seenTexts = [];
	const actionNotices = [];
	for (const operation of operationsOf(description)) {
		const values = { resource: operation.resource, operation: operation.operation };
		await checks.check(
			`action: ${operation.resourceName} → ${operation.operationName}: the required fields appear`,
			async () => {
				await selectOption(page, 'resource', operation.resourceName);
				const operationOptions = await optionsOf(page, 'operation');
				seenTexts.push(
					...operationOptions.map((option) => `${option.name}: ${option.description}`),
				);
				await selectOption(page, 'operation', operation.operationName);
				const { problems, texts, shown, notices } = await compareWithDescription(
					page,
					description,
					values,
				);
				seenTexts.push(...texts.map((lines) => lines.join(' ')));
				actionNotices.push(
					...notices.map((notice) => ({
						where: `${operation.resourceName} → ${operation.operationName}: ${notice.name}`,
						text: notice.text,
					})),
				);
				const required = shown.filter((property) => property.required);
				const missingRequired = required.filter((property) => !isShown(texts, property));
				if (missingRequired.length)
					problems.unshift(
						`required but not shown: ${missingRequired.map((p) => p.displayName).join(', ')}`,
					);
				if (problems.length) throw new Error(problems.join('\n'));
				if (operation.resource === 'candidate' && operation.operation === 'createAndRun') {
					await panelScreenshot(page, path.join(images, 'action-create-and-run.png'));
				}
				return required.map((property) => property.displayName).join(', ') || 'no required field';
			},
		);
		const key = `${operation.resource}.${operation.operation}`;
		await checks.check(
			`action: ${operation.resourceName} → ${operation.operationName}: ${FIELD_COUNTS.action[key]} fields before any collection is opened (expected.js)`,
			async () => {
				return checkFieldCount(
					await shownParameterTexts(page),
					description,
					values,
					FIELD_COUNTS.action[key],
				);
			},
		);
	}
	await checkNoticeLengths(checks, 'action: the panels of the 14 operations', actionNotices);
	await checks.check(
		'action: no developer wording in labels, descriptions, notices and choices',
		async () => {
			if (seenTexts.length < operationsOf(description).length)
				throw new Error(`only ${seenTexts.length} texts could be read`);
			const found = [...new Set(seenTexts.flatMap(developerWordingIn))];
			if (found.length) throw new Error(found.slice(0, 8).join('\n'));
			return `${seenTexts.length} texts read`;
		},
	);
	await checks.check(
		'action: no API words in the panels of the 14 operations (test/lib/editorWords.js)',
		async () => {
			const found = apiWordsIn(seenTexts);
			if (found.length) throw new Error(found.slice(0, 8).join('\n'));
			return `${seenTexts.length} texts read`;
		},
	);
	await checks.check(
		'action: irreversible operations say so, and id fields say where the id comes from',
		async () => {
			const problems = [];
			for (const operation of operationsOf(description).filter((op) =>
				/depersonalize|deleteRecording/.test(op.operation),
			)) {
				await selectOption(page, 'resource', operation.resourceName);
				await selectOption(page, 'operation', operation.operationName);
				const text = (await shownParameterTexts(page)).flat().join(' ');
				if (!/cannot be undone/i.test(text))
					problems.push(
						`${operation.resourceName} → ${operation.operationName}: no "cannot be undone"`,
					);
				const ids = displayedProperties(description, {
					resource: operation.resource,
					operation: operation.operation,
				}).filter((property) => /id$/i.test(property.name) && property.required);
				for (const id of ids) {
					if (!/\bfrom\b|event|output|the `?id`?/i.test(id.description || '')) {
						problems.push(
							`${operation.resourceName} → ${operation.operationName}: "${id.displayName}" does not say where the id comes from`,
						);
					}
				}
			}
			if (problems.length) throw new Error(problems.join('\n'));
			return 'Delete Recording, Depersonalize (call and candidate)';
		},
	);
	await checks.check(
		'action: Create and Run tells to pin data while building (a re-run dials again)',
		async () => {
			await selectOption(page, 'resource', 'Candidate');
			await selectOption(page, 'operation', 'Create and Run');
			const text = (await shownParameterTexts(page)).flat().join(' ');
			if (!/\bpin\b/i.test(text)) throw new Error('no notice about pinning data');
			return 'pin notice shown';
		},
	);
	await checks.check(
		'action: Call Task → Create: Candidate and Number limits are one field each, saying what 0 means',
		async () => {
			// Version 2 keeps them in "Campaign Settings", version 1 in "Additional Fields".
			const additional = displayedProperties(description, {
				resource: 'callTask',
				operation: 'create',
			}).find((property) => ['campaignSettings', 'additionalFields'].includes(property.name));
			const limits = (additional.options || []).filter((option) => /Limit$/.test(option.name));
			const problems = limits
				.filter((option) => option.type !== 'number' || !/\b0\b/.test(option.description || ''))
				.map(
					(option) =>
						`"${option.displayName}" is ${option.type}${option.type === 'number' ? ' without a word on 0' : ''}`,
				);
			if (limits.length < 2) problems.push('the limits are missing');
			if (problems.length) throw new Error(problems.join('; '));
			return limits.map((option) => option.displayName).join(', ');
		},
	);
	await closeNdv(page);
	await checks.check(
		'action: the node on the canvas reads as words, not internal names',
		async () => {
			const subtitle = normalise(
				await page.getByTestId('canvas-node').filter({ hasNotText: 'Trigger' }).last().innerText(),
			);
			const internal = [];
			for (const property of description.properties.filter(
				(p) => p.name === 'resource' || p.name === 'operation',
			)) {
				for (const option of property.options) {
					if (
						option.value !== option.name &&
						new RegExp(`\\b${option.value}\\b`).test(subtitle) &&
						/[a-z][A-Z]/.test(option.value)
					) {
						internal.push(option.value);
					}
				}
			}
			if (internal.length)
				throw new Error(`"${subtitle}" shows ${[...new Set(internal)].join(', ')}`);
			return `"${subtitle}"`;
		},
	);
}

/* ------------------------------------------------------------------ credentials */

/** Opens "Create new credential" from the open node's credential selector, as a user does. */
async function openNewCredential(page) {
	const select = ndvOf(page).getByTestId('node-credentials-select');
	const button = ndvOf(page).getByRole('button', { name: /credential/i });
	await select.or(button).first().waitFor();
	if (await select.isVisible()) {
		await select.click();
		await page.getByTestId('node-credentials-select-item-new').click();
	} else {
		await ndvOf(page)
			.getByRole('button', { name: /credential/i })
			.first()
			.click();
	}
	await page.getByTestId('editCredential-modal').waitFor();
}

/** Run with the action node's panel open. */
async function credentials(ctx) {
	const { page, checks, sim, simToken } = ctx;
	const modal = page.getByTestId('editCredential-modal');
	await checks.check('credentials: a wrong token is refused and the test says why', async () => {
		await openNewCredential(page);
		await modal.getByTestId('credential-mode-dropdown-trigger').click();
		await page.getByRole('menuitem', { name: 'Access Token' }).click();
		await modal.getByTestId('parameter-input-accessToken').waitFor();
		await modal.getByTestId('parameter-input-baseUrl').locator('input').fill(sim.url);
		await modal.getByTestId('parameter-input-accessToken').locator('input').fill('not-the-token');
		await modal.getByTestId('credential-save-button').click();
		await modal.getByText('Couldn’t connect with these settings').waitFor({ timeout: 20000 });
		await modal.getByText('More details').click();
		const text = normalise(await modal.innerText());
		if (!/401/.test(text) || !/token/i.test(text))
			throw new Error(`the reason is not shown: ${text.slice(0, 300)}`);
		if (text.includes('not-the-token')) throw new Error('the token is shown in the message');
		const at = text.indexOf('401');
		return `"…${text.slice(Math.max(0, at - 30), at + 50)}…"`;
	});
	await checks.check(
		'credentials: the wrong-token text says what to do (where a new token comes from)',
		async () => {
			const text = normalise(await modal.innerText());
			const advice = /(new|fresh|another) token|token (from|in) |log in|Login/i.exec(text);
			if (!advice) throw new Error(`says what is wrong, not what to do: ${text.slice(0, 300)}`);
			return `"…${text.slice(Math.max(0, advice.index - 60), advice.index + 120)}…"`;
		},
	);
	await checks.check('credentials: the right token tests OK against the simulator', async () => {
		if (!(await modal.isVisible())) throw new Error('the credential window is not open');
		await modal.getByTestId('parameter-input-accessToken').locator('input').fill(simToken);
		await modal.getByTestId('credential-save-button').click();
		const ok = page.getByText('Connection tested successfully');
		await Promise.race([
			ok.waitFor({ timeout: 20000 }),
			modal.waitFor({ state: 'hidden', timeout: 20000 }),
		]);
		if (await modal.isVisible()) {
			const text = normalise(await modal.innerText());
			if (!text.includes('Connection tested successfully')) throw new Error(text.slice(0, 300));
			await modal
				.locator('.el-dialog__headerbtn, [aria-label="Close this dialog"]')
				.first()
				.click()
				.catch(() => page.keyboard.press('Escape'));
		}
		return 'Connection tested successfully';
	});
}

/* ------------------------------------------------------------------ a value where a field name is expected (point 5) */

/**
 * Manual Trigger → Code (one row) → Create and Run reading fields by name, with the phone dragged
 * into "Phone Field" ({{ $json.phone }}): run from the editor, the node's error is read in its panel.
 */
async function fieldNames(ctx) {
	const { page, url, checks, client, sim, credential } = ctx;
	await checks.check(
		'action: a value dragged into "Phone Field" is said in plain words, and nothing is sent',
		async () => {
			const workflow = await client.createWorkflow(
				chain('UI: value as field name', [
					manualTrigger(),
					codeNode('Lead', [{ phone: '79990001111', name: 'Ann' }]),
					cisNode(
						'Call the lead',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-1',
							inputMode: 'fromItems',
							phoneField: '={{ $json.phone }}',
						},
						credential,
					),
				]),
			);
			const mark = sim.requests.length;
			await page.goto(`${url}/workflow/${workflow.id}`);
			await page.getByTestId('execute-workflow-button').click();
			const node = page.getByTestId('canvas-node').filter({ hasText: 'Call the lead' });
			await node
				.getByTestId('node-issues')
				.or(node.locator('[data-test-id="canvas-node-status-error"]'))
				.first()
				.waitFor({ timeout: 30000 })
				.catch(() => undefined);
			await node.dblclick();
			const output = page.getByTestId('output-panel');
			await output
				.getByText(/not a field name/)
				.first()
				.waitFor({ timeout: 15000 });
			const text = normalise(await output.innerText());
			if (/nothing holds/.test(text)) throw new Error(`garbled: ${text.slice(0, 200)}`);
			const sent = apiRequestsSince(sim, mark).length;
			if (sent !== 0) throw new Error(`${sent} requests reached the service`);
			await closeNdv(page);
			return `"${text.match(/Invalid phoneField[^[]*/)[0].trim()}"; 0 requests`;
		},
	);
}

/* ------------------------------------------------------------------ guards where money is spent */

/**
 * New Call Task on this n8n (127.0.0.1, no public URL): publishing from the editor is refused with
 * the message that says how to set the public URL, and nothing reaches the service.
 */
async function localUrl(ctx) {
	const { page, url, checks, client, sim, credential, images } = ctx;
	await checks.check(
		'trigger: publishing "New Call Task" on a local n8n is refused in the editor, saying how to set N8N_WEBHOOK_URL; nothing is created',
		async () => {
			const trigger = {
				parameters: {
					connectTo: 'newTask',
					authentication: 'accessToken',
					events: ['CALL_ENDED'],
					name: 'UI local campaign',
					defaultExecData: 'bot-1',
					options: {},
				},
				id: '0b9f2f0e-0d47-4c7e-9a53-4a2e4f0f7a11',
				name: 'CIS Auto-Call Trigger',
				type: TRIGGER_TYPE,
				typeVersion: 2,
				position: [0, 0],
				webhookId: '6a1d8c53-6a55-4e4f-8a0c-2f0f4a7c9b21',
				credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
			};
			const workflow = await client.createWorkflow(
				chain('UI: New Call Task on a local n8n', [trigger, noOp()]),
			);
			const mark = sim.requests.length;
			await page.goto(`${url}/workflow/${workflow.id}`, { waitUntil: 'domcontentloaded' });
			await page.getByTestId('canvas-node').first().waitFor();
			await page.getByTestId('workflow-open-publish-modal-button').click();
			const publish = page.getByTestId('workflow-publish-button');
			await publish
				.waitFor({ timeout: 10000 })
				.then(() => publish.click())
				.catch(() => undefined);
			const message = page.getByText(LOCAL_URL_MESSAGE).first();
			await message.waitFor({ timeout: 30000 });
			const text = normalise(await page.locator('body').innerText());
			const at = text.indexOf(LOCAL_URL_MESSAGE);
			const around = text.slice(at, at + 600);
			if (!/N8N_WEBHOOK_URL/.test(around) && !/N8N_WEBHOOK_URL/.test(text))
				throw new Error(`the way out is not shown: "${around}"`);
			const creates = apiRequestsSince(sim, mark).filter(
				(request) => request.method === 'POST',
			).length;
			if (creates !== 0) throw new Error(`${creates} requests reached the service`);
			await page.screenshot({ path: path.join(images, 'trigger-local-url-refused.png') });
			return `"${around.slice(0, 160)}…"; 0 requests`;
		},
	);
}

/**
 * Dry Run: Candidate → Create and Run with Options → "Dry Run" (Options, parameter dryRun).
 * Run from the editor, the node outputs the request it would send;
 * the simulator's log shows that nothing was sent.
 */
async function dryRun(ctx) {
	const { page, url, checks, client, sim, credential } = ctx;
	await checks.check(
		'action: Dry Run in the editor shows the request that would be sent, and nothing is sent',
		async () => {
			const workflow = await client.createWorkflow(
				chain('UI: dry run', [
					manualTrigger(),
					codeNode('Lead', [{ phone: '79990001111', name: 'Ann' }]),
					cisNode(
						'Call the lead',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-1',
							inputMode: 'fromItems',
							phoneField: 'phone',
							options: { dryRun: true },
						},
						credential,
					),
				]),
			);
			const mark = sim.requests.length;
			await page.goto(`${url}/workflow/${workflow.id}`);
			await page.getByTestId('execute-workflow-button').click();
			const node = page.getByTestId('canvas-node').filter({ hasText: 'Call the lead' });
			await node.dblclick();
			const output = page.getByTestId('output-panel');
			await output.getByText(/POST/).first().waitFor({ timeout: 30000 });
			const text = normalise(await output.innerText());
			if (!/\/autoCall|candidate/i.test(text))
				throw new Error(`no request shown: ${text.slice(0, 200)}`);
			const sent = apiRequestsSince(sim, mark).length;
			if (sent !== 0) throw new Error(`${sent} requests reached the service`);
			await closeNdv(page);
			return `${text.slice(0, 120)}…; 0 requests`;
		},
	);
}

/**
 * n8n's Retry of a failed execution: the items the failed execution already sent are left out,
 * and the editor says so above the node's output (an execution hint), not as a plain success.
 */
async function retryLeftOut(ctx) {
	const { page, url, checks, client, sim, credential, images } = ctx;
	await checks.check(
		'action: a retry of a failed execution shows the left-out items in the output, with a notice saying why',
		async () => {
			const phones = ['79990002201', '79990002202', '79990002203'];
			const workflow = await client.createWorkflow(
				chain('UI: retry leaves out what was sent', [
					manualTrigger(),
					codeNode(
						'Leads',
						phones.map((phone) => ({ phone })),
					),
					cisNode(
						'Call the leads',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-1',
							phone: '={{ $json.phone }}',
							options: { concurrency: 1 },
						},
						credential,
					),
				]),
			);
			sim.injectFault({
				path: '/cis/api/v1/telephony/autoCallCandidate/single',
				status: 502,
				afterHandling: true,
				bodyIncludes: phones[2],
			});
			const failed = await client.runWorkflowManually(workflow.id, { timeoutMs: 60000 });
			if (failed.status !== 'error')
				throw new Error(`the first execution ended ${failed.status}, expected an error`);
			const res = await client.rawRest('POST', `/executions/${failed.id}/retry`, {
				loadWorkflow: false,
			});
			if (res.status !== 200) throw new Error(`retry answered ${res.status}`);
			const retriedId = (res.body && res.body.data !== undefined ? res.body.data : res.body).id;
			await client.getExecution(retriedId);
			await page.goto(`${url}/workflow/${workflow.id}/executions/${retriedId}`);
			// n8n 2.x shows the execution on the page itself; older editors in an iframe.
			const inFrame =
				(await page.locator('iframe').count()) > 0 &&
				(await page.getByTestId('canvas-node').count()) === 0;
			const frame = inFrame ? page.frameLocator('iframe').first() : page;
			const node = frame.getByTestId('canvas-node').filter({ hasText: 'Call the leads' });
			await node.waitFor({ timeout: 30000 }).catch(async (error) => {
				await page.screenshot({ path: path.join(images, 'failure-retry.png') });
				throw error;
			});
			await node.dblclick();
			const output = frame.getByTestId('output-panel');
			await output
				.getByText(/were not sent again/)
				.first()
				.waitFor({ timeout: 30000 })
				.catch(async (error) => {
					await page.screenshot({ path: path.join(images, 'failure-retry.png') });
					throw error;
				});
			const text = normalise(await output.innerText());
			if (!/3 items were not sent again/.test(text))
				throw new Error(`no notice: ${text.slice(0, 300)}`);
			const file = path.join(images, 'retry-left-out.png');
			await page.screenshot({ path: file, animations: 'disabled' });
			return `${text.match(/3 items were not sent again[^.]*\./)[0]}; ${file}`;
		},
	);
}

/* ------------------------------------------------------------------ Create and Run and Wait for Result */

const WAIT_OPERATION = { resource: 'candidate', operation: 'createAndRunAndWait' };

/** The operation's entry (its words in the Resource and Operation lists), from the description n8n serves. */
function waitOperationOf(description) {
	const entry = operationsOf(description).find(
		(op) => op.resource === WAIT_OPERATION.resource && op.operation === WAIT_OPERATION.operation,
	);
	if (!entry)
		throw new Error('the action node has no Candidate operation that waits for the result');
	return entry;
}

/** The value an input of the panel holds (a number field's digits, the chosen option's name). */
async function inputValueOf(page, parameterName) {
	return (
		await parametersOf(page)
			.getByTestId(`parameter-input-${parameterName}`)
			.locator('input')
			.first()
			.inputValue()
	).trim();
}

/**
 * Candidate → Create and Run and Wait for Result chosen in the panel the way a user does: the node
 * is added after a Manual Trigger from the node panel, then Resource and Operation are picked.
 */
async function waitPanel(ctx) {
	const { page, url, checks, types, images, client } = ctx;
	const description = types.action;
	const entry = waitOperationOf(description);
	const values = { ...WAIT_OPERATION };
	const notice = displayedProperties(description, values).find(
		(property) => property.type === 'notice' && /pauses/i.test(property.displayName),
	);
	const label = (name) =>
		(displayedProperties(description, values).find((property) => property.name === name) || {})
			.displayName;
	const waitNotices = [];
	const workflow = await client.createWorkflow(
		chain('UI: call and wait (panel)', [manualTrigger()]),
	);
	await page.goto(`${url}/workflow/${workflow.id}`);
	await page.getByTestId('canvas-node').first().waitFor();
	await addActionAfterTrigger(
		page,
		operationsOf(description).map((operation) => operation.action),
	);

	await checks.check(
		`wait panel: choosing ${entry.resourceName} → ${entry.operationName} shows the notice, "Wait at Most" 1 and "Wait Unit" Days`,
		async () => {
			await selectOption(page, 'resource', entry.resourceName);
			await selectOption(page, 'operation', entry.operationName);
			const texts = await shownParameterTexts(page);
			const panelText = normalise(texts.flat().join(' '));
			const problems = [];
			if (!notice) problems.push('the description has no notice for this operation');
			else if (!isShown(texts, notice)) problems.push('the notice is not on the panel');
			// What the notice must tell a user to set up before the workflow can wait.
			for (const words of [
				'pauses here until the call has a result',
				'published workflow',
				'CIS Auto-Call Trigger',
				'Production URL',
				'Wait at Most',
			]) {
				if (!panelText.includes(words)) problems.push(`the panel never says "${words}"`);
			}
			if (
				label('waitAtMost') !== 'Wait at Most' ||
				!texts.some((lines) => lines.includes('Wait at Most'))
			)
				problems.push('no "Wait at Most" field');
			if (label('waitUnit') !== 'Wait Unit' || !texts.some((lines) => lines.includes('Wait Unit')))
				problems.push('no "Wait Unit" field');
			const waitAtMost = await inputValueOf(page, 'waitAtMost').catch(
				(error) => `(unreadable: ${error.message.split('\n')[0]})`,
			);
			const waitUnit = await inputValueOf(page, 'waitUnit').catch(
				(error) => `(unreadable: ${error.message.split('\n')[0]})`,
			);
			if (waitAtMost !== '1')
				problems.push(`"Wait at Most" shows ${JSON.stringify(waitAtMost)}, expected 1`);
			if (waitUnit !== 'Days')
				problems.push(`"Wait Unit" shows ${JSON.stringify(waitUnit)}, expected Days`);
			if (problems.length) throw new Error(problems.join('\n'));
			// A taller window for the picture: the notice and both wait fields in one view.
			const viewport = page.viewportSize();
			await page.setViewportSize({ width: viewport.width, height: 1250 });
			await page.waitForTimeout(300);
			const file = await panelScreenshot(page, path.join(images, 'wait-panel.png')).finally(() =>
				page.setViewportSize(viewport),
			);
			const at = panelText.indexOf('pauses here');
			return `"…${panelText.slice(Math.max(0, at - 20), at + 60)}…", Wait at Most ${waitAtMost}, Wait Unit ${waitUnit}; ${file}`;
		},
	);

	await checks.check(
		`wait panel: ${entry.operationName} shows its own fields and no other operation's; ${FIELD_COUNTS.action['candidate.createAndRunAndWait']} fields (expected.js); no API words`,
		async () => {
			const { problems, texts, notices } = await compareWithDescription(page, description, values);
			waitNotices.push(
				...notices.map((notice) => ({
					where: `${entry.operationName}: ${notice.name}`,
					text: notice.text,
				})),
			);
			if (problems.length) throw new Error(problems.join('\n'));
			const count = checkFieldCount(
				texts,
				description,
				values,
				FIELD_COUNTS.action['candidate.createAndRunAndWait'],
			);
			const found = apiWordsIn(texts.map((lines) => lines.join(' ')));
			if (found.length) throw new Error(found.slice(0, 8).join('\n'));
			return `${count}: ${texts
				.map((lines) => lines[0])
				.filter((line) => line.length < 40)
				.join(', ')}`;
		},
	);

	await checkNoticeLengths(checks, `wait panel: ${entry.operationName}`, waitNotices);
	await checks.check(
		'wait panel: choosing Create and Run instead hides the notice, "Wait at Most" and "Wait Unit"',
		async () => {
			const other = operationsOf(description).find(
				(op) => op.resource === 'candidate' && op.operation === 'createAndRun',
			);
			await selectOption(page, 'operation', other.operationName);
			const texts = await shownParameterTexts(page);
			const still = [
				notice,
				...['waitAtMost', 'waitUnit'].map((name) =>
					description.properties.find((property) => property.name === name),
				),
			]
				.filter((property) => property && isShown(texts, property))
				.map((property) =>
					property.type === 'notice' ? 'the notice' : `"${property.displayName}"`,
				);
			await selectOption(page, 'operation', entry.operationName);
			if (still.length) throw new Error(`${other.operationName} still shows ${still.join(', ')}`);
			const back = await shownParameterTexts(page);
			if (!back.some((lines) => lines.includes('Wait at Most')))
				throw new Error(`choosing ${entry.operationName} again does not bring "Wait at Most" back`);
			return `${other.operationName}: ${texts.length} fields without them; back to ${entry.operationName}: they are there again`;
		},
	);
	await closeNdv(page);
}

const WAIT_SECRET = 'ui-wait-secret-0123456789abcdef';
/** How long the simulated call lasts (simulated seconds; at the suite's timeScale 0.05, 45 s: time to open the list while it waits). */
const WAIT_CALL_SECONDS = 900;

/** The execution's card in the editor's executions list of its workflow. */
function executionCard(page, executionId) {
	return page
		.locator('.execution-card')
		.filter({ has: page.locator(`a[href*="/executions/${executionId}"]`) });
}

/** The workflow's executions list in the editor, opened before the run (the editor loads slowly on a busy machine). */
async function openExecutionsList(page, url, workflowId) {
	await page.goto(`${url}/workflow/${workflowId}/executions`, { waitUntil: 'domcontentloaded' });
	await page.getByText('Executions', { exact: true }).first().waitFor({ timeout: 60000 });
}

/**
 * Waits until the execution's card in the list reads `word` (n8n refreshes the list by itself;
 * the page is loaded again once when it does not), then opens the execution from its card.
 * Returns the card's text, or throws with what the card read.
 */
async function openFromList(page, url, workflowId, executionId, word) {
	const card = executionCard(page, executionId);
	let text = '(no card)';
	const reads = async (ms) => {
		const deadline = Date.now() + ms;
		do {
			if (await card.isVisible()) text = normalise(await card.innerText());
			if (new RegExp(`\\b${word}\\b`).test(text)) return true;
			await page.waitForTimeout(500);
		} while (Date.now() < deadline);
		return false;
	};
	if (!(await reads(20000))) {
		await page.goto(`${url}/workflow/${workflowId}/executions/${executionId}`, {
			waitUntil: 'domcontentloaded',
		});
		if (!(await reads(45000)))
			throw new Error(`the card of execution ${executionId} reads "${text}", not "${word}"`);
	}
	await closeProductionChecklist(page);
	const link = card.locator('a').first();
	// The list opens its newest execution by itself; otherwise the user clicks the card.
	if ((await link.getAttribute('aria-current')) !== 'page') await link.click();
	// n8n 2.x shows the execution on the page itself; older editors in an iframe.
	await page
		.getByTestId('canvas-node')
		.or(page.locator('iframe'))
		.first()
		.waitFor({ timeout: 30000 });
	const inFrame =
		(await page.locator('iframe').count()) > 0 &&
		(await page.getByTestId('canvas-node').count()) === 0;
	const frame = inFrame ? page.frameLocator('iframe').first() : page;
	await frame.getByTestId('canvas-node').first().waitFor({ timeout: 30000 });
	await closeProductionChecklist(page);
	return { card, frame, text };
}

/** n8n 2.x opens its "Production Checklist" over the executions list once a workflow is published: closed as a user would. */
async function closeProductionChecklist(page) {
	const checklist = page.getByText('Production Checklist', { exact: true });
	if (!(await checklist.isVisible())) return;
	await page.keyboard.press('Escape');
	if (
		await checklist.waitFor({ state: 'hidden', timeout: 2000 }).then(
			() => true,
			() => false,
		)
	)
		return;
	const popover = page
		.locator('[data-reka-popper-content-wrapper]')
		.filter({ hasText: 'Production Checklist' });
	await popover
		.getByRole('button')
		.first()
		.click({ timeout: 5000 })
		.catch(() => undefined);
	await checklist.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
}

/** How the canvas draws a node: its box's classes, whether they say waiting, whether they say error. */
async function waitingLook(frame, nodeName) {
	const box = frame
		.getByTestId('canvas-node')
		.filter({ hasText: nodeName })
		.locator('[data-test-id$="-node"]')
		.first();
	const classes = String(await box.getAttribute('class'));
	return {
		classes,
		waiting: /(^|\s)waiting(\s|$)/.test(classes),
		error: /(^|\s)_?error(_|\s|$)/.test(classes),
	};
}

/**
 * A production run of "New lead (Webhook) → Call and wait → CRM update": the editor lists it as
 * waiting while the call lasts; once the call ended and the published CIS Auto-Call Trigger
 * (Existing Task or Template, its URL in the simulator's default template) handed the event over,
 * the same execution is listed as succeeded and CRM update's output holds the call's status.
 */
async function waitExecution(ctx) {
	const { page, url, checks, client, sim, credential, images } = ctx;
	const phone = '79995551001';
	const secretCred = await client.createCredential({
		name: 'UI wait secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: WAIT_SECRET },
	});
	const triggerWebhookId = crypto.randomUUID();
	const triggerUrl = `${url}/webhook/${triggerWebhookId}/webhook`;
	const trigger = triggerNode(
		'CIS Auto-Call Trigger',
		{ connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'] },
		null,
		triggerWebhookId,
	);
	trigger.typeVersion = 2;
	trigger.credentials = {
		cisAutoCallWebhookSecretApi: { id: String(secretCred.id), name: secretCred.name },
	};
	const triggerWf = await client.createWorkflow(
		chain('UI: call results (CIS Auto-Call Trigger)', [trigger, noOp()]),
	);
	const leadPath = `ui-wait-lead-${crypto.randomUUID()}`;
	const lead = leadWebhook(leadPath);
	const wait = cisNode(
		'Call and wait',
		{
			authentication: 'accessToken',
			resource: 'candidate',
			operation: 'createAndRunAndWait',
			botSettingsId: 'bot-wait',
			phone: '={{ $json.body.phone }}',
			candidateFields: { callbackData: '={{ JSON.stringify({ crmId: $json.body.crmId }) }}' },
			waitAtMost: 10,
			waitUnit: 'minutes',
		},
		credential,
		{ typeVersion: 2 },
	);
	const waitWf = await client.createWorkflow(
		chain('UI: new lead → call and wait → CRM update', [lead, wait, noOp('CRM update')]),
	);
	const callMs = sim.config.timeScale * WAIT_CALL_SECONDS * 1000;
	let executionId = null;
	try {
		await checks.check(
			'wait execution: a lead sent to the published workflow (New lead → Call and wait → CRM update) is listed as "Waiting" in the editor\'s executions list',
			async () => {
				await client.activate(triggerWf.id);
				await client.activate(waitWf.id);
				sim.setDefaultTemplate({
					webhookUrls: [
						webhookTarget(`${triggerUrl}?secret=${WAIT_SECRET}`, [
							'CALL_ENDED',
							'CANDIDATE_CHANGED',
						]),
					],
					redialStrategyOptions: NO_REDIAL,
				});
				sim.setOutcome(phone, {
					attempts: [{ status: 'ANSWERED', durationSec: WAIT_CALL_SECONDS }],
					result: { interested: 'yes' },
				});
				const known = new Set((await client.listExecutions(waitWf.id)).map((e) => String(e.id)));
				await openExecutionsList(page, url, waitWf.id);
				const sentAt = Date.now();
				const answer = await client.callWebhook(leadPath, { phone, crmId: 'UI-1' });
				if (answer.status !== 200)
					throw new Error(`the lead's webhook answered ${answer.status} ${answer.text}`);
				let fresh = [];
				for (let i = 0; i < 100 && !fresh.some((e) => e.status === 'waiting'); i++) {
					await sleep(200);
					fresh = (await client.listExecutions(waitWf.id)).filter((e) => !known.has(String(e.id)));
					if (fresh.some((e) => ['success', 'error', 'crashed'].includes(e.status))) break;
				}
				if (fresh.length !== 1)
					throw new Error(
						`${fresh.length} executions started, expected 1 (${fresh.map((e) => e.status).join(', ')})`,
					);
				executionId = String(fresh[0].id);
				if (fresh[0].status !== 'waiting')
					throw new Error(`execution ${executionId} is ${fresh[0].status}, not waiting`);
				const waitingAfter = Date.now() - sentAt;
				const { frame, text: status } = await openFromList(
					page,
					url,
					waitWf.id,
					executionId,
					'Waiting',
				);
				// n8n draws a waiting node (its own Wait node too) with a turning coral (#ff6d5a) ring, the
				// class "waiting"; a node in error has a class "_error_…" (a red border) instead.
				const look = await waitingLook(frame, 'Call and wait');
				if (!look.waiting || look.error)
					throw new Error(
						`Call and wait on the waiting execution's canvas has the classes "${look.classes}": expected "waiting" and no error`,
					);
				const file = path.join(images, 'wait-execution-waiting.png');
				await page.screenshot({ path: file, animations: 'disabled' });
				const ended = sim.events.some(
					(event) =>
						event.event === 'CALL_ENDED' && event.payload && event.payload.callTo === phone,
				);
				if (ended)
					throw new Error(
						'the call had already ended when the list was read: the picture may not show a waiting execution',
					);
				return `execution ${executionId}: waiting ${secs(waitingAfter)} after the lead, "${status}" in the list after ${secs(Date.now() - sentAt)}; Call and wait drawn as waiting (no error); the call lasts ${secs(callMs)}; ${file}`;
			},
		);
		if (!executionId) return;
		await checks.check(
			'wait execution: after the call ends and the trigger hands over the event, the same execution is listed as "Succeeded" and CRM update\'s output shows status "Answered"',
			async () => {
				const deadline = Date.now() + callMs + 60000;
				let execution;
				for (;;) {
					execution = await client.getExecution(executionId, { includeData: false });
					if (['success', 'error', 'crashed'].includes(execution.status) || Date.now() > deadline)
						break;
					await sleep(500);
				}
				const deliveries = sim.webhookDeliveries
					.filter((d) => d.url.startsWith(triggerUrl))
					.map((d) => `${d.event} ${d.status}`);
				if (execution.status !== 'success')
					throw new Error(
						`execution ${executionId} is ${execution.status}; deliveries to the trigger: ${deliveries.join(', ') || 'none'}`,
					);
				const count = (await client.listExecutions(waitWf.id)).length;
				// Loaded again, as a user coming back to the list later: the open preview need not follow the execution's end.
				await openExecutionsList(page, url, waitWf.id);
				const { frame, text: status } = await openFromList(
					page,
					url,
					waitWf.id,
					executionId,
					'Succeeded',
				);
				const doneFile = path.join(images, 'wait-execution-done.png');
				await page.screenshot({ path: doneFile, animations: 'disabled' });
				await frame.getByTestId('canvas-node').filter({ hasText: 'CRM update' }).dblclick();
				const output = frame.getByTestId('output-panel');
				// The output's table: a column per field, "status" first (the call's result in words).
				await output.getByText('status', { exact: true }).first().waitFor({ timeout: 15000 });
				await output
					.getByText(/^(Answered|Not reached.*)$/)
					.first()
					.waitFor({ timeout: 15000 })
					.catch(() => undefined);
				const text = normalise(await output.innerText());
				const shown = (text.match(/\b(Answered|Not reached(?: \(last call: [^)]*\))?)/) || [])[0];
				if (shown !== 'Answered')
					throw new Error(
						`CRM update's output shows status ${shown ? `"${shown}"` : 'nothing'}, not "Answered": ${text.slice(0, 300)}`,
					);
				const crmId = /UI-1/.test(text);
				const outputFile = path.join(images, 'wait-execution-output.png');
				await page.screenshot({ path: outputFile, animations: 'disabled' });
				await frame
					.getByTestId('ndv-close-button')
					.click()
					.catch(() => page.keyboard.press('Escape'));
				if (count !== 1)
					throw new Error(`${count} executions of the workflow, expected the one that waited`);
				if (!crmId)
					throw new Error(
						`CRM update's output lacks the lead's own Callback Data (crmId UI-1): ${text.slice(0, 300)}`,
					);
				return `execution ${executionId}: "${status}"; CRM update: status Answered, crmId UI-1; trigger got ${deliveries.join(', ')}; ${doneFile}, ${outputFile}`;
			},
		);
	} finally {
		await client.deactivate(waitWf.id).catch(() => undefined);
		await client.deactivate(triggerWf.id).catch(() => undefined);
		sim.setDefaultTemplate({ webhookUrls: [] });
	}
}

/* ------------------------------------------------------------------ the README's first workflow, by hand */

const README = path.resolve(__dirname, '../../README.md');

/** The README's curl that points the simulator's default template at a trigger of your own: its JSON body. */
function readmeTemplateBody(productionUrlWithSecret) {
	const text = require('fs').readFileSync(README, 'utf8');
	const match = /__sim\/default-template[^\n]*\\\n\s*-d '(\{"webhookUrls"[^']*\})'/.exec(text);
	if (!match) throw new Error("the README has no curl for the simulator's default template");
	const body = JSON.parse(
		match[1].replace('<Production URL>?secret=<your secret>', productionUrlWithSecret),
	);
	return {
		body,
		events: Object.values(body.webhookUrls[0].events)
			.filter((event) => event.value)
			.map((event) => event.name),
	};
}

/** The parameter item of a top-level (or the first nested) parameter, by its name. */
function parameterItem(page, name) {
	return parametersOf(page)
		.getByTestId('parameter-item')
		.filter({ has: page.getByTestId(`parameter-input-${name}`) })
		.last();
}

/**
 * n8n's "Fixed | Expression" switch above a field (shown while the pointer is over it): Expression,
 * then the text. `typed` ([before, inside]): typed key by key as the README says, `{{` and then what
 * goes inside (n8n adds the closing ` }}` itself); otherwise the text is pasted.
 */
async function enterAsExpression(page, item, text, typed) {
	// The field in focus shows a "Tip"/"Result" box over the fields below it: leave it first.
	// (runs in the page: the browser's document)
	await page.evaluate(() => /** @type {any} */ (globalThis).document.activeElement?.blur?.());
	await page.waitForTimeout(200);
	await item.hover();
	await item.getByTestId('radio-button-expression').first().click();
	const editor = item.getByTestId('inline-expression-editor-input').first();
	await editor.waitFor();
	await editor.click();
	await page.keyboard.press('ControlOrMeta+a');
	if (typed) {
		await page.keyboard.press('Delete');
		await page.keyboard.type(`${typed[0]}{{`, { delay: 40 });
		await page.keyboard.type(typed[1], { delay: 40 });
	} else {
		await page.keyboard.insertText(text);
	}
	await page.waitForTimeout(300);
	return normalise(await editor.innerText());
}

/** Adds a node from the node panel after the canvas's last "+" (or on an empty canvas). */
async function addNodeFromPanel(page, search, entry) {
	const plus = page.getByTestId('canvas-handle-plus');
	if (await plus.count()) await plus.last().click();
	else await page.getByTestId('canvas-add-button').click();
	await searchNodePanel(page, search);
	await page
		.getByTestId('node-creator')
		.getByTestId('node-creator-item-name')
		.getByText(entry, { exact: true })
		.first()
		.click();
}

/**
 * README, "Your first workflow", followed in the editor as written: the "once" step with the
 * simulator (a published CIS Auto-Call Trigger, its Production URL put into the simulator's default
 * template with the README's own curl body), then the lead's workflow built by hand: Webhook (POST)
 * → CIS Auto-Call "Phone a person now and wait for the result" (Bot Script ID; Phone Numbers switched to
 * Expression; Callback Data as the pair crmId = {{ $json.body.crmId }}, node version 3) → HTTP Request to
 * the CRM; saved, published, and a lead sent to its Production URL must reach the CRM (at the crmId that
 * came back in Callback Data) with the call's status, at the first try.
 */
async function firstWorkflow(ctx) {
	const { page, url, checks, client, sim, images, types } = ctx;
	const description = types.action;
	const entry = waitOperationOf(description);
	const crm = await startCrmStub();
	const secret = 'first-workflow-secret-0123456789';
	const lead = { name: 'Ann Lee', phone: '+7 999 000-55-55', crmId: 'CRM-42' };
	/** @type {{ id: string } | null} */
	let triggerWf = null;
	let workflowId = null;
	try {
		if (
			!(await checks.check(
				'first workflow: the README\'s "once" step with the simulator: its curl body points the default template at a published trigger, with both events',
				async () => {
					const secretCred = await client.createCredential({
						name: 'First workflow secret',
						type: 'cisAutoCallWebhookSecretApi',
						data: { secret },
					});
					const webhookId = crypto.randomUUID();
					const trigger = triggerNode(
						'CIS Auto-Call Trigger',
						{ connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'] },
						null,
						webhookId,
					);
					trigger.typeVersion = 2;
					trigger.credentials = {
						cisAutoCallWebhookSecretApi: { id: String(secretCred.id), name: secretCred.name },
					};
					triggerWf = await client.createWorkflow(
						chain('First workflow: call results (CIS Auto-Call Trigger)', [trigger, noOp()]),
					);
					await client.activate(triggerWf.id);
					const { body, events } = readmeTemplateBody(
						`${url}/webhook/${webhookId}/webhook?secret=${secret}`,
					);
					if (events.sort().join() !== 'CALL_ENDED,CANDIDATE_CHANGED')
						throw new Error(`the README's curl selects ${events.join(', ')}`);
					const res = await fetch(`${sim.url}/__sim/default-template`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(body),
					});
					if (res.status !== 200)
						throw new Error(`the simulator answered ${res.status}: ${await res.text()}`);
					return `events ${events.join(', ')}; simulator answered ${res.status}`;
				},
			))
		) {
			throw new Error('stopped: an earlier step failed');
		}

		if (
			!(await checks.check(
				'first workflow: Webhook (POST) → CIS Auto-Call "Phone a person now and wait for the result" (Bot Script ID, Phone Numbers switched to Expression) is built from the node panel',
				async () => {
					// The page's "load" took more than 45 s on the busy 2-core machine: the editor is ready once its canvas is.
					await page.goto(`${url}/workflow/new`, { waitUntil: 'domcontentloaded' });
					await page.getByTestId('canvas-add-button').waitFor({ timeout: 90000 });
					await addNodeFromPanel(page, 'Webhook', 'Webhook');
					await ndvOf(page).waitFor();
					await selectOption(page, 'httpMethod', 'POST');
					await closeNdv(page);
					await addNodeFromPanel(page, 'CIS Auto-Call', ENTRY);
					await page
						.getByTestId('node-creator')
						.getByTestId('node-creator-item-name')
						.getByText(entry.action, { exact: true })
						.first()
						.click();
					await ndvOf(page).waitFor();
					await parametersOf(page).getByTestId('parameter-input-botSettingsId').waitFor();
					const shownOperation = await inputValueOf(page, 'operation');
					if (shownOperation !== entry.operationName)
						throw new Error(`the action opened the operation "${shownOperation}"`);
					await parametersOf(page)
						.getByTestId('parameter-input-botSettingsId')
						.locator('input')
						.first()
						.fill('bot-first-workflow');
					const phone = await enterAsExpression(
						page,
						parameterItem(page, 'phone'),
						'{{ $json.body.phone }}',
						['', '$json.body.phone'],
					);
					if (phone !== '{{ $json.body.phone }}') throw new Error(`Phone Numbers holds "${phone}"`);
					return `${entry.action}: ${entry.resourceName} → ${entry.operationName}; Phone Numbers = Expression "${phone}"`;
				},
			))
		) {
			throw new Error('stopped: an earlier step failed');
		}

		if (
			!(await checks.check(
				'first workflow: Additional Fields → Callback Data as a name/value pair (crmId, the value an Expression), then an HTTP Request to the CRM (POST, URL and body fields as Expressions)',
				async () => {
					// The phone's "Result" preview covers the fields below it until the field loses focus.
					await parametersOf(page).getByText('Bot Script ID', { exact: true }).first().click();
					// "Additional Fields": "No properties" and a list "Add Field" (n8n 2.41's collection).
					await parametersOf(page)
						.getByPlaceholder('Add Field')
						.or(parametersOf(page).getByText('Add Field', { exact: true }))
						.first()
						.click();
					await page
						.getByRole('menuitem', { name: 'Callback Data', exact: true })
						.or(page.getByRole('option', { name: 'Callback Data', exact: true }))
						.first()
						.click();
					// The pairs (a fixed collection inside Additional Fields): its button, then the only Name / Value of this panel.
					const pairs = parametersOf(page);
					await pairs
						.getByRole('button', { name: 'Add Callback Data Field' })
						.or(pairs.getByText('Add Callback Data Field', { exact: true }))
						.first()
						.click();
					await pairs
						.getByTestId('parameter-input-name')
						.first()
						.locator('input')
						.first()
						.fill('crmId');
					const valueItem = pairs
						.getByTestId('parameter-item')
						.filter({ has: page.getByTestId('parameter-input-value') })
						.filter({ hasNot: page.getByTestId('parameter-input-name') })
						.first();
					const callback = `crmId = ${await enterAsExpression(page, valueItem, '{{ $json.body.crmId }}', ['', '$json.body.crmId'])}`;
					if (callback !== 'crmId = {{ $json.body.crmId }}')
						throw new Error(`Callback Data holds "${callback}"`);
					await closeNdv(page);
					await addNodeFromPanel(page, 'HTTP Request', 'HTTP Request');
					await ndvOf(page).waitFor();
					await selectOption(page, 'method', 'POST');
					await enterAsExpression(
						page,
						parameterItem(page, 'url'),
						`${crm.url}/leads/{{ $json.callbackData.crmId }}`,
					);
					const sendBody = parametersOf(page).getByTestId('parameter-input-sendBody');
					await sendBody.getByRole('switch').or(sendBody.locator('.el-switch')).first().click();
					const body = parametersOf(page);
					await body.getByTestId('parameter-input-name').first().waitFor();
					const rows = [
						['status', '{{ $json.status }}'],
						['result', '{{ $json.result }}'],
					];
					for (const [index, [name, value]] of rows.entries()) {
						if (index > 0)
							await body
								.getByTestId('fixed-collection-add')
								.or(body.getByText('Add Body Field', { exact: true }))
								.first()
								.click();
						await body
							.getByTestId('parameter-input-name')
							.nth(index)
							.locator('input')
							.first()
							.fill(name);
						const valueItem = body
							.getByTestId('parameter-item')
							.filter({ has: page.getByTestId('parameter-input-value') })
							.filter({ hasNot: page.getByTestId('parameter-input-name') })
							.nth(index);
						await enterAsExpression(page, valueItem, value);
					}
					await closeNdv(page);
					return `Callback Data: ${callback} (Expression); HTTP Request POST ${crm.url}/leads/{{ … }} with status and result`;
				},
			))
		) {
			throw new Error('stopped: an earlier step failed');
		}

		await checks.check(
			'first workflow: saved and published from the editor; a lead sent to its Production URL is called, waits, and reaches the CRM with status "Answered", at the first try',
			async () => {
				await page.keyboard.press('ControlOrMeta+s');
				await page.waitForURL((address) => /\/workflow\/(?!new)[^/?#]+/.test(address.pathname), {
					timeout: 30000,
				});
				workflowId = /\/workflow\/([^/?#]+)/.exec(new URL(page.url()).pathname)[1];
				const saved = await client.getWorkflow(workflowId);
				const webhook = saved.nodes.find((node) => node.type === 'n8n-nodes-base.webhook');
				const call = saved.nodes.find((node) => node.type.endsWith('.cisAutoCall'));
				if (!webhook || !call)
					throw new Error(`saved nodes: ${saved.nodes.map((node) => node.type).join(', ')}`);
				const parameters = call.parameters;
				if (parameters.phone !== '={{ $json.body.phone }}')
					throw new Error(`Phone Numbers saved as ${JSON.stringify(parameters.phone)}`);
				const pairs = parameters.candidateFields && parameters.candidateFields.callbackDataPairs;
				if (
					call.typeVersion !== 3 ||
					JSON.stringify(pairs) !==
						JSON.stringify({ field: [{ name: 'crmId', value: '={{ $json.body.crmId }}' }] })
				) {
					throw new Error(
						`the call node saved as version ${call.typeVersion} with Callback Data ${JSON.stringify(parameters.candidateFields)}`,
					);
				}
				if (webhook.parameters.httpMethod !== 'POST')
					throw new Error(
						`the Webhook's HTTP Method saved as ${JSON.stringify(webhook.parameters.httpMethod)}`,
					);
				await page.getByTestId('workflow-open-publish-modal-button').click();
				const publish = page.getByTestId('workflow-publish-button');
				await publish
					.waitFor({ timeout: 10000 })
					.then(() => publish.click())
					.catch(() => undefined);
				const deadline = Date.now() + 30000;
				while (!(await client.getWorkflow(workflowId)).active && Date.now() < deadline)
					await sleep(500);
				if (!(await client.getWorkflow(workflowId)).active)
					throw new Error('the workflow is not published after "Publish"');
				sim.setOutcome('79990005555', {
					attempts: [{ status: 'ANSWERED', durationSec: 20 }],
					result: { interested: 'yes' },
				});
				// n8n registers the production webhook just after the workflow reads as published: a 404
				// ("not registered") is asked again for up to 20 s, and counted.
				let answer;
				let notYet = 0;
				for (const until404 = Date.now() + 20000; ; notYet++) {
					answer = await client.callWebhook(webhook.parameters.path, lead);
					if (answer.status !== 404 || Date.now() > until404) break;
					await sleep(1000);
				}
				if (answer.status !== 200)
					throw new Error(
						`the Production URL answered ${answer.status} ${String(answer.text).slice(0, 200)} (after ${notYet} answers 404)`,
					);
				let executions = [];
				const until = Date.now() + 90000;
				do {
					await sleep(500);
					executions = await client.listExecutions(workflowId);
				} while (
					!(executions.length && ['success', 'error', 'crashed'].includes(executions[0].status)) &&
					Date.now() < until
				);
				const statuses = executions.map((execution) => execution.status);
				if (executions.length !== 1 || statuses[0] !== 'success') {
					const data = executions[0] ? await client.getExecution(executions[0].id) : null;
					const error = data && data.data && data.data.resultData && data.data.resultData.error;
					throw new Error(
						`executions: ${statuses.join(', ') || 'none'}${error ? `; error: ${error.message}` : ''}`,
					);
				}
				const received = crm.requests.filter((request) => request.path === '/leads/CRM-42');
				if (received.length !== 1)
					throw new Error(`the CRM received ${JSON.stringify(crm.requests)}`);
				if (
					received[0].method !== 'POST' ||
					!received[0].body ||
					received[0].body.status !== 'Answered'
				)
					throw new Error(`the CRM received ${JSON.stringify(received[0])}`);
				// The README's top picture: the workflow as the user built it, opened again from its address.
				await page.goto(`${url}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
				await page.getByTestId('canvas-node').first().waitFor({ timeout: 90000 });
				await closeProductionChecklist(page);
				const picture = await screenshotCanvas(page, path.join(images, 'first-workflow.png'));
				return `execution ${executions[0].id} succeeded; CRM: POST /leads/CRM-42 ${JSON.stringify(received[0].body)}; Production URL answered 404 ${notYet} times before 200; ${picture}`;
			},
		);
	} finally {
		if (workflowId) await client.deactivate(workflowId).catch(() => undefined);
		if (triggerWf) await client.deactivate(triggerWf.id).catch(() => undefined);
		sim.setDefaultTemplate({ webhookUrls: [] });
		await crm.close();
	}
}

/**
 * What n8n 2.x does when `{{ … }}` is typed key by key into a Fixed field: it switches the field to
 * Expression once the text holds both "{{" and "}}" (the README says so). Checked on Phone Numbers.
 */
async function typedExpression(ctx) {
	const { url, checks, client, credential } = ctx;
	await checks.check(
		'first workflow: {{ $json.body.phone }} typed in full into Phone Numbers while it is Fixed: n8n 2.x switches the field to Expression by itself (the README says to switch first: a second "}}" is left)',
		async () => {
			const workflow = await client.createWorkflow(
				chain('UI: typed expression', [
					manualTrigger(),
					cisNode(
						'Call the lead',
						{
							resource: 'candidate',
							operation: 'createAndRunAndWait',
							botSettingsId: 'bot-1',
							phone: '',
						},
						credential,
						{ typeVersion: 2 },
					),
				]),
			);
			// A tab of its own: the page may hold a workflow with unsaved changes, which asks before leaving.
			const page = await ctx.page.context().newPage();
			try {
				await page.goto(`${url}/workflow/${workflow.id}`, { waitUntil: 'domcontentloaded' });
				await page
					.getByTestId('canvas-node')
					.filter({ hasText: 'Call the lead' })
					.waitFor({ timeout: 90000 });
				await page.getByTestId('canvas-node').filter({ hasText: 'Call the lead' }).dblclick();
				const item = parameterItem(page, 'phone');
				const input = item.getByTestId('parameter-input-phone').locator('input, textarea').first();
				const editor = item.getByTestId('inline-expression-editor-input').first();
				await input.click();
				await page.keyboard.type('{{', { delay: 40 });
				await page.waitForTimeout(500);
				const afterBraces = (await editor.isVisible())
					? `Expression "${normalise(await editor.innerText())}"`
					: `Fixed "${await input.inputValue().catch(() => '?')}"`;
				await page.keyboard.type(' $json.body.phone }}', { delay: 40 });
				await page.waitForTimeout(800);
				const switched = await editor.isVisible();
				const shown = switched
					? normalise(await editor.innerText())
					: await input.inputValue().catch(() => '?');
				if (!switched)
					throw new Error(
						`the field stayed Fixed, holding "${shown}" (after "{{": ${afterBraces})`,
					);
				return `after "{{": ${afterBraces}; after "{{ $json.body.phone }}": Expression "${shown}"`;
			} finally {
				await page.close().catch(() => undefined);
			}
		},
	);
}

/** The workflow on the canvas, zoomed to fit, cut to its nodes. */
async function screenshotCanvas(page, file) {
	const nodes = page.getByTestId('canvas-node');
	await page
		.getByTestId('zoom-to-fit')
		.click({ timeout: 15000 })
		.catch(() => page.keyboard.press('1')); // n8n's shortcut for "zoom to fit"
	await page.waitForTimeout(500);
	const boxes = await nodes.evaluateAll((elements) =>
		elements.map((element) => element.getBoundingClientRect().toJSON()),
	);
	const left = Math.max(0, Math.min(...boxes.map((box) => box.left)) - 110);
	const top = Math.max(0, Math.min(...boxes.map((box) => box.top)) - 40);
	const right = Math.max(...boxes.map((box) => box.right)) + 110;
	const bottom = Math.max(...boxes.map((box) => box.bottom)) + 80;
	await page.screenshot({
		path: file,
		clip: { x: left, y: top, width: right - left, height: bottom - top },
		animations: 'disabled',
	});
	return file;
}

/* ------------------------------------------------------------------ an example workflow on the canvas */

async function exampleCanvas(ctx) {
	const { page, url, checks, images, exampleWorkflowId, exampleNodeCount } = ctx;
	await checks.check('canvas: an example workflow opens with its nodes connected', async () => {
		await page.goto(`${url}/workflow/${exampleWorkflowId}`);
		const nodes = page.getByTestId('canvas-node');
		await nodes.first().waitFor();
		await page.getByTestId('zoom-to-fit').click();
		await page.waitForTimeout(500);
		const count = await nodes.count();
		if (count !== exampleNodeCount)
			throw new Error(`${count} nodes on the canvas, the workflow has ${exampleNodeCount}`);
		const edges = await page.getByTestId('edge').count();
		if (edges < count - 1) throw new Error(`${edges} connections between ${count} nodes`);
		const boxes = await nodes.evaluateAll((elements) =>
			elements.map((element) => element.getBoundingClientRect().toJSON()),
		);
		const left = Math.max(0, Math.min(...boxes.map((box) => box.left)) - 110);
		const top = Math.max(0, Math.min(...boxes.map((box) => box.top)) - 40);
		const right = Math.max(...boxes.map((box) => box.right)) + 110;
		const bottom = Math.max(...boxes.map((box) => box.bottom)) + 80;
		const file = path.join(images, 'example-workflow.png');
		await page.screenshot({
			path: file,
			clip: { x: left, y: top, width: right - left, height: bottom - top },
			animations: 'disabled',
		});
		return `${count} nodes, ${edges} connections; ${file}`;
	});
}

/* ------------------------------------------------------------------ a new AI Agent with the stand-in model */

/**
 * A new AI Agent as a user sets it up in n8n 2.41, run from the editor with the stand-in model of
 * `npm start` (scripts/lib/standInModel.js): AI Agent (3.1) with an OpenAI Chat Model left at the
 * defaults the editor saves for a new one (version 1.3: Use Responses API on, model gpt-5-mini) and a
 * CIS Auto-Call tool. The workflow is imported as the editor saves those nodes; then, in the browser,
 * Phone Numbers of the tool gets n8n's ✨ "let the model define this parameter" button
 * (`$fromAI('Phone_Numbers', …)`), the workflow is saved with Ctrl+S and run with "Execute workflow".
 * The first run must succeed: the model is asked over the Responses API, the tool is called with
 * the number in the argument the ✨ button named, and one call reaches the service.
 */
async function newAgent(ctx) {
	const { page, url, checks, client, sim, credential, model, types, images } = ctx;
	const phone = '79990005601';
	let workflow;
	await checks.check(
		"new agent: Phone Numbers of the tool set with the ✨ button in the editor, saved as $fromAI('Phone_Numbers', …)",
		async () => {
			const openAi = await client.createCredential({
				name: 'Stand-in model (UI)',
				type: 'openAiApi',
				data: { apiKey: 'sk-stand-in', url: `${model.url}/v1`, header: false },
			});
			const toolVersion = Math.max(...[].concat(types.action.version));
			const nodes = [
				{ ...manualTrigger(), position: [0, 0] },
				{
					id: crypto.randomUUID(),
					name: 'AI Agent',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 3.1,
					position: [220, 0],
					parameters: {
						promptType: 'define',
						text: `A new lead came in: Ann, phone ${phone}. Call her.`,
						options: {},
					},
				},
				{
					id: crypto.randomUUID(),
					name: 'OpenAI Chat Model',
					type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
					typeVersion: 1.3,
					position: [160, 220],
					// what the editor saves for a new OpenAI Chat Model left as it is (Use Responses API: on, the default)
					parameters: {
						model: { __rl: true, mode: 'list', value: 'gpt-5-mini' },
						builtInTools: {},
						options: {},
					},
					credentials: { openAiApi: { id: String(openAi.id), name: openAi.name } },
				},
				{
					id: crypto.randomUUID(),
					name: 'Call a lead',
					type: `${types.action.name}Tool`,
					typeVersion: toolVersion,
					position: [360, 220],
					parameters: {
						authentication: 'accessToken',
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-1',
						phone: '',
						options: {},
					},
					credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
				},
			];
			const connections = {
				[MANUAL]: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
				'OpenAI Chat Model': {
					ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
				},
				'Call a lead': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			};
			workflow = await client.createWorkflow({
				name: 'UI: a new agent with the stand-in model',
				nodes,
				connections,
				settings: { executionOrder: 'v1' },
			});
			await page.goto(`${url}/workflow/${workflow.id}`);
			await page.getByTestId('canvas-node').filter({ hasText: 'Call a lead' }).first().dblclick();
			const item = parameterItem(page, 'phone');
			await item.waitFor({ timeout: 30000 });
			await item.hover();
			await item.getByTestId('from-ai-override-button').first().click();
			await page.waitForTimeout(300);
			await closeNdv(page);
			await page.keyboard.press('ControlOrMeta+s');
			let saved;
			for (const until = Date.now() + 20000; Date.now() < until; await sleep(500)) {
				saved = (await client.getWorkflow(workflow.id)).nodes.find(
					(node) => node.name === 'Call a lead',
				).parameters.phone;
				if (/\$fromAI\(/.test(String(saved))) break;
			}
			// n8n 2.41 saves "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Phone_Numbers', ``, 'string') }}"
			if (!/^=\{\{ .*\$fromAI\('Phone_Numbers'/.test(String(saved)))
				throw new Error(`Phone Numbers saved as ${JSON.stringify(saved)}`);
			return `saved as ${saved}`;
		},
	);
	if (!workflow) return;
	await checks.check(
		'new agent: "Execute workflow" in the editor succeeds at the first run; the model is asked over the Responses API and one call reaches the service',
		async () => {
			const mark = model.requests.length;
			const simMark = sim.requests.length;
			await page.getByTestId('execute-workflow-button').click();
			let executions = [];
			for (const until = Date.now() + 90000; Date.now() < until;) {
				await sleep(500);
				executions = await client.listExecutions(workflow.id);
				if (executions.length && ['success', 'error', 'crashed'].includes(executions[0].status))
					break;
			}
			const file = path.join(images, 'new-agent-run.png');
			await page.screenshot({ path: file, animations: 'disabled' }).catch(() => undefined);
			if (executions.length !== 1)
				throw new Error(
					`${executions.length} executions (${executions.map((e) => e.status).join(', ')}); expected 1`,
				);
			const execution = await client.getExecution(executions[0].id);
			const error = execution.data && execution.data.resultData && execution.data.resultData.error;
			if (executions[0].status !== 'success')
				throw new Error(
					`the execution ended ${executions[0].status}: ${error ? error.message : ''}`,
				);
			const asked = model.requests
				.slice(mark)
				.map((request) => `${request.method} ${request.path.split('?')[0]}`);
			if (!asked.length || asked.some((route) => route !== 'POST /v1/responses'))
				throw new Error(`the model was asked: ${asked.join(', ')}`);
			const created = apiRequestsSince(sim, simMark).filter(
				(request) => request.path === '/cis/api/v1/telephony/autoCallCandidate/single',
			);
			if (
				created.length !== 1 ||
				JSON.stringify(created[0].body.phone) !== JSON.stringify([phone])
			) {
				throw new Error(
					`the service got ${created.length} calls: ${JSON.stringify(created.map((request) => request.body.phone))}`,
				);
			}
			const answer = String(
				execution.data.resultData.runData['AI Agent'].at(-1).data.main[0][0].json.output,
			);
			if (answer !== `I've placed a call to Ann (${phone}).`)
				throw new Error(`the agent answered ${answer.slice(0, 300)}`);
			return `${asked.length} requests POST /v1/responses; 1 call to ${phone}; the agent answered "${answer}"; ${file}`;
		},
	);
}

/* ------------------------------------------------------------------ a chat agent built by hand */

/**
 * The chat agent a new user builds from n8n's defaults (issue 53): Chat Trigger → AI Agent (3.1)
 * with an OpenAI Chat Model as the editor saves a new one (pointed at the stand-in model of
 * `npm start`), Simple Memory, the CIS Auto-Call tool (Create and Run, Tool Description left on
 * automatic) and n8n's Data Table tool left at what n8n gives after choosing *Get* (Must Match: Any
 * Condition, Limit 50, no order; the user adds one condition on the column `phone`). The Data Table
 * tool comes first, as the first tool a user connects. The workflow is imported as the editor
 * saves those nodes; then, in the browser, the CIS tool's Phone Numbers and the condition's Value
 * get n8n's ✨ button, the workflow is saved with Ctrl+S, and the editor's own chat is used. The
 * first message must place the call; the second, "what did Ann say?", must find the row (written
 * here as example 14a writes it, digits only) by the ✨ argument n8n named `conditions0_Value`.
 */
async function handBuiltChatAgent(ctx) {
	const { page, url, checks, client, sim, credential, model, types, images } = ctx;
	const phone = '79990005602';
	const written = '+7 999 000-56-02';
	const served = (await servedNodeTypes(url, client.cookie)).types;
	const versionOf = (name) =>
		Math.max(...served.filter((d) => d.name === name).flatMap((d) => [].concat(d.version)));
	let workflow;
	let table;
	const tools = { cis: 'CIS Auto-Call', table: 'Data table' };
	await checks.check(
		"hand-built chat agent: ✨ on the CIS Auto-Call tool's Phone Numbers and on the Data Table tool's condition value, saved as $fromAI(…)",
		async () => {
			table = await client.ensureDataTable('ui_call_results', [
				{ name: 'phone', type: 'string' },
				{ name: 'callId', type: 'string' },
				{ name: 'outcome', type: 'string' },
				{ name: 'status', type: 'string' },
				{ name: 'result', type: 'string' },
			]);
			const openAi = await client.createCredential({
				name: 'Stand-in model (UI chat)',
				type: 'openAiApi',
				data: { apiKey: 'sk-stand-in', url: `${model.url}/v1`, header: false },
			});
			const node = (name, type, position, parameters, extra = {}) => ({
				id: crypto.randomUUID(),
				name,
				type,
				typeVersion: versionOf(type),
				position,
				parameters,
				...extra,
			});
			const nodes = [
				node(
					'When chat message received',
					'@n8n/n8n-nodes-langchain.chatTrigger',
					[0, 0],
					{ options: {} },
					{ webhookId: crypto.randomUUID() },
				),
				node('AI Agent', '@n8n/n8n-nodes-langchain.agent', [220, 0], { options: {} }),
				node(
					'OpenAI Chat Model',
					'@n8n/n8n-nodes-langchain.lmChatOpenAi',
					[100, 220],
					{
						model: { __rl: true, mode: 'list', value: 'gpt-5-mini' },
						builtInTools: {},
						options: {},
					},
					{
						credentials: { openAiApi: { id: String(openAi.id), name: openAi.name } },
					},
				),
				node('Simple Memory', '@n8n/n8n-nodes-langchain.memoryBufferWindow', [240, 220], {}),
				// what n8n gives after choosing Get, with one condition added on the column phone
				node(tools.table, 'n8n-nodes-base.dataTableTool', [380, 220], {
					operation: 'get',
					dataTableId: { __rl: true, mode: 'list', value: table.id, cachedResultName: table.name },
					filters: { conditions: [{ keyName: 'phone' }] },
				}),
				node(
					tools.cis,
					`${types.action.name}Tool`,
					[520, 220],
					{
						authentication: 'accessToken',
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-1',
						phone: '',
						options: {},
					},
					{
						credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
					},
				),
			];
			const connections = {
				'When chat message received': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
				'OpenAI Chat Model': {
					ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
				},
				'Simple Memory': { ai_memory: [[{ node: 'AI Agent', type: 'ai_memory', index: 0 }]] },
				[tools.table]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				[tools.cis]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			};
			workflow = await client.createWorkflow({
				name: 'UI: a chat agent built by hand',
				nodes,
				connections,
				settings: { executionOrder: 'v1' },
			});
			await page.goto(`${url}/workflow/${workflow.id}`);
			const sparkle = async (nodeName, parameter) => {
				await page.getByTestId('canvas-node').filter({ hasText: nodeName }).first().dblclick();
				const item = parameterItem(page, parameter);
				await item.waitFor({ timeout: 30000 });
				await item.hover();
				await item.getByTestId('from-ai-override-button').first().click();
				await page.waitForTimeout(300);
				await closeNdv(page);
			};
			await sparkle(tools.cis, 'phone');
			await sparkle(tools.table, 'keyValue');
			await page.keyboard.press('ControlOrMeta+s');
			let saved;
			for (const until = Date.now() + 20000; Date.now() < until; await sleep(500)) {
				const wf = await client.getWorkflow(workflow.id);
				const byName = (name) => wf.nodes.find((n) => n.name === name).parameters;
				saved = [byName(tools.cis).phone, byName(tools.table).filters.conditions[0].keyValue];
				if (saved.every((value) => /\$fromAI\(/.test(String(value)))) break;
			}
			if (!saved.every((value) => /\$fromAI\(/.test(String(value))))
				throw new Error(`saved as ${JSON.stringify(saved)}`);
			return `saved as ${saved.join(' and ')}`;
		},
	);
	if (!workflow) return;

	/** Sends a message in the editor's chat; resolves with the model's requests, the calls the service got, and the answer. */
	const chatInEditor = async (text) => {
		const mark = model.requests.length;
		const simMark = sim.requests.length;
		const before = (await client.listExecutions(workflow.id)).length;
		// the editor's chat: "Open chat" under the canvas opens it (n8n's chat, data-test-id chat-input)
		const input = page.getByTestId('canvas-chat').getByTestId('chat-input').first();
		if (!(await input.isVisible().catch(() => false)))
			await page.getByTestId('workflow-chat-button').first().click();
		await input.waitFor({ timeout: 30000 });
		await input.fill(text);
		await input.press('Enter');
		let executions = [];
		for (const until = Date.now() + 90000; Date.now() < until;) {
			await sleep(500);
			executions = await client.listExecutions(workflow.id);
			if (
				executions.length > before &&
				['success', 'error', 'crashed'].includes(executions[0].status)
			)
				break;
		}
		if (executions.length !== before + 1)
			throw new Error(`${executions.length - before} executions for "${text}"; expected 1`);
		const execution = await client.getExecution(executions[0].id);
		const error = execution.data && execution.data.resultData && execution.data.resultData.error;
		if (executions[0].status !== 'success')
			throw new Error(`the execution ended ${executions[0].status}: ${error ? error.message : ''}`);
		const output = execution.data.resultData.runData['AI Agent'].at(-1).data.main[0][0].json.output;
		const asked = model.requests.slice(mark).filter((request) => request.method === 'POST');
		const last = asked[asked.length - 1].body;
		const toolCalls = (Array.isArray(last.input) ? last.input : []).filter(
			(item) => item.type === 'function_call' || (item.role === 'assistant' && item.tool_calls),
		);
		const created = apiRequestsSince(sim, simMark).filter(
			(request) => request.path === '/cis/api/v1/telephony/autoCallCandidate/single',
		);
		return {
			output: String(output),
			created,
			toolCalls: toolCalls.map((call) => ({
				name: call.name,
				args: JSON.parse(call.arguments || '{}'),
			})),
		};
	};

	await checks.check(
		`hand-built chat agent: the first message in the editor's chat, "call Ann on ${written}", places one call with that number, and the chat reads that it was placed`,
		async () => {
			const { output, created, toolCalls } = await chatInEditor(`call Ann on ${written}`);
			await page
				.screenshot({
					path: path.join(images, 'hand-built-chat-agent-call.png'),
					animations: 'disabled',
				})
				.catch(() => undefined);
			if (
				created.length !== 1 ||
				JSON.stringify(created[0].body.phone) !== JSON.stringify([phone])
			) {
				throw new Error(
					`the service got ${created.length} calls: ${JSON.stringify(created.map((request) => request.body.phone))}; the model called ${JSON.stringify(toolCalls)}`,
				);
			}
			if (output !== `I've placed a call to Ann (${written}).`)
				throw new Error(`the agent answered ${output}`);
			return output;
		},
	);

	await checks.check(
		'hand-built chat agent: "what did Ann say?" looks the row up through the Data Table tool (conditions0_Value, digits) and answers from it; nobody is called',
		async () => {
			// the row example 14a writes when the call's result arrives
			await client.insertDataTableRows(table, [
				{
					phone,
					callId: 'ui-call-5602',
					outcome: 'answered',
					status: 'Answered',
					result: '{"interested":"yes"}',
				},
			]);
			const { output, created, toolCalls } = await chatInEditor('what did Ann say?');
			await page
				.screenshot({
					path: path.join(images, 'hand-built-chat-agent-result.png'),
					animations: 'disabled',
				})
				.catch(() => undefined);
			if (created.length !== 0) throw new Error(`${created.length} calls placed`);
			const lookup = toolCalls.find(
				(call) => call.args && call.args.conditions0_Value !== undefined,
			);
			if (!lookup || lookup.args.conditions0_Value !== phone)
				throw new Error(`the model called ${JSON.stringify(toolCalls)}`);
			if (
				!/^The call to Ann \(\+7 999 000-56-02\) was answered \(Answered, call ui-call-5602\)\. The bot collected: \{"interested":"yes"\}\.$/.test(
					output,
				)
			) {
				throw new Error(`the agent answered ${output}`);
			}
			return `${lookup.name}(${JSON.stringify(lookup.args)}); ${output}`;
		},
	);
}

module.exports = {
	nodePanel,
	trigger,
	action,
	fieldNames,
	localUrl,
	dryRun,
	retryLeftOut,
	waitPanel,
	waitExecution,
	firstWorkflow,
	typedExpression,
	exampleCanvas,
	newAgent,
	handBuiltChatAgent,
};
