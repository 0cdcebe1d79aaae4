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

/** Defaults of the push options (EmulatorOptions `webhookRetryBaseMs`, `webhookRetryMaxMs`, `webhookRetentionMs`, `webhookTimeoutMs`). */
export const PUSH_DEFAULTS = {
	retryBaseMs: 500,
	retryMaxMs: 60_000,
	/** Telegram: undelivered updates are kept for 24 hours */
	retentionMs: 24 * 60 * 60 * 1000,
	timeoutMs: 10_000,
} as const;

export interface PushOptions {
	/** the first retry interval; it doubles after every failed attempt */
	retryBaseMs: number;
	/** the longest retry interval (the doubling stops there) */
	retryMaxMs: number;
	/** an undelivered update older than this (since it was queued) is dropped */
	retentionMs: number;
	/** optional extra limit: push attempts per update before it is dropped; Infinity = none (the default) */
	maxAttempts: number;
	/** timeout of one push (headers and body) */
	timeoutMs: number;
	/** pushes carry the secret under Telegram's header name too */
	telegramSecretHeader: boolean;
}

/** The wait after the `failures`-th failed attempt of an update (1 = the first): base · 2^(failures − 1), at most `maxMs`. */
export function retryDelayMs(baseMs: number, maxMs: number, failures: number): number {
	return Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
}

/** setTimeout takes at most 2^31 − 1 ms (longer fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Pushes queued updates of bots with a webhook: one POST per update, at most max_connections
 * concurrent pushes per bot. A failed push is retried, as Telegram keeps undelivered updates and
 * retries: after base, 2·base, 4·base, … up to `retryMaxMs` between attempts, until the update is
 * delivered or older than `retentionMs` (then dropped; or after `maxAttempts`, when set).
 * With max_connections = 1 updates are delivered strictly in update_id order (head-of-line retry).
 */
export class WebhookPusher {
	private readonly agent: Agent;
	private readonly workers = new Map<BotRecord, number>();
	private readonly inFlight = new Map<BotRecord, Set<number>>();
	private readonly timers = new Set<{ bot: BotRecord; timer: NodeJS.Timeout; resolve: () => void }>();
	private closed = false;
	private readonly options: PushOptions;
	/** total push attempts made (for tests / debugging) */
	attempts = 0;
	/** pushes answered 2xx */
	private delivered = 0;
	/** failed attempts (each is sent again after the backoff), by what failed: `404 Not Found`, `Connection refused`, … */
	private readonly failed = new Map<string, number>();
	/** every push attempt: which update, when it was sent and answered, and what failed (null: delivered) */
	readonly log: Array<{ updateId: number; at: number; answeredAt: number; error: string | null }> = [];

	constructor(
		private readonly world: World,
		options: Partial<PushOptions> = {},
	) {
		this.options = {
			retryBaseMs: options.retryBaseMs ?? PUSH_DEFAULTS.retryBaseMs,
			retryMaxMs: options.retryMaxMs ?? PUSH_DEFAULTS.retryMaxMs,
			retentionMs: options.retentionMs ?? PUSH_DEFAULTS.retentionMs,
			maxAttempts: options.maxAttempts ?? Number.POSITIVE_INFINITY,
			timeoutMs: options.timeoutMs ?? PUSH_DEFAULTS.timeoutMs,
			telegramSecretHeader: options.telegramSecretHeader === true,
		};
		for (const [name, value] of Object.entries(this.options)) {
			if (typeof value === 'number' && (Number.isNaN(value) || value < 0)) throw new Error(`emulator: webhook option ${name} must be a non-negative number, got ${value}`);
		}
		if (this.options.maxAttempts < 1) throw new Error('emulator: webhookMaxAttempts must be at least 1');
		const { timeoutMs } = this.options;
		this.agent = new Agent({ connections: 128, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 1000 });
	}

	/** How long an update has left before the retention drops it (≤ 0: due to be dropped). */
	private remainingMs(update: Update): number {
		const queued = this.world.queuedAt.get(update) ?? Date.now();
		return queued + this.options.retentionMs - Date.now();
	}

	/**
	 * Drops a webhook bot's undelivered updates older than the retention (also those a worker is
	 * retrying: the worker notices). Polling bots keep theirs (see the README's "Not emulated").
	 */
	expire(bot: BotRecord): void {
		if (!bot.webhook || bot.pending.length === 0) return;
		const kept = bot.pending.filter((u) => this.remainingMs(u) > 0);
		if (kept.length !== bot.pending.length) bot.pending = kept;
	}

	/** getWebhookInfo's pending_update_count: every update still to be delivered, the ones being pushed or retried included. */
	pendingCount(bot: BotRecord): number {
		this.expire(bot);
		return bot.pending.filter((u) => this.world.allows(bot, updateType(u))).length;
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

	/** Push attempts so far: made, answered 2xx, and the failed ones by what failed (`GET /_emulator/chaos`). */
	stats(): { attempts: number; delivered: number; failed: Record<string, number> } {
		return { attempts: this.attempts, delivered: this.delivered, failed: Object.fromEntries(this.failed) };
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
		const { retryBaseMs, retryMaxMs, maxAttempts, timeoutMs, telegramSecretHeader } = this.options;
		for (let attempt = 1; ; attempt += 1) {
			if (!current() || !bot.pending.includes(update)) return;
			const hook = bot.webhook;
			if (!hook) return;
			if (this.remainingMs(update) <= 0) {
				// kept as long as the retention, not longer
				this.remove(bot, update);
				return;
			}
			let error: string | null = null;
			const sentAt = Date.now();
			try {
				this.attempts += 1;
				const headers: Record<string, string> = { 'content-type': 'application/json' };
				if (hook.secretToken !== undefined) headers[SECRET_HEADER] = hook.secretToken;
				if (hook.secretToken !== undefined && telegramSecretHeader) headers[TELEGRAM_SECRET_HEADER] = hook.secretToken;
				const res = await request(hook.url, {
					method: 'POST',
					headers,
					body: JSON.stringify(update),
					dispatcher: this.agent,
					headersTimeout: timeoutMs,
					bodyTimeout: timeoutMs,
				});
				await res.body.dump().catch(() => undefined);
				if (res.statusCode < 200 || res.statusCode > 299) {
					error = `Wrong response from the webhook: ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trim();
				}
			} catch (err) {
				error = describeNetworkError(err);
			}
			this.log.push({ updateId: update.update_id, at: sentAt, answeredAt: Date.now(), error });
			if (error === null) {
				this.delivered += 1;
				this.remove(bot, update);
				return;
			}
			const reason = error.replace(/^Wrong response from the webhook: /, '');
			this.failed.set(reason, (this.failed.get(reason) ?? 0) + 1);
			if (bot.webhook && bot.webhook.generation === generation) bot.webhook.lastError = { date: nowSeconds(), message: error };
			const left = this.remainingMs(update);
			if (attempt >= maxAttempts || left <= 0) {
				// given up on: too old (or, when webhookMaxAttempts is set, tried that often)
				this.remove(bot, update);
				return;
			}
			// the next attempt after the backoff, or at the end of the retention (where the update is dropped) if that comes first
			await this.sleep(bot, Math.min(retryDelayMs(retryBaseMs, retryMaxMs, attempt), left, MAX_TIMER_MS));
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
