// @ts-check
'use strict';

/**
 * An answer other than success. Thrown by validation and by the operations, turned into an
 * HTTP response by the server.
 */
class ApiError extends Error {
	/**
	 * @param {number} status HTTP status
	 * @param {object} body JSON body sent to the client
	 * @param {Record<string, string>} [headers]
	 */
	constructor(status, body, headers = {}) {
		super(/** @type {any} */ (body).error || `HTTP ${status}`);
		this.status = status;
		this.body = body;
		this.headers = headers;
	}
}

/** Section 7 of the spec: {timestamp, type, error, details}. Used for every validation failure. */
function validationError(field, message) {
	return new ApiError(400, {
		timestamp: Math.floor(Date.now() / 1000),
		type: 'ValidationException',
		error: message,
		details: { field },
	});
}

function notFound(message) {
	return new ApiError(404, { error: message, details: null });
}

/** A request that is well formed but not possible in the current state (e.g. play on HALTED). */
function unprocessable(type, message, details = null) {
	return new ApiError(422, {
		timestamp: Math.floor(Date.now() / 1000),
		type,
		error: message,
		details,
	});
}

module.exports = { ApiError, validationError, notFound, unprocessable };
