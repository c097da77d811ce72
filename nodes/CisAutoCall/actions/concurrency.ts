/** Runs `task` for every index with at most `limit` in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(
	inputs: readonly T[],
	limit: number,
	task: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, worker);
	await Promise.all(workers);
	return results;
}
