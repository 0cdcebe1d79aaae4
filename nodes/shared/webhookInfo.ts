/** The bot's current webhook (getWebhookInfo, spec part 4.5), read tolerantly: both deliveries ask. */
import { z } from 'zod/v4';

import { apiRequest } from './transport/client';
import { redact } from './transport/token';
import type { ServiceBotContext } from './transport/types';

const WebhookInfo = z.looseObject({
	/** '' when the bot has no webhook. */
	url: z.string().optional().catch(undefined),
	// Spec: "other fields not shown"; Telegram-compatible services report these two.
	allowed_updates: z.array(z.string()).optional().catch(undefined),
	max_connections: z.int().optional().catch(undefined),
	/** Spec: the size of the undelivered queue (with no webhook: what no getUpdates acknowledged yet). */
	pending_update_count: z.int().nonnegative().optional().catch(undefined),
});
type WebhookInfo = z.infer<typeof WebhookInfo>;

export async function webhookInfo(ctx: ServiceBotContext, abortSignal?: AbortSignal): Promise<WebhookInfo> {
	const info = WebhookInfo.safeParse(await apiRequest(ctx, 'getWebhookInfo', {}, { idempotent: true, abortSignal }));
	return info.success ? info.data : {};
}

/** A URL for a message: no user info or query string (they may hold someone's secret), no token. */
export function displayUrl(url: string, token: string): string {
	let shown: string;
	try {
		const parsed = new URL(url);
		shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? '?…' : ''}`;
	} catch {
		shown = url.split('?')[0];
	}
	return redact(shown, token);
}
