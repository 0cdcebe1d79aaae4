/**
 * The webhook secret of the Service Bot Trigger.
 *
 * The secret is derived, not stored: HMAC-SHA256 keyed by the bot token over the identity of the
 * webhook (workflow id, node id, node webhook id and the URL being served), encoded base64url.
 * - Nobody can compute it without the bot token (n8n's Telegram Trigger uses `workflowId_nodeId`).
 * - Every n8n process that can read the credential computes the same value: the main process that
 *   registers the webhook, a webhook process in queue mode, any process after a restart, and the
 *   editor's test run. Nothing has to be written to static data or shared between processes.
 * - The URL is part of the identity, so the test URL (`/webhook-test/…`) and the production URL
 *   (`/webhook/…`) of the same node get different secrets, as do two nodes or two workflows.
 * Trade-off: rotating the bot token changes the secret, so the webhook must be registered again
 * (deactivate and activate the workflow) after the token changes.
 */
import { createHash, createHmac, timingSafeEqual } from 'crypto';

/** Header the service puts the secret in; Node lower-cases incoming header names. */
export const SECRET_HEADER = 'x-service-bot-api-secret-token';

/** Versioned domain separator, so these HMACs can never be confused with another use of the token. */
const SECRET_CONTEXT = 'n8n-nodes-service-bot:webhook-secret:v1';

export interface WebhookIdentity {
	workflowId: string;
	nodeId: string;
	webhookId: string;
	/** The URL being registered / served: the test URL in the editor's test mode. */
	url: string;
}

/** 43 characters of [A-Za-z0-9_-] (256 bits): within the service's 1–256 character rule. */
export function deriveSecret(token: string, identity: WebhookIdentity): string {
	const message = JSON.stringify([
		SECRET_CONTEXT,
		identity.workflowId,
		identity.nodeId,
		identity.webhookId,
		identity.url,
	]);
	return createHmac('sha256', token).update(message, 'utf8').digest('base64url');
}

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Compares the received header with the expected secret in constant time. Both sides are hashed
 * to 32 bytes first, so `timingSafeEqual` always gets equal-length buffers and the time taken
 * says nothing about the expected secret's length or about how many leading characters matched.
 * An absent header, an empty one, or a repeated header (an array) never matches.
 */
export function secretMatches(received: unknown, expected: string): boolean {
	const candidate = typeof received === 'string' ? received : '';
	const equal = timingSafeEqual(digest(candidate), digest(expected));
	return equal && candidate.length > 0 && expected.length > 0;
}

/** A short, one-way tag of a value (for static data and in-memory keys; never the secret itself). */
export function fingerprint(...parts: string[]): string {
	return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('base64url').slice(0, 22);
}
