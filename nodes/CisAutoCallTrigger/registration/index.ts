/**
 * The trigger at publishing time, and the only way into this folder: the settings checked at
 * activation (settings.ts), New Call Task's lifecycle (activation.ts: register a task or take the
 * parked one back, set it aside), what happens to a task the trigger stops using (oldTask.ts), and
 * the refusal of a webhook URL the service could not reach (publicUrl.ts). What it keeps is in
 * ../staticData.ts; each delivery is answered by ../delivery/.
 */

export { isRegistered, register, unregister } from './activation';
export { DEFAULT_OLD_TASK_POLICY, OLD_TASK_POLICY_OPTIONS } from './oldTask';
export { ALLOW_LOCAL_URL_OPTION } from './publicUrl';
export { checkSettings, connectsToExisting, isTestListen } from './settings';
