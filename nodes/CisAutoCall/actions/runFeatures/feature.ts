import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Operation, Run } from '../operation';

/**
 * The contract of a run feature (a folder of runFeatures/, listed once in runFeatures/index.ts): its
 * options in the Options collection, read once per run into its step, and the step's part in the
 * pipeline's walk (pipeline/index.ts). It uses nothing of the pipeline; the pipeline uses it.
 */

/** What came of one item: its output, or its error. */
export type Outcome = { ok: true; json: IDataObject | IDataObject[] } | { ok: false; error: Error };

/** What a step may record about the items of a run (the pipeline's Outcomes). */
export interface ItemResults {
	get(itemIndex: number): Outcome | undefined;
	set(itemIndex: number, outcome: Outcome): void;
	succeed(itemIndex: number, json: IDataObject | IDataObject[]): void;
	/** Bad input or a refusal, before anything is sent: throws unless Continue On Fail. */
	fail(itemIndex: number, error: unknown): void;
	/** The first item that failed, or -1. */
	firstFailed(): number;
}

/** What an operation is, as far as the run features care: each is declared once, by the operation (traitsOf). */
export interface OperationTraits {
	/** Whether a request may create something (a task, a candidate). */
	creates: boolean;
	/** Whether all items are sent together, in batches. */
	batch: boolean;
	/** Whether it starts calls (it dials the items' numbers). */
	dials: boolean;
	/** Whether it names people by their phone numbers (it dials them, or cancels their calls): it reads phones. */
	readsPhones: boolean;
	/** Whether it may start a call task (which phones everyone in it). */
	startsTask: boolean;
}

/** The traits of an operation, read from what it declares: the same for its Options collection and for its run. */
export function traitsOf(operation: Operation): OperationTraits {
	return {
		creates: operation.creates,
		batch: operation.kind === 'batch',
		dials: operation.dialledPhones !== undefined,
		readsPhones:
			operation.dialledPhones !== undefined ||
			('namesPeopleByPhone' in operation && operation.namesPeopleByPhone === true),
		startsTask: operation.startsTask !== undefined,
	};
}

/** What a feature reads once per run. */
export interface RunSource {
	context: IExecuteFunctions;
	operation: Operation;
	asAgentTool: boolean;
	/** The Options as n8n resolved them. */
	options: IDataObject;
	/** The Options as saved in the workflow: switches that guard people and cost count only from here, never from an expression. */
	saved: IDataObject;
}

/**
 * A feature's part in one run, each hook at its place in the pipeline's walk:
 * prepare → (a run that sends nothing: `check`, `show`) → `leaveOut` → `beforeSending` → send →
 * `settle` → `afterSending` → output. `prepared` holds the items still to be sent; a step that
 * takes an item out of it records the item's result.
 */
export interface Step {
	/** The run sends nothing: its items are checked and shown, no request is sent. */
	sendsNothing?: boolean;
	/** A run that sends nothing: refuses the items a real run would refuse, with no other effect. */
	check?(operation: Operation, prepared: Map<number, unknown>, results: ItemResults): void;
	/** A run that sends nothing: what each item left would send. */
	show?(operation: Operation, prepared: Map<number, unknown>, results: ItemResults): void;
	/** Leaves out what was sent before, each with its result. */
	leaveOut?(prepared: Map<number, unknown>, results: ItemResults): void | Promise<void>;
	/** The last word before sending: may refuse items, or the whole run. */
	beforeSending?(
		run: Run,
		operation: Operation,
		prepared: Map<number, unknown>,
		results: ItemResults,
	): void | Promise<void>;
	/** After sending, also when sending (or a step's `beforeSending`) threw. */
	settle?(results: ItemResults): Promise<void>;
	/** After sending, once every item has its result. */
	afterSending?(results: ItemResults): void;
}

export interface RunFeature {
	/**
	 * Its options in the Options collection of an operation with these traits (none: []). The
	 * feature applies exactly where it has options: its step is read only there (readRunFeatures).
	 */
	options(traits: OperationTraits): INodeProperties[];
	/** Reads its options once per run (throws InputError naming the option); its step, or none when it does nothing in this run. */
	read(source: RunSource): Step | undefined;
}
