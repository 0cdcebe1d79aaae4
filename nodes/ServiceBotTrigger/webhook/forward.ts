/**
 * The receiver's part of sharing a bot (listeners.ts): a push the service sent is forwarded to every
 * other listener of the bot on this n8n, at its own webhook URL, with a secret only that listener
 * accepts. A listener that is down does not hold the others up, and does not make the service send
 * the update again to everyone: its failure is logged, and the push is answered as received.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { messageOf } from '../../shared/transport';
import type { Run } from '../../shared/trigger/identity';
import { fingerprint } from '../../shared/trigger/identity';
import type { Listener } from './listeners';
import { LISTENERS_PARAMETER, isListener, listenersIn, webhookIdOf } from './listeners';
import { SECRET_HEADER, forwardSecret } from './secret';

/** A listener that does not answer within this time is left behind for this update. */
const FORWARD_TIMEOUT_MS = 30_000;
const WARN_INTERVAL_MS = 60_000;
/** When each listener last caused a warning (bounded). */
const lastWarned = new Map<string, number>();

function warnOnce(ctx: IWebhookFunctions, listener: Listener, message: string): void {
	const key = fingerprint('forward', listener.path);
	const now = Date.now();
	const last = lastWarned.get(key);
	if (last !== undefined && now - last < WARN_INTERVAL_MS) return;
	if (lastWarned.size >= 1000) lastWarned.clear();
	lastWarned.set(key, now);
	ctx.logger.warn(message);
}

async function forwardTo(ctx: IWebhookFunctions, origin: string, token: string, listener: Listener, body: unknown): Promise<void> {
	const name = ctx.getNode().name;
	try {
		const response = await ctx.helpers.httpRequest({
			method: 'POST',
			url: `${origin}${listener.path}`,
			headers: { [SECRET_HEADER]: forwardSecret(token, webhookIdOf(listener) ?? '', listener.run) },
			body: body as object,
			json: true,
			timeout: FORWARD_TIMEOUT_MS,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		});
		const status = typeof response === 'object' && response !== null ? Number((response as { statusCode?: unknown }).statusCode) : 200;
		if (status < 300) return;
		// A test's URL is gone as soon as it got its event; n8n removes it from the list right after.
		if (listener.run === 'test' && status === 404) return;
		warnOnce(
			ctx,
			listener,
			`Service Bot Trigger "${name}": a workflow listening to this bot at ${listener.path} answered ${status}; it misses updates until it answers again. If that workflow was deleted or moved, publish it again or unpublish it (logged at most once a minute)`,
		);
	} catch (error) {
		warnOnce(
			ctx,
			listener,
			`Service Bot Trigger "${name}": could not forward an update to the workflow listening at ${listener.path}: ${messageOf(error)} (logged at most once a minute)`,
		);
	}
}

/**
 * Forwards the push to the bot's other listeners named in the request's query, all at once, and
 * resolves when each has answered or failed. Nothing is forwarded for a bot with one listener.
 */
export async function forwardToListeners(ctx: IWebhookFunctions, token: string, self: { webhookId: string; run: Run }): Promise<void> {
	const query = ctx.getQueryData() as Record<string, unknown>;
	const others = listenersIn(query[LISTENERS_PARAMETER]).filter((listener) => !isListener(listener, self.webhookId, self.run));
	if (others.length === 0) return;
	const ownUrl = ctx.getNodeWebhookUrl('default');
	if (!ownUrl) return;
	// Only to this n8n: the origin is n8n's own, whatever the registered URL says.
	const origin = new URL(ownUrl).origin;
	const body = ctx.getBodyData();
	await Promise.all(others.map(async (listener) => await forwardTo(ctx, origin, token, listener, body)));
}
