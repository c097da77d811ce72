import type { INodeProperties } from 'n8n-workflow';

import { dialsNotice } from '../descriptions/candidateFields';
import type { WaitForResultFields } from '../descriptions/waitFields';
import type { BatchOperation, ItemOperation, Operation } from './operation';
import { runFeatureOptions } from './runFeatures';
import { type OperationTraits, traitsOf } from './runFeatures/feature';
import { agentStartNotice, agentToolNotice } from './agent';
import { phoneOptions } from './phones';
import { sendingOptions } from './sending';

/** What an operation declares of its panel: its own notices and fields; the rest follows from its traits. */
interface Panel {
	/** Its own notices, at the top of its panel (after the dialling notices of an operation that dials). */
	notices?: INodeProperties[];
	/** Its own fields. */
	fields: INodeProperties[];
}

export type ItemDeclaration<Prepared = unknown> = Omit<
	ItemOperation<Prepared>,
	'fields' | 'waitsForResult'
> &
	Panel & {
		/** A "… and Wait for Result" operation: its notice (in place of the AI Agent's, since it refuses as a tool) and its fields. */
		waits?: WaitForResultFields;
	};

export type BatchDeclaration = Omit<BatchOperation, 'fields'> & Panel;

/**
 * The "Options" collection of an operation with these traits: the run features' options, then how
 * requests are sent (sending.ts).
 */
export function runOptionsField(traits: OperationTraits): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...phoneOptions(traits), ...runFeatureOptions(traits), ...sendingOptions(traits)],
	};
}

/**
 * An operation from its declaration, where each trait is said once: `kind`, `creates`,
 * `dialledPhones` (it dials), `startsTask` and `waits`. Its panel follows from them: an operation
 * that dials gets the dialling notice and the AI Agent's notice (or the wait's), one that only
 * starts a task gets the AI Agent's notice about starting, and every operation ends with the
 * Options collection its traits call for. The run features read the same traits (traitsOf).
 */
export function defineOperation<Prepared>(
	declaration: ItemDeclaration<Prepared>,
): ItemOperation<Prepared>;
export function defineOperation(declaration: BatchDeclaration): BatchOperation;
export function defineOperation(declaration: ItemDeclaration | BatchDeclaration): Operation {
	const { notices = [], fields, ...operation } = declaration;
	const waits = 'waits' in declaration ? declaration.waits : undefined;
	const traits = traitsOf(declaration as Operation);
	const panel: INodeProperties[] = [
		// The tool notice shows only in the tool variant: a waiting operation is a tool too (actions/agent/waiting.ts).
		...(traits.dials ? [dialsNotice, ...(waits ? [waits.notice] : []), agentToolNotice] : []),
		...notices,
		...(traits.startsTask && !traits.dials ? [agentStartNotice] : []),
		...fields,
		...(waits?.fields ?? []),
		runOptionsField(traits),
	];
	if (!waits) return { ...operation, fields: panel } as Operation;
	// The wait's declaration becomes a flag and the wait's fields in the panel.
	const item: Partial<ItemDeclaration> = { ...(operation as ItemDeclaration) };
	delete item.waits;
	return { ...(item as ItemDeclaration), fields: panel, waitsForResult: true };
}
