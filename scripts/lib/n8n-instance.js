'use strict';
/**
 * Install, start and talk to a real n8n (installed by ./n8n-install.js) on 127.0.0.1: one entry
 * point for the scripts and the suites, each concern in its own file.
 *
 *   const { startN8n, setupOwner, installPackageTarball } = require('./n8n-instance');
 *   await installPackageTarball(userFolder, '/abs/pkg.tgz', '2.41.1');   // ./n8n-package.js
 *   const n8n = await startN8n({ version: '2.41.1', userFolder });       // ./n8n-server.js
 *   const client = await setupOwner(n8n.url);                             // ./n8n-client.js
 *   const wf = await client.createWorkflow(workflowJson);
 *   await client.activate(wf.id);
 *   await n8n.stop();
 *
 * Every process started here is supervised (./supervisor.js): killed as a whole on stop(), and on
 * exit/SIGINT/SIGTERM of this process.
 *
 * Plain Node (CommonJS, built-ins only).
 */
const { startN8n, runN8nCli, executeWorkflowCli, ENCRYPTION_KEY } = require('./n8n-server');
const { setupOwner, createClient, DEFAULT_OWNER } = require('./n8n-client');
const { installPackageTarball } = require('./n8n-package');
const { spawnSupervised, stopSupervised } = require('./supervisor');
const { httpRequest, HttpError, freePort } = require('./http');

module.exports = {
	startN8n,
	setupOwner,
	createClient,
	installPackageTarball,
	runN8nCli,
	executeWorkflowCli,
	httpRequest,
	freePort,
	spawnSupervised,
	stopSupervised,
	HttpError,
	DEFAULT_OWNER,
	ENCRYPTION_KEY,
};
