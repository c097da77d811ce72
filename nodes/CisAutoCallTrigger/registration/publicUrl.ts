import type { IHookFunctions } from 'n8n-workflow';

import { isAddressAllowed, parseAddressList, parseIp } from '../../shared/ipAddresses';
import { ActivationRefusal } from './settings';

/**
 * The guard where money is spent: "New Call Task" creates a paid campaign whose events go to this
 * trigger's webhook URL. When n8n gives the trigger a URL the internet cannot reach (n8n without a
 * public URL: localhost, a private or link-local address, a .local name), the campaign would call
 * people and no event would ever arrive, so activation refuses unless the user says the service
 * can reach it (a simulator, a private network).
 */

/** Addresses no one on the internet can reach: loopback, private, link-local, unspecified. */
const LOCAL_RANGES = parseAddressList([
	'127.0.0.0/8',
	'10.0.0.0/8',
	'172.16.0.0/12',
	'192.168.0.0/16',
	'169.254.0.0/16',
	'0.0.0.0/8',
	'::1/128',
	'::/128',
	'fe80::/10',
	'fc00::/7',
]);

/** Why `url` cannot be reached from the internet, or undefined when it may be. */
export function whyNotPublic(url: string): string | undefined {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase();
	} catch {
		return 'it is not a valid URL';
	}
	if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
	const name = host.endsWith('.') ? host.slice(0, -1) : host;
	if (name === 'localhost' || name.endsWith('.localhost')) return 'localhost is this computer';
	if (name.endsWith('.local')) return '.local names exist only in the local network';
	if (!name.includes('.') && parseIp(name) === undefined)
		return 'a name without a domain exists only in the local network';
	if (parseIp(name) !== undefined && isAddressAllowed(name, LOCAL_RANGES)) {
		return `${name} is a local or private address`;
	}
	return undefined;
}

/** The message of the refusal, also quoted by the README and the tests. */
export const LOCAL_URL_MESSAGE =
	'The service could not reach this trigger: its webhook URL is not public';

/** The option that lets a user who knows go on; read as saved, never through an expression. */
export const ALLOW_LOCAL_URL_OPTION = 'allowLocalUrl';

/** Whether the user turned on "Allow a Local Webhook URL" (a literal true; an expression does not count). */
function allowsLocalUrl(context: IHookFunctions): boolean {
	const options = context.getNode().parameters.options;
	return (
		typeof options === 'object' &&
		options !== null &&
		!Array.isArray(options) &&
		(options as Record<string, unknown>)[ALLOW_LOCAL_URL_OPTION] === true
	);
}

/** Throws before anything is created when `url` (without its secret) cannot be reached from the internet. */
export function refuseLocalWebhookUrl(context: IHookFunctions, url: string): void {
	// Trigger nodes saved before version 2 keep registering as they did: a stored workflow must run
	// unchanged after an upgrade. New trigger nodes (version 2) get the guard.
	if (context.getNode().typeVersion < 2) return;
	const reason = whyNotPublic(url);
	if (reason === undefined || allowsLocalUrl(context)) return;
	// n8n's editor shows only the message when publishing fails: the way out is in it too.
	throw new ActivationRefusal(
		context.getNode(),
		`${LOCAL_URL_MESSAGE} (${url}; ${reason}). Set n8n's public URL (N8N_WEBHOOK_URL; WEBHOOK_URL on n8n 1.x) or use Connect To "Existing Task or Template"`,
		"No call task was created. Set n8n's public URL (the N8N_WEBHOOK_URL environment variable, WEBHOOK_URL on n8n 1.x, e.g. https://n8n.example.com/) and restart n8n, " +
			'or set Connect To to "Existing Task or Template". If the service can reach this address (a simulator, a private network), ' +
			'turn on "Allow a Local Webhook URL" in the trigger\'s Options.',
	);
}
