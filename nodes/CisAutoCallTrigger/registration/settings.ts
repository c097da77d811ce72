import type { IHookFunctions, INode } from 'n8n-workflow';
import { WebhookPathTakenError } from 'n8n-workflow';

import { EVENT_NAMES } from '../../shared/events';
import { parseAddressList } from '../../shared/ipAddresses';
import type { ReadParameter } from '../../shared/parameterReaders';
import { readEvents, readOptions } from '../delivery';
import { checkExistingTaskSecret } from '../secret';
import { parametersOf } from '../triggerParameters';

/**
 * The trigger's settings checked at activation (hooks): the events and options each delivery
 * reads (delivery/verify.ts reads them, the same way) and the secret (secret/ checks it).
 */

/**
 * A refusal of the trigger's settings at activation, which no retry can change. n8n 2.x tries a
 * failing trigger activation 5 times, 1, 2, 4 and 8 s apart (about 15 s, 25 s in the editor), unless
 * the error is a WebhookPathTakenError, the one activation error it takes as final: a refusal is
 * one, with its own words, so that the user reads it at once. n8n 1.x reports it like any other.
 */
export class ActivationRefusal extends WebhookPathTakenError {
	constructor(node: INode, message: string, description?: string) {
		super(node.name);
		this.name = 'ActivationRefusal';
		this.message = message;
		this.node = node;
		this.description = description;
	}
}

/** Whether the trigger listens to a task the user connected by hand ("Existing Task or Template"). */
export function connectsToExisting(read: ReadParameter): boolean {
	return read('connectTo', 'newTask') === 'existing';
}

/** "Test this trigger" (or a manual activation): no task is created, nothing registered is touched. */
export function isTestListen(context: IHookFunctions): boolean {
	return context.getMode() === 'manual' || context.getActivationMode() === 'manual';
}

/** Problems with the settings that make the trigger unusable; thrown at activation. */
export async function checkSettings(context: IHookFunctions): Promise<void> {
	const read = parametersOf(context);
	const events = readEvents(read);
	if (events.length === 0) {
		throw new ActivationRefusal(
			context.getNode(),
			'No event is selected',
			'Select at least one event in "Events".',
		);
	}
	const unknown = events.filter((event) => !EVENT_NAMES.includes(event));
	if (unknown.length > 0) {
		throw new ActivationRefusal(
			context.getNode(),
			`Unknown event: ${unknown.join(', ')}`,
			`Known events: ${EVENT_NAMES.join(', ')}.`,
		);
	}
	const { invalid } = parseAddressList(readOptions(read).allowedAddresses);
	if (invalid.length > 0) {
		throw new ActivationRefusal(
			context.getNode(),
			`"Allowed Source Addresses" has entries that are not IP addresses or CIDR ranges: ${invalid.join(', ')}`,
			'Use addresses such as 87.251.83.190 or ranges such as 87.251.83.160/27, separated by commas.',
		);
	}
	await checkExistingTaskSecret(context);
}
