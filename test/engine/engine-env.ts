/**
 * Environment for n8n-core used as a library inside jest. Imported first by harness.ts,
 * before n8n-core/@n8n/config read the environment. Every value can be overridden by
 * setting it before jest starts (e.g. `N8N_LOG_LEVEL=debug npx jest test/engine`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

if (!process.env.N8N_USER_FOLDER) {
	// InstanceSettings (created lazily from the DI container) writes <folder>/.n8n/config.
	const folder = mkdtempSync(path.join(tmpdir(), 'n8n-engine-harness-'));
	process.env.N8N_USER_FOLDER = folder;
	process.once('exit', () => {
		try {
			rmSync(folder, { recursive: true, force: true });
		} catch {
			/* best effort */
		}
	});
}
// n8n's ErrorReporter logs every node error at level "error"; tests read errors from the
// run result instead.
process.env.N8N_LOG_LEVEL ??= 'silent';
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS ??= 'false';
