import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	allowingSetting,
	blockedAddress,
	egressBlockOf,
	type SsrfBlock,
} from '../../shared/ssrfBlock';
import type { WaitMarker } from '../../shared/waitForResult';
import { whereInLog } from '../triggerParameters';

/**
 * This n8n's own addresses, as the hand-over uses them: the waiting address it resumes at
 * (`resumeUrlOf`), the public address it posts to (`postToThisN8n`), and n8n's SSRF protection on them.
 *
 * The trigger hands the events of waiting calls to n8n's own waiting address (handOver.ts), a
 * request through n8n's HTTP helper like any other. With n8n's SSRF protection on and n8n's own
 * address in a blocked range (any n8n on a LAN, in Docker with an internal name, or on localhost),
 * that request never leaves n8n and no wait could end. n8n 2.x offers no exception for its own
 * address; the admin allows it: n8n's host name in N8N_SSRF_ALLOWED_HOSTNAMES (the narrowest
 * hole) or its address in N8N_SSRF_ALLOWED_IP_RANGES. Publishing checks this with n8n's own egress
 * filter (the same check the helper makes, nothing is sent) and warns in n8n's log naming the setting.
 */

/** What the admin can do, in words: the setting for this address, and the host-name way for an IP address. */
function howToAllow(block: SsrfBlock): string {
	const setting = allowingSetting(block);
	const viaName = block.hostname
		? ''
		: ' (or give n8n a host name in N8N_WEBHOOK_URL and add that name to N8N_SSRF_ALLOWED_HOSTNAMES)';
	return `${setting.charAt(0).toUpperCase()}${setting.slice(1)}${viaName}, then restart n8n`;
}

/** The words of a blocked hand-over, for n8n's log, the answer to the service and the output. */
export function blockedHandOverWords(block: SsrfBlock, origin: string): string {
	return `n8n's SSRF protection blocked the hand-over of the call's result to n8n's own waiting address (${origin}, ${blockedAddress(block)}). ${howToAllow(block)}.`;
}

/**
 * Publishing goes on when n8n's SSRF protection blocks the trigger's own address: events that start
 * this workflow need no hand-over, and a workflow saved with 0.2.0 (no waits then) publishes as it
 * did. n8n's log gets one warning naming the setting (checkExists runs once per publishing; create
 * only after it); the "… and Wait for Result" operations refuse at once in this setup, where the user
 * meets it. Returns the warning, or undefined when the address is allowed.
 */
export async function warnIfHandOverBlocked(context: IHookFunctions): Promise<string | undefined> {
	const own = context.getNodeWebhookUrl('default');
	if (!own) return undefined;
	let origin: string;
	try {
		origin = new URL(own).origin;
	} catch {
		return undefined;
	}
	const block = await egressBlockOf(context.helpers, `${origin}/`);
	if (!block) return undefined;
	const warning =
		`${whereInLog(context)}: ` +
		`n8n's SSRF protection blocks this trigger's own address ${blockedAddress(block)}, so waiting workflows could never get their results ("… and Wait for Result" calls nobody until then). ` +
		`${howToAllow(block)}.`;
	context.logger.warn(warning);
	return warning;
}

/**
 * A POST of a webhook process to this n8n's own public address (a hand-over, an event passed on):
 * JSON, any status returned as it is, no redirect followed (the secret or wait's key never goes elsewhere).
 */
export async function postToThisN8n(
	context: IWebhookFunctions,
	url: string,
	body: IDataObject,
	headers: Record<string, string> = {},
): Promise<{ statusCode: number; body: unknown }> {
	return (await context.helpers.httpRequest({
		method: 'POST',
		url,
		body,
		headers,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: 30_000,
	})) as { statusCode: number; body: unknown };
}

/**
 * This n8n's waiting-webhook address for the marker: the trigger's own origin (never one from the
 * event) with the waiting path the execution reported (its `$execution.resumeUrl`). A marker
 * without a path: n8n's default, the trigger's own production URL `<base>/<endpoint>/<webhookId>/webhook`
 * gives `<base>/<endpoint>-waiting/`.
 */
export function resumeUrlOf(context: IWebhookFunctions, marker: WaitMarker): string | undefined {
	const own = context.getNodeWebhookUrl('default');
	const webhookId = context.getNode().webhookId;
	if (!own || !webhookId) return undefined;
	let waitingBase: string;
	if (marker.path) {
		waitingBase = `${new URL(own).origin}${marker.path}`;
	} else {
		const suffix = `/${webhookId}/webhook`;
		if (!own.endsWith(suffix)) return undefined;
		const endpointUrl = own.slice(0, -suffix.length);
		const cut = endpointUrl.lastIndexOf('/');
		waitingBase = `${endpointUrl.slice(0, cut)}/${endpointUrl.slice(cut + 1)}-waiting`;
	}
	const url = new URL(
		`${waitingBase}/${encodeURIComponent(marker.execution)}/${encodeURIComponent(marker.node)}`,
	);
	if (url.origin !== new URL(own).origin) return undefined;
	if (marker.token) url.searchParams.set('signature', marker.token);
	return url.toString();
}
