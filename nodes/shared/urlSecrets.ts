/**
 * The trigger's webhook URL carries its secret as `?secret=...`, and the service echoes webhook
 * URLs in tasks (Get, Get Many) and sometimes in error details. Every text or output the node
 * gives shows such URLs with the value masked, so that the secret never reaches an execution's
 * data, a log or an AI model.
 */

/**
 * `secret=` as a query parameter, also percent-encoded inside another URL's query; the value runs to the next `&`, `#`
 * (plain or encoded), quote, backslash or space.
 */
const SECRET_IN_URL =
	/((?:[?&]|%3F|%26)secret(?:=|%3D))(?!\*\*\*(?:[&#"'\\\s<>]|%2[36]|$))(?:(?!%2[36])[^&#"'\\\s<>])+/gi;

/** The mark that replaces a masked value. */
const MASKED = '***';

/** A text with every `secret=` value of the URLs in it masked. */
export function maskUrlSecretsInText(text: string): string {
	return text.replace(SECRET_IN_URL, `$1${MASKED}`);
}

/**
 * A copy of `value` (JSON data: texts, objects, arrays) with every `secret=` value of the URLs
 * in its texts and keys masked; `value` itself when there is none. Works on the JSON text, so
 * nesting of any depth costs no recursion of its own.
 */
export function maskUrlSecrets<T>(value: T): T {
	if (value === undefined || value === null) return value;
	if (typeof value === 'string') return maskUrlSecretsInText(value) as T;
	if (typeof value !== 'object') return value;
	const text = JSON.stringify(value);
	if (text === undefined || !/secret(?:=|%3D)/i.test(text)) return value;
	const masked = maskUrlSecretsInText(text);
	return masked === text ? value : (JSON.parse(masked) as T);
}
