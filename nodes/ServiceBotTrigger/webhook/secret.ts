/**
 * The webhook secret of the Service Bot Trigger.
 *
 * The secret is derived, not stored: HMAC-SHA256 keyed by the bot token over the trigger's identity
 * (workflow id, node id, webhook id) and its run (test or production), encoded base64url.
 * - Nobody can compute it without the bot token (n8n's Telegram Trigger uses `workflowId_nodeId`).
 * - Every n8n process that can read the credential computes the same value: the main process that
 *   registers the webhook, a webhook process in queue mode, any process after a restart, the
 *   editor's test run, and a test that hands a published workflow's webhook back to it.
 * - Test and production get different secrets, as do two nodes or two workflows.
 * A new bot token gives a new secret, while the service keeps the one it was given: so create()
 * also keeps a digest of the secret it registered (`secretDigest`, in the node's static data) and of
 * its shared secret (which another listener may register for it), and a production push with either
 * is accepted after the token was changed in the credential, until the workflow is published again.
 * Without that record (a test, or a registration of an older version) pushes are refused and a
 * warning says what to do (see `receive.ts`).
 *
 * Version 0.1.0 derived the secret over the webhook URL instead of the run. n8n does not register a
 * published workflow's webhook again on restart, so production deliveries also accept that secret
 * (`legacySecret`), computed from the production URL, which every n8n gives in a webhook context.
 */
import { createHash, timingSafeEqual } from 'crypto';

import type { Run, TriggerIdentity } from '../../shared/trigger/identity';
import { keyed } from '../../shared/trigger/identity';

// Both live with what the action node reads too: the header in the spec's constants, the forward
// secret with the listener list (Send and Wait probes the bot's receiver with it).
export { SECRET_HEADER } from '../../shared/spec';
export { forwardSecret } from '../../shared/trigger/listeners';

/** 43 characters of [A-Za-z0-9_-] (256 bits): within the service's 1–256 character rule. */
export function deriveSecret(token: string, identity: TriggerIdentity, run: Run): string {
	return keyed(token, 'webhook-secret:v2', [identity.workflowId, identity.nodeId, identity.webhookId, run]);
}

/**
 * The secret of a webhook several triggers share (listeners.ts): any of them derives it for the
 * receiver from the bot token and the receiver's webhook id and run, and the receiver accepts it.
 */
export function sharedSecret(token: string, webhookId: string, run: Run): string {
	return keyed(token, 'webhook-shared:v1', [webhookId.toLowerCase(), run]);
}

/** The secret version 0.1.0 registered: the same HMAC over the URL being served. */
export function legacySecret(token: string, identity: TriggerIdentity, url: string): string {
	return keyed(token, 'webhook-secret:v1', [identity.workflowId, identity.nodeId, identity.webhookId, url]);
}

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/** A one-way digest of a registered secret, to keep instead of the secret (base64url). */
export function secretDigest(secret: string): string {
	return digest(secret).toString('base64url');
}

/** Whether the received header is the secret whose digest create() kept, in constant time. */
export function matchesDigest(received: unknown, kept: string | undefined): boolean {
	if (typeof received !== 'string' || received.length === 0 || kept === undefined) return false;
	const expected = Buffer.from(kept, 'base64url');
	return expected.length === 32 && timingSafeEqual(digest(received), expected);
}

/**
 * Whether the received header equals one of the accepted secrets, in constant time: both sides are
 * hashed to 32 bytes first, so `timingSafeEqual` always gets equal-length buffers, and every accepted
 * secret is compared (no early exit), so the time says nothing about which one, if any, matched.
 * An absent header, an empty one, or a repeated header (an array) never matches.
 */
export function secretMatches(received: unknown, accepted: readonly string[]): boolean {
	const candidate = digest(typeof received === 'string' ? received : '');
	let matched = false;
	for (const secret of accepted) {
		const equal = timingSafeEqual(candidate, digest(secret));
		matched = (equal && secret.length > 0) || matched;
	}
	return matched && typeof received === 'string' && received.length > 0;
}
