// Plain http:// is accepted for this machine only, but n8n routes its requests through HTTP_PROXY
// (proxy-from-env, no exemption for localhost) unless NO_PROXY lists it. Node code may not read
// process.env (n8n's lint), so the credential says it where plain http:// is accepted.
import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';

test.each([new CisAutoCallApi(), new CisAutoCallLoginApi()])(
	'$name: the Base URL says plain http:// to localhost needs NO_PROXY',
	(credential) => {
		const baseUrl = credential.properties.find((property) => property.name === 'baseUrl');
		expect(baseUrl?.hint).toMatch(/plain http:\/\/ only for this machine/);
		expect(baseUrl?.hint).toMatch(/NO_PROXY.*HTTP_PROXY|HTTP_PROXY.*NO_PROXY/);
	},
);
