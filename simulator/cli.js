#!/usr/bin/env node
// @ts-check
'use strict';

/**
 * Runs the simulator as its own process:
 *   node simulator/cli.js --port 5680 --token sim-token --time-scale 0.05 [--latency 0]
 *        [--connection-delay 0] [--user email:password ...] [--max-batch-size N] [--strict-headers]
 * Prints "CIS simulator listening on http://127.0.0.1:<port>" and runs until SIGINT/SIGTERM.
 */

const { createSimulator } = require('./index');

function parseArgs(argv) {
	/** @type {Record<string, any>} */
	const options = {};
	/** @type {Array<{email: string, password: string}>} */
	const users = [];
	for (let i = 0; i < argv.length; i += 1) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--port':
				options.port = Number(value());
				break;
			case '--token':
				options.token = value();
				break;
			case '--time-scale':
				options.timeScale = Number(value());
				break;
			case '--latency':
				options.latencyMs = Number(value());
				break;
			case '--connection-delay':
				options.connectionDelayMs = Number(value());
				break;
			case '--strict-headers':
				options.strictHeaders = true;
				break;
			case '--batch-answer-shape':
				options.batchAnswerShape = value();
				break;
			case '--max-batch-size':
				options.maxBatchSize = Number(value());
				break;
			case '--user': {
				const text = String(value());
				const colon = text.indexOf(':');
				users.push({ email: text.slice(0, colon), password: text.slice(colon + 1) });
				break;
			}
			case '--help':
				process.stdout.write(
					'usage: cli.js [--port N] [--token T] [--time-scale X] [--latency MS] [--connection-delay MS] [--user email:password]\n',
				);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown option ${argv[i]}`);
		}
	}
	if (users.length) options.users = users;
	return options;
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	/** @type {Awaited<ReturnType<typeof createSimulator>> | null} */
	let sim = null;
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		if (sim) await sim.close();
		process.exit(0);
	};
	// Handlers first: a parent may signal as soon as it reads the "listening" line.
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	sim = await createSimulator(options);
	if (stopping) {
		await sim.close();
		return;
	}
	process.stdout.write(`CIS simulator listening on ${sim.url}\n`);
}

main().catch((error) => {
	process.stderr.write(`cis simulator: ${error && error.message}\n`);
	process.exit(1);
});
