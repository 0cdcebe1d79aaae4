/**
 * Who a trigger is, in terms every supported n8n gives the same way: the workflow id, the node id,
 * the node's webhook id, and whether it runs for a test in the editor or in production. Secrets and
 * keys are derived from these and the bot token, never from URLs, which depend on n8n's version and
 * configuration.
 */
import { createHash, createHmac } from 'crypto';
import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

export type TriggerContext = IHookFunctions | IWebhookFunctions | ITriggerFunctions;

export interface TriggerIdentity {
	readonly workflowId: string;
	readonly nodeId: string;
	/** The node's webhook id ('' for a node without webhooks). */
	readonly webhookId: string;
}

/** 'test' for the editor's "Listen for test event", 'production' for a published workflow. */
export type Run = 'test' | 'production';

export function identityOf(ctx: TriggerContext): TriggerIdentity {
	const node = ctx.getNode();
	return { workflowId: String(ctx.getWorkflow().id ?? ''), nodeId: node.id, webhookId: node.webhookId ?? '' };
}

/**
 * n8n runs a trigger for the editor's test in mode 'manual': test webhooks are registered
 * (checkExists / create) and delivered (webhook()) in that mode, and a test's trigger() gets it too.
 * Not usable in a webhook's delete(), which n8n runs in mode 'internal' for both.
 */
export function runOf(ctx: TriggerContext): Run {
	return ctx.getMode() === 'manual' ? 'test' : 'production';
}

/** HMAC-SHA256 keyed by the bot token over a versioned purpose and parts; base64url (43 characters). */
export function keyed(token: string, purpose: string, parts: readonly string[]): string {
	return createHmac('sha256', token)
		.update(JSON.stringify([`n8n-nodes-service-bot:${purpose}`, ...parts]), 'utf8')
		.digest('base64url');
}

/** A short, one-way tag of a value (for static data and in-memory keys; never a secret itself). */
export function fingerprint(...parts: string[]): string {
	return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('base64url').slice(0, 22);
}

/** A one-way key of the bot (for in-memory registries and stored offsets), one per purpose. */
export function botKeyOf(token: string, purpose: string): string {
	return fingerprint(purpose, keyed(token, 'bot:v1', []));
}

/** The key of a trigger's duplicate window: per bot, trigger, delivery and run. */
export function deliveryKey(token: string, identity: TriggerIdentity, delivery: 'webhook' | 'polling', run: Run): string {
	return fingerprint(
		'duplicate-window',
		keyed(token, 'duplicate-window:v1', [delivery, identity.workflowId, identity.nodeId, identity.webhookId, run]),
	);
}
