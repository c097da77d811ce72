'use strict';
/**
 * The bench's --cpu-prof DIR: n8n's Node writes a V8 CPU profile of each of its processes into DIR
 * when the process ends (Node's --cpu-prof, given through NODE_OPTIONS; n8n's graceful stop ends with
 * process.exit(), which writes it; scripts/lib/supervisor.js signals it once, as a second SIGTERM would end it
 * before that). Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');

/** n8n's environment for profiling into `dir`, keeping any NODE_OPTIONS the caller gave n8n. */
function profilingEnv(dir, env = {}) {
	fs.mkdirSync(dir, { recursive: true });
	const quoted = /[\s"]/.test(dir) ? JSON.stringify(dir) : dir;
	return {
		NODE_OPTIONS: [env.NODE_OPTIONS, '--cpu-prof', `--cpu-prof-dir=${quoted}`]
			.filter(Boolean)
			.join(' '),
	};
}

/**
 * After n8n stopped: the largest new profile in `dir` is n8n's main process (the supervisor's watchdog and
 * a task runner, if one ran, write small ones too). It becomes `dir/<name>.cpuprofile`; the other new ones
 * move to `dir/other-processes/`. Resolves the path, or null when there is none.
 */
function takeProfile(dir, name) {
	const fresh = fs
		.readdirSync(dir)
		.filter((f) => /^CPU\..*\.cpuprofile$/.test(f))
		.map((f) => ({ file: path.join(dir, f), size: fs.statSync(path.join(dir, f)).size }))
		.sort((a, b) => b.size - a.size);
	if (fresh.length === 0) return null;
	const target = path.join(dir, `${name}.cpuprofile`);
	fs.renameSync(fresh[0].file, target);
	if (fresh.length > 1) {
		const others = path.join(dir, 'other-processes');
		fs.mkdirSync(others, { recursive: true });
		for (const f of fresh.slice(1))
			fs.renameSync(f.file, path.join(others, `${name}.${path.basename(f.file)}`));
	}
	return target;
}

/**
 * How many deliveries a profiled scenario made, all contenders and warm-up rounds together (the profile
 * cannot tell contenders apart): events of scenario 5, leads of scenario 7; undefined for the others.
 * @returns {{ count: number, name: string } | undefined}
 */
function deliveriesOf(report, scenario, args) {
	const s = report.scenarios[scenario];
	if (!s || !Array.isArray(s.results)) return undefined;
	const contenders = s.results.length;
	if (scenario === 5) {
		const warmUp = args.smoke ? 0 : Math.min(args.events, 200);
		const perConfig = contenders * (warmUp + args.repeat * args.events);
		return {
			count: perConfig * (s.configs ? s.configs.length : 1) + (s.unparsedBody ? 1 : 0),
			name: 'event (all contenders)',
		};
	}
	if (scenario === 7) {
		const warmUp = args.smoke ? 0 : 20;
		return {
			count: contenders * (warmUp + args.waitRounds * args.leads),
			name: 'lead (all routes)',
		};
	}
	return undefined;
}

module.exports = { profilingEnv, takeProfile, deliveriesOf };
