/**
 * scripts/lib/process-tree.js: a process started with spawnTree is ended with everything it
 * started (here: process groups on Linux/macOS; Windows' taskkill /T is exercised by the
 * `npm start` workflow in GitHub Actions).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type { ChildProcess } from 'child_process';

const { spawnTree, killTree, treeAlive } = require('../../scripts/lib/process-tree');

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (condition()) return true;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return condition();
}

/** A node process that starts a grandchild (which would outlive it) and prints the grandchild's pid. */
function startParentWithGrandchild(): Promise<{ child: ChildProcess; grandchild: number }> {
	const script = `
		const { spawn } = require('child_process');
		const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
		console.log(g.pid);
		setInterval(() => {}, 1000);
	`;
	const child: ChildProcess = spawnTree(process.execPath, ['-e', script], {
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	return new Promise((resolve, reject) => {
		child.stdout!.once('data', (chunk: Buffer) =>
			resolve({ child, grandchild: Number(String(chunk).trim()) }),
		);
		child.once('error', reject);
	});
}

test('killTree ends the process and the processes it started', async () => {
	const { child, grandchild } = await startParentWithGrandchild();
	const exited = new Promise((resolve) => child.once('exit', resolve));
	expect(alive(grandchild)).toBe(true);
	expect(treeAlive(child.pid)).toBe(true);
	expect(killTree(child, 'SIGKILL')).toBe(true);
	await exited;
	expect(await until(() => !alive(grandchild))).toBe(true);
	expect(treeAlive(child.pid)).toBe(false);
});

test('killTree of a tree that is gone reports that nothing was there', async () => {
	const child: ChildProcess = spawnTree(process.execPath, ['-e', '0'], { stdio: 'ignore' });
	await new Promise((resolve) => child.once('exit', resolve));
	await until(() => !treeAlive(child.pid));
	expect(killTree(child, 'SIGKILL')).toBe(false);
	expect(killTree(undefined)).toBe(false);
});
