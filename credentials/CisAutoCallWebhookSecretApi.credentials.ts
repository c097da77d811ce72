import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { icon, secretProperty } from './common';

/**
 * The secret that the CIS Auto-Call Trigger (Existing Task or Template) expects in `?secret=`.
 * Kept in a credential so that it is stored encrypted and never travels with the workflow
 * (exports, workflow history, execution data). Nothing is sent anywhere with it: the trigger
 * node's credential test checks its length.
 */
export class CisAutoCallWebhookSecretApi implements ICredentialType {
	name = 'cisAutoCallWebhookSecretApi';

	displayName = 'CIS Auto-Call Webhook Secret API';

	documentationUrl =
		'https://github.com/cis-autocall/n8n-nodes-cis-autocall/blob/main/docs/trigger.md';

	icon = icon;

	properties: INodeProperties[] = [
		secretProperty({
			displayName: 'Secret',
			name: 'secret',
			// Under the field, so the rule is read before saving (the trigger's credential test refuses a shorter one).
			hint: 'At least 16 characters',
			description:
				'A value you choose, e.g. a random password, that the webhook URL ends with after ?secret=; requests without it get 401',
		}),
	];
}
