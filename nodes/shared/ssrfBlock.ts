import { isIpLiteral } from './ipAddresses';

/**
 * n8n's SSRF protection (n8n 2.x, `N8N_SSRF_PROTECTION_ENABLED=true`): n8n's HTTP helpers refuse to
 * connect to an address in a blocked range (127/8, 10/8, 172.16/12, 192.168/16, ... by default)
 * unless the admin allowed it. The request never leaves n8n: nothing reaches the other side. This
 * file recognises n8n's error for it and says which setting lets the request through.
 *
 * n8n 2.41.1 (`@n8n/backend-network`, ssrf/): `SsrfBlockedIpError` ("The request was blocked
 * because it resolves to a restricted IP address", fields `ip`, `hostname`) and
 * `SsrfBlockedHostnameError` ("The request was blocked because the destination hostname is
 * restricted", field `hostname`), both `UserError`s, thrown before connecting (pre-flight URL
 * check, secure DNS lookup, connection guard). A host name in N8N_SSRF_ALLOWED_HOSTNAMES skips
 * the address check of what it resolves to; an IP address written in the URL is checked against
 * the ranges only (N8N_SSRF_ALLOWED_IP_RANGES), whatever the allowed host names say.
 */

/** What n8n's SSRF protection blocked. */
export interface SsrfBlock {
	/** The blocked IP address, when the block was by address. */
	ip?: string;
	/** The host name of the request, when it had one (not an IP address). */
	hostname?: string;
	/** Blocked by the deny-list of host names (N8N_SSRF_BLOCKED_HOSTNAMES) rather than by address. */
	byHostname: boolean;
}

const ERROR_NAMES = new Set(['SsrfBlockedIpError', 'SsrfBlockedHostnameError']);
const MESSAGE =
	/The request was blocked because (it resolves to a restricted IP address|the destination hostname is restricted)/;

function text(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The host name of `url` when it names one (not an IP address). */
function hostNameOf(url: string | undefined): string | undefined {
	if (!url) return undefined;
	try {
		const name = new URL(url).hostname;
		return name && !isIpLiteral(name) ? name : undefined;
	} catch {
		return undefined;
	}
}

/** The IP address `url` names as its host, if it names one. */
function ipLiteralOf(url: string | undefined): string | undefined {
	if (!url) return undefined;
	try {
		const name = new URL(url).hostname;
		const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
		return isIpLiteral(bare) ? bare : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The SSRF block behind an error n8n's helpers threw (the error itself or one of its causes:
 * n8n wraps it in a NodeApiError), or undefined when the error is something else. `url`, the
 * request's address, gives the host name when n8n's error names only the address it resolved to.
 */
export function ssrfBlockOf(error: unknown, url?: string): SsrfBlock | undefined {
	// n8n's error can sit under others (axios' error, n8n's NodeApiError), which repeat its message
	// without its fields: every level is read.
	const seen = new Set<unknown>();
	let level: unknown = error;
	let found = false;
	let ip: string | undefined;
	let hostname: string | undefined;
	let byHostname = false;
	while (typeof level === 'object' && level !== null && !seen.has(level)) {
		seen.add(level);
		const candidate = level as {
			name?: unknown;
			message?: unknown;
			ip?: unknown;
			hostname?: unknown;
			extra?: unknown;
			cause?: unknown;
		};
		const named = typeof candidate.name === 'string' && ERROR_NAMES.has(candidate.name);
		const match = typeof candidate.message === 'string' ? MESSAGE.exec(candidate.message) : null;
		if (named || match) {
			found = true;
			const extra = (
				typeof candidate.extra === 'object' && candidate.extra !== null ? candidate.extra : {}
			) as { ip?: unknown; hostname?: unknown };
			ip ??= text(candidate.ip) ?? text(extra.ip);
			hostname ??= text(candidate.hostname) ?? text(extra.hostname);
			byHostname ||=
				candidate.name === 'SsrfBlockedHostnameError' ||
				(match !== null && match[1].startsWith('the destination'));
		}
		level = candidate.cause;
	}
	if (!found) return undefined;
	hostname ??= hostNameOf(url);
	ip ??= ipLiteralOf(url);
	return {
		...(ip ? { ip } : {}),
		...(hostname && !isIpLiteral(hostname) ? { hostname } : {}),
		byHostname,
	};
}

/** The address in words: "127.0.0.1" or "n8n.internal (10.0.0.5)". */
export function blockedAddress(block: SsrfBlock): string {
	const host = block.hostname;
	if (host && block.ip) return `${host} (${block.ip})`;
	return host ?? block.ip ?? 'that address';
}

/** The range that allows exactly one address: `<ip>/32`, or `/128` for IPv6. */
function singleRange(ip: string): string {
	return `${ip}/${ip.includes(':') ? 128 : 32}`;
}

/**
 * Which setting of n8n lets the request through, in words an admin can act on. A host name is
 * the narrower hole (only that name, not everything else at its address); an IP address written
 * in the URL can only be allowed by range.
 */
export function allowingSetting(block: SsrfBlock): string {
	const host = block.hostname;
	if (host && block.byHostname) {
		return `remove ${host} from N8N_SSRF_BLOCKED_HOSTNAMES or add it to N8N_SSRF_ALLOWED_HOSTNAMES`;
	}
	if (host) {
		return `add ${host} to N8N_SSRF_ALLOWED_HOSTNAMES${block.ip ? ` (or ${singleRange(block.ip)} to N8N_SSRF_ALLOWED_IP_RANGES)` : ''}`;
	}
	if (block.ip) return `add ${singleRange(block.ip)} to N8N_SSRF_ALLOWED_IP_RANGES`;
	return 'allow its address in N8N_SSRF_ALLOWED_IP_RANGES or its host name in N8N_SSRF_ALLOWED_HOSTNAMES';
}

/** The part of n8n's helpers this file uses (n8n 2.x; n8n 1.x has no SSRF protection and no such helper). */
interface EgressFilterHelpers {
	getSecureEgressFilter?: () => {
		validateUrl(url: string): Promise<{ ok: boolean; error?: unknown }>;
	};
}

/**
 * Asks n8n's own egress filter (the same check its HTTP helpers make before connecting) whether
 * `url` may be reached, without sending anything. Undefined: allowed, or SSRF protection is off,
 * or this n8n has no such filter (1.x), or the check itself failed (e.g. the name does not resolve):
 * then the request will tell.
 */
export async function egressBlockOf(helpers: unknown, url: string): Promise<SsrfBlock | undefined> {
	const getFilter = (helpers as EgressFilterHelpers | undefined)?.getSecureEgressFilter;
	if (typeof getFilter !== 'function') return undefined;
	try {
		const result = await getFilter.call(helpers).validateUrl(url);
		if (result.ok) return undefined;
		return ssrfBlockOf(result.error, url);
	} catch {
		return undefined;
	}
}
