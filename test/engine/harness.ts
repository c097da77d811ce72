/**
 * Engine harness: runs this package's nodes through n8n's REAL engine. One file per thing it
 * simulates; this index re-exports them (tests import from here):
 *
 * - ./nodeRunner.ts      `runNode()`: a real `Workflow` (harness start node -> node under test) run
 *                        by n8n-core's `WorkflowExecute`: parameters/expressions, `getCredentials`,
 *                        `httpRequestWithAuthentication`, Continue On Fail, pairedItem are n8n's code.
 * - ./credentials.ts     `CredentialStore`: a real `ICredentialsHelper` applying credential types as
 *                        n8n's CLI helper does (defaults, expressions, authenticate, preAuthentication).
 * - ./credentialTest.ts  `runCredentialTest()`: a credential type's declarative `test`, like n8n's
 *                        CredentialsTester (n8n-core's `RoutingNode`, then `rules`).
 * - ./agentRunner.ts     `runAgentTool()`: the node as an AI Agent's tool, both ways n8n runs tools.
 * - ./webhookMethods.ts  `runWebhookMethod()`: checkExists/create/delete in n8n-core's `HookContext`.
 * - ./webhookServer.ts   `startWebhookServer()`: the trigger's production webhook URL over real
 *                        HTTP, `webhook()` in n8n-core's `WebhookContext`, answering like n8n's live
 *                        webhooks in response mode `onReceived`.
 * - ./setup.ts, ./nodeTypes.ts, ./additionalData.ts: what every run builds.
 *
 * Setup notes (see README.md in this folder): the `@n8n/di` container needs nothing
 * registered by hand; n8n-core resolves `OutboundHttp`, `Logger`, `ErrorReporter`,
 * `InstanceSettings` etc. lazily. `InstanceSettings` is pointed at a throw-away folder
 * (N8N_USER_FOLDER) before first use (./engine-env.ts). Expressions use n8n-workflow's `legacy` engine (the
 * in-process tournament evaluator, n8n-workflow's default): the `vm` engine needs the
 * isolated-vm native module, which is not built here (Node 20, ignore-scripts).
 */
import './engine-env';

export { HARNESS_WORKFLOW_ID, DEFAULT_WEBHOOK_ID, setupEngine } from './setup';
export { CredentialStore } from './credentials';
export { runNode } from './nodeRunner';
export type { RunOptions, RunResult } from './nodeRunner';
export { runAgentTool } from './agentRunner';
export type { ToolInvocation, AgentToolOptions, AgentToolResult } from './agentRunner';
export { runCredentialTest } from './credentialTest';
export type { CredentialTestOptions } from './credentialTest';
export { runWebhookMethod } from './webhookMethods';
export type { WebhookMethodOptions, WebhookMethodResult } from './webhookMethods';
export { startWebhookServer } from './webhookServer';
export type { WebhookServerOptions, WebhookCall, WebhookServer } from './webhookServer';
export { WaitingExecutions, type Execution, type WaitingRunOptions } from './waitingExecutions';
