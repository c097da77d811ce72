'use strict';
/**
 * Peak memory of a process group (n8n under its watchdog: the n8n main process, its task
 * runner, the watchdog), sampled from /proc every `intervalMs`. Linux only; elsewhere it
 * reports nothing.
 */
const fs = require('fs');

function readStatus(pid) {
	try {
		const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const kb = (name) => {
			const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
			return m ? Number(m[1]) * 1024 : 0;
		};
		return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
	} catch (_) {
		return null;
	}
}

function readPgrp(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return Number(fields[2]);
	} catch (_) {
		return null;
	}
}

function readArgv(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
	} catch (_) {
		return [];
	}
}

/** The processes of group `pgid`: [{pid, role: 'main'|'runner'|'other', cmd}]. */
function groupProcesses(pgid) {
	let pids = [];
	try {
		pids = fs
			.readdirSync('/proc')
			.filter((n) => /^\d+$/.test(n))
			.map(Number);
	} catch (_) {
		return [];
	}
	const out = [];
	for (const pid of pids) {
		if (readPgrp(pid) !== pgid) continue;
		const argv = readArgv(pid);
		const cmd = argv.join(' ');
		let role = 'other';
		// the watchdog (`node -e <script> … n8n start`) leads the group; n8n itself is `node …/bin/n8n start`
		if (argv[1] !== '-e' && argv.includes('start') && argv.some((a) => /(^|\/)n8n$/.test(a)))
			role = 'main';
		else if (/task-runner/.test(cmd)) role = 'runner';
		out.push({ pid, role, cmd });
	}
	return out;
}

/**
 * Starts sampling group `pgid`. stop() resolves
 * { mainPeakRss, totalPeakRss, mainHwm, samples, mainPid } (bytes).
 */
function sampleGroup(pgid, { intervalMs = 100 } = {}) {
	if (!pgid || !fs.existsSync('/proc')) return { stop: async () => null };
	let procs = groupProcesses(pgid);
	let mainPeakRss = 0;
	let totalPeakRss = 0;
	let mainHwm = 0;
	let samples = 0;
	let ticks = 0;
	const tick = () => {
		// the task runner may be started lazily: look for new members now and then
		if (ticks++ % 20 === 0) procs = groupProcesses(pgid);
		let total = 0;
		for (const p of procs) {
			const s = readStatus(p.pid);
			if (!s) continue;
			total += s.rss;
			if (p.role === 'main') {
				mainPeakRss = Math.max(mainPeakRss, s.rss);
				mainHwm = Math.max(mainHwm, s.hwm);
			}
		}
		totalPeakRss = Math.max(totalPeakRss, total);
		samples++;
	};
	tick();
	const timer = setInterval(tick, intervalMs);
	return {
		async stop() {
			clearInterval(timer);
			tick();
			const main = procs.find((p) => p.role === 'main');
			return { mainPeakRss, totalPeakRss, mainHwm, samples, mainPid: main ? main.pid : null };
		},
	};
}

/** Current RSS of the group's main n8n process (bytes), e.g. before a run. */
function mainRss(pgid) {
	const main = groupProcesses(pgid).find((p) => p.role === 'main');
	const s = main && readStatus(main.pid);
	return s ? s.rss : 0;
}

module.exports = { sampleGroup, groupProcesses, mainRss, readStatus };

/* ------------------------------------------------------------------ CPU of others */

function readCpuTotals() {
	try {
		const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
		const v = line.trim().split(/\s+/).slice(1).map(Number);
		const idle = v[3] + (v[4] || 0);
		const total = v.reduce((a, b) => a + b, 0);
		return { total, idle };
	} catch (_) {
		return null;
	}
}

function readProcCpu(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// utime, stime, cutime, cstime: fields 14–17 of stat, i.e. 11–14 after the name
		return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
	} catch (_) {
		return 0;
	}
}

/**
 * Measures, over a stretch of time, how busy the machine was with processes other than ours
 * (ours: the given pids and every member of the given process groups).
 * stop() → { ownCores, otherCores, cores } in average busy cores over the stretch.
 */
function cpuWatch({ pids = [], groups = [] } = {}) {
	const cores = require('os').cpus().length;
	const ours = () => {
		const set = new Set(pids.filter(Boolean));
		for (const g of groups.filter(Boolean)) for (const p of groupProcesses(g)) set.add(p.pid);
		return [...set];
	};
	const startPids = ours();
	const t0 = readCpuTotals();
	const own0 = new Map(startPids.map((p) => [p, readProcCpu(p)]));
	return {
		stop() {
			const t1 = readCpuTotals();
			if (!t0 || !t1 || t1.total === t0.total) return null;
			let own = 0;
			for (const p of new Set([...startPids, ...ours()]))
				own += readProcCpu(p) - (own0.get(p) || 0);
			const totalDelta = t1.total - t0.total;
			const busy = totalDelta - (t1.idle - t0.idle);
			const frac = (x) => Math.max(0, (x / totalDelta) * cores);
			return { ownCores: +frac(own).toFixed(2), otherCores: +frac(busy - own).toFixed(2), cores };
		},
	};
}

module.exports.cpuWatch = cpuWatch;
module.exports.readProcCpu = readProcCpu;
