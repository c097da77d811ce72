'use strict';
/**
 * Driving n8n's editor in headless Chromium or Google Chrome (found by scripts/lib/tools.js:
 * $CIS_CHROMIUM, Debian's /usr/bin/chromium, chromium / google-chrome on PATH, macOS apps; driven by
 * playwright-core; no browser is downloaded). Selectors are n8n's own `data-test-id` attributes and
 * visible texts.
 */
const fs = require('fs');
const { chromium, selectors } = require('playwright-core');
const { ensureTool } = require('../../scripts/lib/tools');

selectors.setTestIdAttribute('data-test-id');

let browserPath = null;

/**
 * The browser's path, found once (installed with apt-get only as root or with allowed passwordless
 * sudo). Throws a ToolMissingError whose message says what is missing and how to get it.
 */
async function ensureBrowser() {
	if (!browserPath) browserPath = await ensureTool('chromium');
	return browserPath;
}
const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
const VIEWPORT = { width: 1440, height: 900 };

function isLoopback(url) {
	try {
		const { protocol, hostname } = new URL(url);
		if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
		return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
	} catch {
		return false;
	}
}

/**
 * Chromium with a new profile folder; requests to anything but this machine are refused
 * (the editor would otherwise try fonts, telemetry or templates on the internet).
 */
async function launchBrowser(profileDir) {
	const context = await chromium.launchPersistentContext(profileDir, {
		executablePath: await ensureBrowser(),
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: VIEWPORT,
		deviceScaleFactor: 1,
	});
	await context.route(
		(url) => !isLoopback(url.href),
		(route) => route.abort(),
	);
	// CIS_UI_TIMEOUT_MS: the longest wait of one step (default 20 s). A step waits only until the
	// editor is ready, so a long limit costs nothing when it passes; on 2 busy cores (a CI runner)
	// the editor took more than 8 s for one step.
	context.setDefaultTimeout(Number(process.env.CIS_UI_TIMEOUT_MS) || 20000);
	context.setDefaultNavigationTimeout(Math.max(30000, Number(process.env.CIS_UI_TIMEOUT_MS) || 0));
	const page = context.pages()[0] || (await context.newPage());
	return { context, page, version: context.browser() ? context.browser().version() : 'chromium' };
}

async function signIn(page, baseUrl, { email, password }) {
	await page.goto(`${baseUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(email);
	await page.getByTestId('password').locator('input').fill(password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30000 });
}

async function openNewWorkflow(page, baseUrl) {
	await page.goto(`${baseUrl}/workflow/new`);
	await page.getByTestId('canvas-add-button').waitFor();
}

/** Types a search into the open node panel; returns the names of the entries in their order. */
async function searchNodePanel(page, query) {
	const search = page.getByTestId('node-creator-search-bar');
	await search.fill(query);
	const names = page.getByTestId('node-creator').getByTestId('node-creator-item-name');
	await names.first().waitFor();
	// Results replace the category list after a debounce: wait until two reads agree.
	let previous = '';
	for (let attempt = 0; attempt < 20; attempt++) {
		await page.waitForTimeout(150);
		const current = (await names.allInnerTexts()).join('|');
		if (current === previous) break;
		previous = current;
	}
	return (await names.allInnerTexts()).map((text) => text.trim());
}

/** The description shown under an entry of the node panel. */
async function nodePanelEntryDescription(page, name) {
	const entry = page
		.getByTestId('node-creator')
		.getByTestId('item-iterator-item')
		.filter({ has: page.getByTestId('node-creator-item-name').getByText(name, { exact: true }) })
		.first();
	return (await entry.getByTestId('node-creator-item-description').innerText()).trim();
}

function ndvOf(page) {
	return page.getByTestId('ndv');
}

function parametersOf(page) {
	return ndvOf(page).getByTestId('node-parameters');
}

const normalise = (text) => text.replace(/\s+/g, ' ').trim();

/** The lines of each parameter shown in the Parameters tab (labels, notices, values). */
async function shownParameterTexts(page) {
	const items = parametersOf(page).getByTestId('parameter-item');
	const texts = await items.evaluateAll((elements) =>
		elements.filter((element) => element.offsetParent !== null).map((element) => element.innerText),
	);
	return texts.map((text) =>
		text
			.split('\n')
			.map((line) => line.trim())
			.filter(Boolean),
	);
}

/** Whether the Parameters tab shows a parameter with this label (or, for a notice, this text). */
function isShown(texts, property) {
	if (property.type === 'notice') {
		const wanted = normalise(property.displayName.replace(/<[^>]+>/g, ''));
		return texts.some((lines) => normalise(lines.join(' ')).includes(wanted.slice(0, 80)));
	}
	return texts.some((lines) => lines.includes(property.displayName));
}

/** Opens an options parameter's list, returns [{name, description}] and closes it again. */
async function optionsOf(page, parameterName) {
	const input = parametersOf(page).getByTestId(`parameter-input-${parameterName}`);
	await input.click();
	const options = page.getByRole('option');
	await options.first().waitFor();
	const result = await options.evaluateAll((elements) =>
		elements.map((element) => {
			const lines = element.innerText
				.split('\n')
				.map((line) => line.trim())
				.filter(Boolean);
			return { name: lines[0] || '', description: lines.slice(1).join(' ') };
		}),
	);
	await input.click();
	await options
		.first()
		.waitFor({ state: 'hidden' })
		.catch(() => undefined);
	return result;
}

/** Picks an option of an options parameter by its exact name. */
async function selectOption(page, parameterName, optionName) {
	await parametersOf(page).getByTestId(`parameter-input-${parameterName}`).click();
	const option = page
		.getByRole('option')
		.filter({ has: page.getByText(optionName, { exact: true }) })
		.first();
	await option.click();
	await option.waitFor({ state: 'hidden' }).catch(() => undefined);
	await page.waitForTimeout(250); // the panel re-renders the parameters that depend on it
}

async function closeNdv(page) {
	await ndvOf(page).getByTestId('ndv-close-button').click();
	await ndvOf(page).waitFor({ state: 'hidden' });
}

/** Saves a screenshot of the page or of one element, as PNG. */
async function screenshot(target, file) {
	await target.screenshot({ path: file, animations: 'disabled' });
	return `${file} (${Math.round(fs.statSync(file).size / 1024)} KB)`;
}

module.exports = {
	ensureBrowser,
	launchBrowser,
	signIn,
	openNewWorkflow,
	searchNodePanel,
	nodePanelEntryDescription,
	ndvOf,
	parametersOf,
	shownParameterTexts,
	isShown,
	optionsOf,
	selectOption,
	closeNdv,
	screenshot,
	normalise,
};
