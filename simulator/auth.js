// @ts-check
'use strict';

/**
 * Tokens: one static Bearer token from the configuration, plus tokens issued by the login
 * endpoint (docs/service.md "Authentication"): JWT-shaped strings whose payload carries
 * `exp`. Token lifetimes are real time (not scaled), because clients read `exp`.
 */

const crypto = require('crypto');

const DEFAULT_TTL_SECONDS = 7 * 24 * 3600; // the docs' sample token lived 7 days

function base64url(value) {
	return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString(
		'base64url',
	);
}

class Auth {
	/**
	 * @param {{ staticToken: string, users: Array<{email: string, password: string}> }} options
	 */
	constructor({ staticToken, users }) {
		this.staticToken = staticToken;
		this.users = users;
		/** @type {Map<string, {email: string, expiresAt: number, expired: boolean}>} */
		this.accessTokens = new Map();
		/** @type {Map<string, {email: string}>} */
		this.refreshTokens = new Map();
		this.logins = 0;
		this.refreshes = 0;
	}

	issue(email, ttlSeconds = DEFAULT_TTL_SECONDS) {
		const now = Date.now();
		const issuedAt = Math.floor(now / 1000);
		const expiresAtMs = now + ttlSeconds * 1000;
		const expiresAt = Math.floor(expiresAtMs / 1000); // the exp claim is never later than the real expiry
		const header = { alg: 'RS512', typ: 'JWT' };
		const payload = {
			sub: email,
			username: email,
			iat: issuedAt,
			exp: expiresAt,
			jti: crypto.randomUUID(),
		};
		const signature = crypto.randomBytes(48).toString('base64url');
		const token = `${base64url(header)}.${base64url(payload)}.${signature}`;
		const refreshToken = crypto.randomBytes(32).toString('hex');
		this.accessTokens.set(token, { email, expiresAt: expiresAtMs, expired: false });
		this.refreshTokens.set(refreshToken, { email });
		return { token, refreshToken };
	}

	/** @returns {{token: string, refreshToken: string} | null} null on wrong credentials */
	login({ email, password, ttl }) {
		const user = this.users.find((u) => u.email === email && u.password === password);
		if (!user) return null;
		this.logins += 1;
		return this.issue(user.email, ttl);
	}

	/** Rotates the refresh token: the old one stops working. */
	refresh({ refreshToken, ttl }) {
		const entry = this.refreshTokens.get(refreshToken);
		if (!entry) return null;
		this.refreshTokens.delete(refreshToken);
		this.refreshes += 1;
		return this.issue(entry.email, ttl);
	}

	/**
	 * @param {string | undefined} authorizationHeader
	 * @returns {'ok' | 'unauthorized' | 'expired'}
	 */
	check(authorizationHeader) {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(authorizationHeader || '');
		if (!match) return 'unauthorized';
		const token = match[1];
		if (token === this.staticToken) return 'ok';
		const issued = this.accessTokens.get(token);
		if (!issued) return 'unauthorized';
		if (issued.expired || Date.now() >= issued.expiresAt) return 'expired';
		return 'ok';
	}

	/** Every login-issued token now answers 401 "Token is expired.". */
	expireAll({ refreshTokens = false } = {}) {
		for (const issued of this.accessTokens.values()) issued.expired = true;
		if (refreshTokens) this.refreshTokens.clear();
	}

	/** Counters start again; issued tokens stay valid (clients keep them across a reset). */
	resetCounters() {
		this.logins = 0;
		this.refreshes = 0;
	}
}

module.exports = { Auth, DEFAULT_TTL_SECONDS };
