import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import type { Simulator } from '../../simulator';

export interface TinyRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	body: string;
}

export interface TinyServer {
	url: string;
	requests: TinyRequest[];
	close(): Promise<void>;
	/** For runAction, which only reads the url of the simulator it is given. */
	asSimulator(): Simulator;
}

/** A small HTTP server on 127.0.0.1 answering with `handler`, recording every request. */
export async function startTinyServer(
	handler: (request: TinyRequest, response: ServerResponse, raw: IncomingMessage) => void,
): Promise<TinyServer> {
	const requests: TinyRequest[] = [];
	const server = createServer((raw, response) => {
		const chunks: Buffer[] = [];
		raw.on('data', (chunk: Buffer) => chunks.push(chunk));
		raw.on('end', () => {
			const url = new URL(raw.url ?? '/', 'http://127.0.0.1');
			const request = {
				method: raw.method ?? 'GET',
				path: url.pathname,
				query: Object.fromEntries(url.searchParams),
				body: Buffer.concat(chunks).toString('utf8'),
			};
			requests.push(request);
			handler(request, response, raw);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
	return {
		url,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
		asSimulator: () => ({ url }) as Simulator,
	};
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
	response.end(text);
}
