/**
 * npm run by the scripts under a downloaded Node (scripts/lib/n8n-install.js `npmEnv`) keeps the
 * machine's global npmrc: npm looks for it beside the Node that runs it, so without this a proxy,
 * registry or `cafile` set there is lost when a script is run with `node` instead of through npm.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { execFileSync } from 'child_process';
import * as path from 'path';

const NODE = { nodeBin: path.join(path.sep, 'elsewhere', 'runtime-node-24', 'bin', 'node') };

function withoutNpmSetting<T>(run: () => T): T {
	const saved = process.env.npm_config_globalconfig;
	delete process.env.npm_config_globalconfig;
	try {
		return run();
	} finally {
		if (saved !== undefined) process.env.npm_config_globalconfig = saved;
	}
}

describe('npmEnv: the machine global npmrc', () => {
	it('run with node (no npm setting): the global npmrc the machine npm reads under its own Node', () => {
		withoutNpmSetting(() => {
			jest.isolateModules(() => {
				const { npmEnv, npmCli } = require('../../scripts/lib/n8n-install');
				const machine = execFileSync(
					process.execPath,
					[npmCli(), 'config', 'get', 'globalconfig'],
					{ encoding: 'utf8' },
				).trim();
				expect(path.isAbsolute(machine)).toBe(true);
				expect(npmEnv(NODE).npm_config_globalconfig).toBe(machine);
			});
		});
	});

	it('run through npm: the setting npm passed down is kept', () => {
		const saved = process.env.npm_config_globalconfig;
		process.env.npm_config_globalconfig = path.join(path.sep, 'somewhere', 'etc', 'npmrc');
		try {
			jest.isolateModules(() => {
				const { npmEnv } = require('../../scripts/lib/n8n-install');
				expect(npmEnv(NODE).npm_config_globalconfig).toBe(
					path.join(path.sep, 'somewhere', 'etc', 'npmrc'),
				);
			});
		} finally {
			if (saved === undefined) delete process.env.npm_config_globalconfig;
			else process.env.npm_config_globalconfig = saved;
		}
	});
});
