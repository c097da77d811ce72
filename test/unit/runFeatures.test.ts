/**
 * For every operation of the node and every run feature: the feature's options are shown in the
 * operation's Options collection exactly where its step applies in a run. The panel (the fields
 * the editor gets) is compared with what a run reads with every option turned on. Operations and
 * features are read from the code, so a new one is checked without a line here.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { operations } from '../../nodes/CisAutoCall/actions/resources';
import { readRunFeatures, runFeatures } from '../../nodes/CisAutoCall/actions/runFeatures';

const context = {
	getMode: () => 'manual',
	helpers: {},
	getNode: () => ({
		id: 'n',
		name: 'CIS Auto-Call',
		type: 'n8n-nodes-cis-autocall.cisAutoCall',
		typeVersion: 2,
		parameters: {},
	}),
	getWorkflow: () => ({ id: 'w' }),
} as unknown as IExecuteFunctions;

/** Every switch of every feature turned on, as saved and as resolved. */
const allOn: IDataObject = {
	dryRun: true,
	repeatProtectionHours: 24,
	allowedNumbers: '7',
	maxCallsPerRun: 5,
	agentMayStartTask: true,
};
const EVERY_TRAIT = {
	creates: true,
	batch: false,
	dials: true,
	readsPhones: true,
	startsTask: true,
};

const everyOperation = Object.entries(operations).flatMap(([resource, byName]) =>
	Object.entries(byName).map(([name, operation]) => ({
		label: `${resource} → ${name}`,
		operation,
	})),
);

function shownOptions(fields: INodeProperties[]): Set<string> {
	const collection = fields.find(
		(field) => field.name === 'options' && field.type === 'collection',
	);
	return new Set(((collection?.options ?? []) as INodeProperties[]).map((option) => option.name));
}

describe('a run feature applies exactly where its options are shown', () => {
	test('the operations and features are read (a broken reading would make the checks below pass)', () => {
		expect(everyOperation.length).toBeGreaterThanOrEqual(16);
		expect(runFeatures.length).toBeGreaterThanOrEqual(3);
		for (const feature of runFeatures)
			expect(feature.options(EVERY_TRAIT).length).toBeGreaterThan(0);
		// Each feature shows its options somewhere, and is left out somewhere (Get shows none of them).
		const get = everyOperation.find(({ label }) => label === 'callTask → get');
		expect(
			runFeatures.filter(
				(feature) =>
					readRunFeatures(
						{ context, operation: get!.operation, asAgentTool: true, options: allOn, saved: allOn },
						[feature],
					).length > 0,
			),
		).toEqual([]);
	});

	test.each(everyOperation)('$label', ({ operation }) => {
		const shown = shownOptions(operation.fields);
		expect(shown.size).toBeGreaterThan(0);
		const source = { context, operation, asAgentTool: true, options: allOn, saved: allOn };
		const disagreements = runFeatures
			.map((feature) => ({
				options: feature.options(EVERY_TRAIT).map((option) => option.name),
				shown: feature.options(EVERY_TRAIT).some((option) => shown.has(option.name)),
				applies: readRunFeatures(source, [feature]).length > 0,
			}))
			.filter(({ shown: isShown, applies }) => isShown !== applies);
		expect(disagreements).toEqual([]);
	});
});
