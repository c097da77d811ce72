/**
 * For every operation of the node: a run feature's options are shown in its Options collection
 * exactly where the feature's step applies in a run. The panel (the operation's fields, as the
 * editor gets them) is compared with the steps a run reads with every option turned on.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { operations } from '../../nodes/CisAutoCall/actions/resources';
import { readRunFeatures, runFeatures } from '../../nodes/CisAutoCall/actions/runFeatures';
import { dryRun } from '../../nodes/CisAutoCall/actions/runFeatures/dryRun';
import type { RunFeature, Step } from '../../nodes/CisAutoCall/actions/runFeatures/feature';
import { guardrails } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails';
import { GuardrailsStep } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails/step';
import { repeatProtection } from '../../nodes/CisAutoCall/actions/runFeatures/repeatProtection';
import { RepeatProtection } from '../../nodes/CisAutoCall/actions/runFeatures/repeatProtection/step';

const context = {
	getMode: () => 'manual',
	helpers: {},
	getNode: () => ({ id: 'n', name: 'CIS Auto-Call', type: 'n8n-nodes-cis-autocall.cisAutoCall', typeVersion: 2, parameters: {} }),
	getWorkflow: () => ({ id: 'w' }),
} as unknown as IExecuteFunctions;

/** Every option of every feature turned on, as saved and as resolved. */
const allOn: IDataObject = { dryRun: true, repeatProtectionHours: 24, allowedNumbers: '7', maxCallsPerRun: 5, agentMayStartTask: true };

/** Each feature: the names of its options, and how its step is told apart. */
const FEATURES: Array<{ name: string; feature: RunFeature; optionNames: string[]; isItsStep: (step: Step) => boolean }> = [
	{
		name: 'Guardrails',
		feature: guardrails,
		optionNames: ['allowedNumbers', 'maxCallsPerRun', 'agentSeveralNumbers', 'allowShortNumbers', 'agentMayStartTask'],
		isItsStep: (step) => step instanceof GuardrailsStep,
	},
	{ name: 'Dry Run', feature: dryRun, optionNames: ['dryRun'], isItsStep: (step) => step.sendsNothing === true },
	{ name: 'Repeat Protection', feature: repeatProtection, optionNames: ['repeatProtectionHours'], isItsStep: (step) => step instanceof RepeatProtection },
];

const everyOperation = Object.entries(operations).flatMap(([resource, byName]) =>
	Object.entries(byName).map(([name, operation]) => ({ label: `${resource} → ${name}`, operation })),
);

describe('a run feature applies exactly where its options are shown', () => {
	test('every operation and every feature is checked (a broken table would make the checks below pass)', () => {
		expect(everyOperation.length).toBeGreaterThanOrEqual(16);
		expect(FEATURES.map(({ feature }) => feature)).toEqual([...runFeatures]);
		for (const { feature, optionNames } of FEATURES) {
			const names = feature.options({ creates: true, batch: false, dials: true, startsTask: true }).map((option) => option.name);
			expect(names.sort()).toEqual([...optionNames].sort());
		}
	});

	test.each(everyOperation)('$label', ({ operation }) => {
		const collection = operation.fields.find((field) => field.name === 'options' && field.type === 'collection');
		expect(collection).toBeDefined();
		const shown = new Set(((collection as INodeProperties).options as INodeProperties[]).map((option) => option.name));
		const steps = readRunFeatures({ context, operation, asAgentTool: true, options: allOn, saved: allOn });
		const agreement = FEATURES.map(({ name, optionNames, isItsStep }) => ({
			name,
			shown: optionNames.some((option) => shown.has(option)),
			applies: steps.some(isItsStep),
		}));
		expect(agreement.filter(({ shown: isShown, applies }) => isShown !== applies)).toEqual([]);
	});
});
