/**
 * The webhook secret credential shows its rule under the field, before it is saved: n8n draws a
 * property's `hint` below the input, while the test's message sits under "More details" of the
 * red "Couldn't connect". The hint and the check that n8n runs when the credential is saved (the
 * trigger's credential test) say the same length.
 */
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';

const secretField = new CisAutoCallWebhookSecretApi().properties.find(
	(property) => property.name === 'secret',
);
const credentialTest = new CisAutoCallTrigger().methods.credentialTest.cisAutoCallWebhookSecretTest;
const testSecret = async (secret: string) =>
	await credentialTest.call({} as never, {
		id: '1',
		name: 'Secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret } as never,
	});

describe('the webhook secret credential', () => {
	test("the field's own hint states the rule", () => {
		expect(secretField?.hint).toBe('At least 16 characters');
	});

	test('the rule in the hint is the one the credential test applies, and the test keeps its message', async () => {
		const minimum = Number(/At least (\d+) characters/.exec(secretField?.hint ?? '')?.[1]);
		expect(await testSecret('s'.repeat(minimum))).toMatchObject({ status: 'OK' });
		expect(await testSecret('s'.repeat(minimum - 1))).toEqual({
			status: 'Error',
			message: `The secret has ${minimum - 1} characters; use at least ${minimum}`,
		});
		expect(await testSecret('abc')).toEqual({
			status: 'Error',
			message: `The secret has 3 characters; use at least ${minimum}`,
		});
	});
});
