import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';
import type { BotRecord, World } from './state';
import type { Update } from './types';
import { nowSeconds } from './util';

export const SECRET_HEADER = 'X-Service-Bot-Api-Secret-Token';
/** Telegram's name of the same header, for Telegram's own nodes pointed at the emulator (the queue bench). */
export const TELEGRAM_SECRET_HEADER = 'X-Telegram-Bot-Api-Secret-Token';

function updateType(u: Update): string {
	return u.message ? 'message' : 'callback_query';
}

function describeNetworkError(err: unknown): string {
	const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
	const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : '';
	if (code === 'ECONNREFUSED') return 'Connection refused';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'Failed to resolve host: Name or service not known';
	if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'Read timeout expired';
	if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'Connection reset by peer';
	const msg = typeof e.message === 'string' ? e.message : String(err);
	return `Connection failed: ${code ? `${code} ` : ''}${msg}`;
}

/**
 * Pushes queued updates of bots with a webhook: one POST per update, at most max_connections
 * concurrent pushes per bot, retries with exponential backoff, gives up after `maxAttempts`.
 * With max_connections = 1 updates are delivered strictly in update_id order (head-of-line retry).
 */
export class WebhookPusher {
	private readonly agent: Agent;
	private readonly workers = new Map<BotRecord, number>();
	private readonly inFlight = new Map<BotRecord, Set<number>>();
	private readonly timers = new Set<{ bot: BotRecord; timer: NodeJS.Timeout; resolve: () => void }>();
	private closed = false;
	/** total push attempts made (for tests / debugging) */
	attempts = 0;

	constructor(
		private readonly world: World,
		private readonly retryBaseMs: number,
		private readonly maxAttempts = 5,
		private readonly timeoutMs = 10_000,
		private readonly telegramSecretHeader = false,
	) {
		this.agent = new Agent({ connections: 128, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 1000 });
	}

	/** Starts push workers for a bot if it has a webhook and undelivered updates. */
	kick(bot: BotRecord): void {
		if (this.closed || !bot.webhook) return;
		const running = this.workers.get(bot) ?? 0;
		const claimed = this.inFlight.get(bot)?.size ?? 0;
		const unclaimed = bot.pending.length - claimed;
		const toStart = Math.min(bot.webhook.maxConnections - running, unclaimed);
		for (let i = 0; i < toStart; i += 1) {
			this.workers.set(bot, (this.workers.get(bot) ?? 0) + 1);
			void this.work(bot, bot.webhook.generation).finally(() => {
				this.workers.set(bot, (this.workers.get(bot) ?? 1) - 1);
				// updates queued while this worker was exiting
				if (!this.closed && bot.webhook && this.world.bots.get(bot.token) === bot) this.kick(bot);
			});
		}
	}

	/** true when no push is running or due (pushes still retrying count as busy). */
	isIdle(): boolean {
		for (const [bot, n] of this.workers) if (n > 0 && this.world.bots.get(bot.token) === bot) return false;
		for (const bot of this.world.bots.values()) {
			if (bot.webhook && bot.pending.length > 0 && !this.closed) return false;
		}
		return true;
	}

	pushesInFlight(bot: BotRecord): number {
		return this.inFlight.get(bot)?.size ?? 0;
	}

	private async work(bot: BotRecord, generation: number): Promise<void> {
		let claimed = this.inFlight.get(bot);
		if (!claimed) {
			claimed = new Set();
			this.inFlight.set(bot, claimed);
		}
		const current = (): boolean => !this.closed && bot.webhook !== null && bot.webhook.generation === generation && this.world.bots.get(bot.token) === bot;
		while (current()) {
			const next = bot.pending.find((u) => !claimed.has(u.update_id));
			if (!next) return;
			const hook = bot.webhook;
			if (!hook) return;
			if (!this.world.allows(bot, updateType(next))) {
				this.remove(bot, next);
				continue;
			}
			claimed.add(next.update_id);
			try {
				await this.deliver(bot, next, generation, current);
			} finally {
				claimed.delete(next.update_id);
			}
		}
	}

	private remove(bot: BotRecord, u: Update): void {
		const i = bot.pending.indexOf(u);
		if (i >= 0) bot.pending.splice(i, 1);
	}

	private async deliver(bot: BotRecord, update: Update, generation: number, current: () => boolean): Promise<void> {
		for (let attempt = 1; attempt <= this.maxAttempts; attempt += 1) {
			if (!current() || !bot.pending.includes(update)) return;
			const hook = bot.webhook;
			if (!hook) return;
			let error: string | null = null;
			try {
				this.attempts += 1;
				const headers: Record<string, string> = { 'content-type': 'application/json' };
				if (hook.secretToken !== undefined) headers[SECRET_HEADER] = hook.secretToken;
				if (hook.secretToken !== undefined && this.telegramSecretHeader) headers[TELEGRAM_SECRET_HEADER] = hook.secretToken;
				const res = await request(hook.url, {
					method: 'POST',
					headers,
					body: JSON.stringify(update),
					dispatcher: this.agent,
					headersTimeout: this.timeoutMs,
					bodyTimeout: this.timeoutMs,
				});
				await res.body.dump().catch(() => undefined);
				if (res.statusCode < 200 || res.statusCode > 299) {
					error = `Wrong response from the webhook: ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trim();
				}
			} catch (err) {
				error = describeNetworkError(err);
			}
			if (error === null) {
				this.remove(bot, update);
				return;
			}
			if (bot.webhook && bot.webhook.generation === generation) bot.webhook.lastError = { date: nowSeconds(), message: error };
			if (attempt === this.maxAttempts) {
				// give up on this update
				this.remove(bot, update);
				return;
			}
			await this.sleep(bot, this.retryBaseMs * 2 ** (attempt - 1));
		}
	}

	private sleep(bot: BotRecord, ms: number): Promise<void> {
		return new Promise((resolve) => {
			const entry = {
				bot,
				timer: setTimeout(() => {
					this.timers.delete(entry);
					resolve();
				}, ms),
				resolve,
			};
			this.timers.add(entry);
		});
	}

	/** Wakes the backoff sleeps (of one bot, or all) so that workers re-check their webhook at once. */
	wakeSleepers(bot?: BotRecord): void {
		for (const t of [...this.timers]) {
			if (bot && t.bot !== bot) continue;
			clearTimeout(t.timer);
			this.timers.delete(t);
			t.resolve();
		}
	}

	async close(): Promise<void> {
		this.closed = true;
		this.wakeSleepers();
		await this.agent.destroy().catch(() => undefined);
	}
}
