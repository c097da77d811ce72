import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { ReadItemParameter } from '../../shared/parameterReaders';
import type { ReadItemPhones } from '../../shared/phones';
import type { RunSettings } from './sending';
import type { ApiClient, ApiRequest } from '../../shared/transport';

/**
 * The contract between the pipeline (pipeline/) and the operations: what an operation gets per run
 * (Run) and the shapes an operation has. It imports nothing of the pipeline; the errors an operation
 * may throw or ask about are in itemErrors.ts.
 */

/** What every operation gets of the run object, which the pipeline reads once per node run (pipeline/run.ts). */
export interface Run {
	context: IExecuteFunctions;
	items: INodeExecutionData[];
	client: ApiClient;
	settings: RunSettings;
	/** Use instead of `context.getNodeParameter`: parameters without expressions are read once. */
	parameter: ReadItemParameter;
	/**
	 * Create Batch's call task of each group of entries, kept across the tries of this node run
	 * (n8n's Retry On Fail), so that a later try joins the task an earlier one created.
	 */
	groupTasks: GroupTasks;
	/** The one reading of phones (nodes/shared/phones) with this run's Default Country and number rules. */
	readPhones: ReadItemPhones;
}

/** Create Batch: the call task made for one group of entries, the try making it, or why none may be used. */
export type GroupTask = { taskId: string } | { creating: Promise<void> } | { unusable: string };

/** The call task of each group of entries (the key: e.g. template + bot script). */
export interface GroupTasks {
	get(group: string): GroupTask | undefined;
	set(group: string, task: GroupTask): void;
	delete(group: string): void;
}

/**
 * One request (or one short sequence) per input item. Operations are declared with defineOperation
 * (defineOperation.ts), which says each trait once. `prepare` reads and checks an item's
 * parameters without I/O, so that bad input stops the run before any request is sent.
 */
export interface ItemOperation<Prepared = unknown> {
	kind: 'item';
	/**
	 * Its panel, as defineOperation builds it from the declaration; its resource (<Resource>.resource.ts)
	 * shows it only when the operation is chosen.
	 */
	fields: INodeProperties[];
	/** Whether a request may create something (a task, a candidate): a later try must not send it again. */
	creates: boolean;
	prepare(run: Run): (itemIndex: number) => Prepared;
	execute(run: Run, prepared: Prepared, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/** Set by operations that start calls: the numbers one prepared item dials (one candidate). */
	dialledPhones?(prepared: Prepared): string[];
	/** Set by operations that may start a call task (which phones everyone in it): whether this item does. */
	startsTask?(prepared: Prepared): boolean;
	/** Set by an operation that names people by phone without dialling them (Cancel): it reads phones as dialling does. */
	namesPeopleByPhone?: true;
	/**
	 * Set by the "… and Wait for Result" operations: each candidate's Callback Data gets a marker and
	 * the execution waits for the results the CIS Auto-Call Trigger hands over (actions/waiting/).
	 */
	waitsForResult?: true;
}

/** All input items of the run are sent together, `settings.batchSize` entries per request. */
export interface BatchOperation {
	kind: 'batch';
	fields: INodeProperties[];
	creates: boolean;
	prepare(run: Run): (itemIndex: number) => IDataObject;
	/** Set by operations that start calls: the numbers one entry dials (one candidate). */
	dialledPhones?(entry: IDataObject): string[];
	/** Set by operations that may start a call task (which phones everyone in it): whether this entry does. */
	startsTask?(entry: IDataObject): boolean;
	/** Entries of different groups never share a request (e.g. they belong to different call tasks). */
	groupOf?(run: Run, entry: IDataObject): string;
	/** The sender of one run: sends one chunk and returns one output per entry, in the entries' order. */
	chunkSender(run: Run): (entries: IDataObject[], itemIndexes: number[]) => Promise<IDataObject[]>;
	/**
	 * The request a chunk of entries goes into (Create Batch: the one that creates the task). The
	 * sender sends it; Dry Run shows it for one entry.
	 */
	request(entries: IDataObject[]): ApiRequest;
}

export type Operation = ItemOperation | BatchOperation;

/** A request plus the fields that the output echoes back (e.g. the id the request was about). */
export interface PreparedRequest {
	request: ApiRequest;
	echo: IDataObject;
}
