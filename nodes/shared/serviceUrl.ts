import { isLoopbackIp } from './ipAddresses';

/**
 * Where the token and the password may be sent: https, or plain http only to this machine
 * (loopback: localhost, 127.0.0.0/8, ::1), where nothing crosses a network. Used by the node
 * (before any request), by the credentials' authenticate() and by the login.
 */

export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
	return host === 'localhost' || isLoopbackIp(host);
}

/** The address without user info, query or fragment: safe to show in an error. */
export function displayUrl(value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : String(value ?? '');
	try {
		const url = new URL(text);
		return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
	} catch {
		return text.length > 80 ? `${text.slice(0, 77)}...` : text;
	}
}

/** What is wrong with a Base URL or Login URL, or undefined when secrets may go there. */
export function insecureUrlProblem(label: string, value: unknown): string | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return `${label} "${displayUrl(value)}" is not a web address; enter one such as https://twin24.ai`;
	}
	if (url.protocol === 'https:') return undefined;
	if (url.protocol === 'http:') {
		if (isLoopbackHost(url.hostname)) return undefined;
		return `${label} "${displayUrl(text)}" uses plain http://, which would send the token and your data unencrypted; use https:// (plain http:// is accepted only for this machine: localhost, 127.x.x.x, ::1)`;
	}
	return `${label} "${displayUrl(text)}" is not an http(s) address; enter one such as https://twin24.ai`;
}

/** The host a redirect's Location points to, resolved against the request's address. */
export function redirectHost(location: unknown, requestUrl: string): string {
	if (typeof location !== 'string' || location.trim() === '') return 'an address it did not give';
	try {
		return new URL(location, requestUrl).host;
	} catch {
		return 'an unreadable address';
	}
}
