/**
 * The one reader of IP addresses (IPv4, IPv6, CIDR ranges), without DNS: the trigger's source
 * address allow-list and its public URL, the SSRF block's words, and the loopback hosts that may
 * take a secret over plain HTTP.
 */

/** An address range: the address bytes (4 for IPv4, 16 for IPv6) and the prefix length in bits. */
interface AddressRange {
	bytes: number[];
	prefix: number;
	text: string;
}

export interface AddressList {
	ranges: AddressRange[];
	/** Entries that are neither an IP address nor a CIDR range. */
	invalid: string[];
}

function parseIPv4(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4) return undefined;
	const bytes: number[] = [];
	for (const part of parts) {
		if (!/^\d{1,3}$/.test(part)) return undefined;
		const value = Number(part);
		if (value > 255) return undefined;
		bytes.push(value);
	}
	return bytes;
}

function parseIPv6(input: string): number[] | undefined {
	let text = input;
	// An embedded IPv4 tail (e.g. ::ffff:127.0.0.1) becomes two groups.
	const lastColon = text.lastIndexOf(':');
	if (lastColon !== -1 && text.slice(lastColon + 1).includes('.')) {
		const v4 = parseIPv4(text.slice(lastColon + 1));
		if (!v4) return undefined;
		text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
	}
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const readGroups = (part: string): number[] | undefined => {
		if (part === '') return [];
		const groups: number[] = [];
		for (const group of part.split(':')) {
			if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
			groups.push(parseInt(group, 16));
		}
		return groups;
	};
	const head = readGroups(halves[0]);
	const tail = halves.length === 2 ? readGroups(halves[1]) : [];
	if (!head || !tail) return undefined;
	let groups: number[];
	if (halves.length === 2) {
		const missing = 8 - head.length - tail.length;
		if (missing < 1) return undefined;
		groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
	} else {
		groups = head;
	}
	if (groups.length !== 8) return undefined;
	const bytes: number[] = [];
	for (const group of groups) bytes.push(group >> 8, group & 0xff);
	return bytes;
}

function isMappedIPv4(bytes: number[]): boolean {
	return (
		bytes.length === 16 &&
		bytes.slice(0, 10).every((b) => b === 0) &&
		bytes[10] === 0xff &&
		bytes[11] === 0xff
	);
}

/** Bytes of an IP address; IPv4-mapped IPv6 (::ffff:a.b.c.d) is read as the IPv4 address. */
export function parseIp(input: string): number[] | undefined {
	let text = input.trim();
	if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
	const zone = text.indexOf('%');
	if (zone !== -1) text = text.slice(0, zone);
	if (text === '') return undefined;
	const bytes = text.includes(':') ? parseIPv6(text) : parseIPv4(text);
	if (bytes && isMappedIPv4(bytes)) return bytes.slice(12);
	return bytes;
}

/** Whether `host` is an IP address written as such (v4, or v6 with or without brackets), not a host name. */
export function isIpLiteral(host: string): boolean {
	return parseIp(host) !== undefined;
}

/** Whether `host` is a loopback address: 127.0.0.0/8, or ::1 (an IPv4-mapped address is not read as one). */
export function isLoopbackIp(host: string): boolean {
	const bytes = parseIp(host);
	if (!bytes) return false;
	if (host.includes(':'))
		return bytes.length === 16 && bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1;
	return bytes[0] === 127;
}

/** One entry: an address (a range of one) or address/prefix. */
function parseRange(input: string): AddressRange | undefined {
	const text = input.trim();
	const slash = text.indexOf('/');
	const addressText = slash === -1 ? text : text.slice(0, slash);
	let bytes = parseIp(addressText);
	if (!bytes) return undefined;
	const wasIPv6Text = addressText.includes(':');
	let prefix = bytes.length * 8;
	if (slash !== -1) {
		const prefixText = text.slice(slash + 1);
		if (!/^\d{1,3}$/.test(prefixText)) return undefined;
		prefix = Number(prefixText);
		// ::ffff:a.b.c.d/120 is the IPv4 range a.b.c.d/24.
		if (wasIPv6Text && bytes.length === 4) {
			if (prefix < 96) return undefined;
			prefix -= 96;
		}
		if (prefix > bytes.length * 8) return undefined;
	}
	bytes = maskBytes(bytes, prefix);
	return { bytes, prefix, text };
}

function maskBytes(bytes: number[], prefix: number): number[] {
	return bytes.map((byte, index) => {
		const bits = Math.max(0, Math.min(8, prefix - index * 8));
		const mask = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
		return byte & mask;
	});
}

/** Entries separated by commas, semicolons, spaces or new lines. */
export function parseAddressList(input: string | readonly string[] | undefined): AddressList {
	const entries = (typeof input === 'string' ? input.split(/[\s,;]+/) : [...(input ?? [])])
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
	const ranges: AddressRange[] = [];
	const invalid: string[] = [];
	for (const entry of entries) {
		const range = parseRange(entry);
		if (range) ranges.push(range);
		else invalid.push(entry);
	}
	return { ranges, invalid };
}

/**
 * Whether `ip` is inside one of the ranges of `list`. An empty list allows everything; a list
 * with entries but no valid one allows nothing (fail closed); an unreadable `ip` is refused.
 */
export function isAddressAllowed(
	ip: string | undefined,
	list: string | readonly string[] | AddressList | undefined,
): boolean {
	const parsed = isAddressList(list) ? list : parseAddressList(list);
	if (parsed.ranges.length === 0 && parsed.invalid.length === 0) return true;
	const bytes = ip === undefined ? undefined : parseIp(ip);
	if (!bytes) return false;
	return parsed.ranges.some(
		(range) =>
			range.bytes.length === bytes.length &&
			maskBytes(bytes, range.prefix).every((b, i) => b === range.bytes[i]),
	);
}

function isAddressList(value: unknown): value is AddressList {
	return typeof value === 'object' && value !== null && !Array.isArray(value) && 'ranges' in value;
}
