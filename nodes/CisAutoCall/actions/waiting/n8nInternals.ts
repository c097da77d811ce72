import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/**
 * The one read of n8n-core internals in the action node. Checked against n8n 1.123.81 and 2.41.1
 * (the e2e suite's versions: test/e2e/run.js); look here first when a newer n8n no longer resumes
 * a wait.
 *
 * A webhook() has no getContext(), so the waiting node's resume reads its saved node context
 * (`getContext('node')` of the run that started the wait) from the execution data that n8n-core's
 * WebhookContext was created with: `runExecutionData.executionData.contextData['node:<name>']`.
 */
interface WithExecutionData {
	runExecutionData?: { executionData?: { contextData?: Record<string, IDataObject | undefined> } } | null;
}

export function savedNodeContextOf(context: IWebhookFunctions): IDataObject | undefined {
	const contextData = (context as unknown as WithExecutionData).runExecutionData?.executionData?.contextData;
	return contextData?.[`node:${context.getNode().name}`];
}
