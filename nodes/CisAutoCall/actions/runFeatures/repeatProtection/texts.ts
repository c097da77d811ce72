import type { NodeExecutionHint } from 'n8n-workflow';

// What Repeat Protection says when a retry leaves items out.

/** The note of an item left out; `withIds`: the output shows the ids the earlier execution got. */
export function alreadyDoneNote(withIds: boolean): string {
	return withIds
		? `Already done by an earlier execution, so not sent again: this is a retry, and the execution it repeats already sent this request (Repeat Protection), so nobody is called twice. The ids above are from that execution.`
		: `Already done by an earlier execution, so not sent again: this is a retry, and the execution it repeats already sent this request (Repeat Protection), so nobody is called twice. Its ids are in that execution: its output, or, if it failed, its error, which lists the items done with their ids (an item whose outcome was unknown there may or may not have been created: check the service).`;
}

/** The notice of a retry that left items out: shown above the node's output. */
export function leftOutHint(leftOut: number[], sending: number): NodeExecutionHint {
	const items = leftOut.length === 1 ? `Item ${leftOut[0]} was` : `${leftOut.length} items were`;
	return {
		type: 'warning',
		location: 'outputPane',
		message: `${items} not sent again: the execution this retry repeats already sent ${leftOut.length === 1 ? 'it' : 'them'}, so nobody is called twice; their items say so. ${sending === 0 ? 'Nothing else was sent.' : `The other ${sending} ${sending === 1 ? 'was' : 'were'} sent.`}`,
	};
}
