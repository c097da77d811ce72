import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { allowingSetting, blockedAddress, egressBlockOf, type SsrfBlock } from '../shared/ssrfBlock';

/**
 * The trigger hands the events of waiting calls to n8n's own waiting address (handOver.ts), a
 * request through n8n's HTTP helper like any other. With n8n's SSRF protection on and n8n's own
 * address in a blocked range (any n8n on a LAN, in Docker with an internal name, or on localhost),
 * that request never leaves n8n and no wait could end. n8n 2.x offers no exception for its own
 * address; the admin allows it: n8n's host name in N8N_SSRF_ALLOWED_HOSTNAMES (the narrowest
 * hole) or its address in N8N_SSRF_ALLOWED_IP_RANGES. Publishing checks this with n8n's own egress
 * filter (the same check the helper makes, nothing is sent) and fails naming the setting.
 */

/** What the admin can do, in words: the setting for this address, and the host-name way for an IP address. */
function howToAllow(block: SsrfBlock): string {
	const setting = allowingSetting(block);
	const viaName = block.hostname
		? ''
		: " (or give n8n a host name in N8N_WEBHOOK_URL and add that name to N8N_SSRF_ALLOWED_HOSTNAMES)";
	return `${setting.charAt(0).toUpperCase()}${setting.slice(1)}${viaName}, then restart n8n`;
}

/** The words of a blocked hand-over, for n8n's log, the answer to the service and the output. */
export function blockedHandOverWords(block: SsrfBlock, origin: string): string {
	return `n8n's SSRF protection blocked the hand-over of the call's result to n8n's own waiting address (${origin}, ${blockedAddress(block)}). ${howToAllow(block)}.`;
}

/** Throws, so that publishing fails, when n8n's SSRF protection blocks the trigger's own address. */
export async function refuseBlockedHandOver(context: IHookFunctions): Promise<void> {
	const own = context.getNodeWebhookUrl('default');
	if (!own) return;
	let origin: string;
	try {
		origin = new URL(own).origin;
	} catch {
		return;
	}
	const block = await egressBlockOf(context.helpers, `${origin}/`);
	if (!block) return;
	// n8n's editor shows only the message when publishing fails: the setting is in it.
	throw new NodeOperationError(
		context.getNode(),
		`n8n's SSRF protection blocks this trigger's own address ${blockedAddress(block)}, so waiting workflows (Wait for Result) could never get their results. ${howToAllow(block)}`,
		{
			description:
				`The trigger hands each call's result to the waiting execution at n8n's own address (${origin}); n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) blocks requests to it. ` +
				'Allowing only n8n\'s own host name (N8N_SSRF_ALLOWED_HOSTNAMES) keeps the rest of that range blocked for every node.',
		},
	);
}
