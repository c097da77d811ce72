import type { IDataObject, IExecuteFunctions, IHookFunctions, IHttpRequestMethods, ILoadOptionsFunctions } from 'n8n-workflow';

import type { Repeatability } from './retryPolicy';

/** What a request to the service is: its endpoint, body, how safe it is to repeat, what its success looks like. */

export const API_PATH = '/cis/api/v1/';

export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

/**
 * Checks a 2xx answer against what the API promises for that request: returns what is wrong
 * (e.g. "no id.identity in the answer"), or undefined when the answer is as promised.
 */
export type AnswerCheck = (answer: unknown) => string | undefined;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Relative to /cis/api/v1/, e.g. `telephony/autoCall`. */
	path: string;
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	repeatability: Repeatability;
	/** Words for errors, e.g. "this operation is not available on that server" for a 404 of an optional endpoint. */
	notFoundMeans?: string;
	/** Set for endpoints that are not in the spec: a 404/405 then means the server does not offer them. */
	beyondSpec?: boolean;
	/** What a success looks like; an answer that fails it is not a success (see AnswerCheck). */
	expect?: AnswerCheck;
}
