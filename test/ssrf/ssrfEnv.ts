/**
 * n8n's SSRF protection on, as an admin turns it on, for the engine tests of this folder: imported
 * first, before n8n-core and @n8n/config read the environment. Only 127.0.0.2 is allowed (the
 * service's simulator listens there); 127.0.0.1 (n8n's own address in these tests) stays in the
 * default blocked range 127.0.0.0/8.
 */
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
process.env.N8N_SSRF_ALLOWED_IP_RANGES = '127.0.0.2/32';

export const ALLOWED_HOST = '127.0.0.2';
