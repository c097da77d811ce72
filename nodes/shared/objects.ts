/** A shallow copy of `value` without `key` (instead of a rest pattern whose left-out name would be unused). */
export function withoutKey<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
	const copy: Partial<T> = { ...value };
	delete copy[key];
	return copy as Omit<T, K>;
}
