/**
 * Polling delivery: trigger() runs a long-poll loop of `getUpdates` (spec part 4.6) for as long as
 * the workflow is published, and each update that passes the shared delivery step starts one
 * execution (as a webhook push does, so workflows read `$json.message…` of one update either way).
 *
 * Acknowledgement. `getUpdates` with offset N tells the service that every update below N is done;
 * until then it returns them again. The next offset is kept in the node's static data and written
 * before the update is emitted, because n8n saves a trigger's static data when it emits: so the
 * offset is saved with the update it acknowledges, and only the next `getUpdates` (sent after the
 * emit) acknowledges it to the service. n8n stopping between fetch and emit → the offset was not
 * saved and the update is fetched again after the restart; stopping after the emit → the saved
 * offset acknowledges it at the first poll after the restart, and it does not run twice. n8n saves
 * the static data without waiting for it while it creates the execution; if it stops in between with
 * the execution created and the offset not saved, the update is fetched again, and the emit's
 * deduplication key makes n8n refuse to run it twice.
 *
 * Errors never escape the loop (an unawaited rejection could take n8n down). A network error, a 5xx
 * or a 429 waits (429: `retry_after`; else 1 s doubling to 30 s) and tries again, for as long as the
 * workflow is published. A 401 stops with n8n's `emitError` (n8n then retries the activation with
 * its own backoff and shows the error). A 409 with a webhook set stops the same way; a 409 from
 * another poller (two workflows on one bot, or two n8n leaders during a hand-over) is retried and
 * reported through `emitError` only if it lasts.
 *
 * Closing (unpublishing, shutting down) aborts the open long poll and any wait at once, and resolves
 * when the loop has ended, so no request of this trigger is left running.
 *
 * A test in the editor ('manual') reads the bot's queue without an offset and without
 * `allowed_updates`, emits the first update that passes the filters and ends. It acknowledges that
 * update only when no published workflow of this n8n polls the bot (then nobody else would run it,
 * and a workflow published later must not run it again); it never changes the bot's update types.
 * It leaves answers to waiting executions to the published poller (it would bring each one again at
 * every look).
 */
import type { IDataObject, ITriggerFunctions, ITriggerResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ServiceFailure } from '../shared/transport';
import { callMethod, failureOf, pause, refusalStatus, rereadToken } from '../shared/transport';
import { answerDesk } from '../shared/trigger/answers';
import { deliverUpdate } from '../shared/trigger/deliver';
import type { DeliveryEnvironment } from '../shared/trigger/deliver';
import { deliveryKey, fingerprint, identityOf, keyed, runOf } from '../shared/trigger/identity';
import type { PollingOptions } from '../shared/trigger/settings';
import { ALLOWED_UPDATES, readDeliverySettings, readPollingOptions, requireToken } from '../shared/trigger/settings';
import type { PollingWorkflow } from '../shared/trigger/pollers';
import { describePoller, pollerOf, recordPoller } from '../shared/trigger/pollers';
import { showTyping } from '../shared/trigger/typing';
import { displayUrl, webhookInfo } from '../shared/trigger/webhookInfo';

/** How the loop waits; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const POLL_TIMING = {
	/** First wait after a failure; doubles up to `backoffMaxMs`. */
	backoffStartMs: 1000,
	backoffMaxMs: 30_000,
	/** Longest `retry_after` honoured as is; a longer one is capped (the loop tries again sooner). */
	retryAfterMaxMs: 300_000,
	/** How long conflicts with another poller may last before they are reported. */
	conflictReportMs: 60_000,
	/** Pause after an empty answer that came back early (no long poll), so the loop never spins. */
	idlePauseMs: 1000,
};

const OFFSET_KEY = 'pollingOffset';

/** Warnings of a lasting failure: the first, then every `WARN_EVERY`-th. */
const WARN_EVERY = 10;

interface StoredOffset {
	/** One-way key of the bot token: an offset of another bot must never be sent to this one. */
	bot: string;
	offset: number;
}

/** The wait after the `attempt`-th failure in a row (from 1): doubling from the start, capped. */
export function backoff(attempt: number): number {
	return Math.min(POLL_TIMING.backoffStartMs * 2 ** Math.min(attempt - 1, 16), POLL_TIMING.backoffMaxMs);
}

/** The wait after the `failures`-th failed getUpdates in a row: what a 429 asks (capped), else the backoff. */
export function retryWait(failure: ServiceFailure | undefined, failures: number): number {
	if (failure?.kind === 'refused' && failure.status === 429) {
		const asked = failure.retryAfterSeconds;
		return Math.min(asked !== undefined && asked >= 0 ? asked * 1000 : POLL_TIMING.backoffStartMs, POLL_TIMING.retryAfterMaxMs);
	}
	return backoff(failures);
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function tokenRefused(ctx: ITriggerFunctions): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		'The service refused the bot token (401 Unauthorized): check the access token in the Service Bot API credential',
	);
}

function webhookConflict(ctx: ITriggerFunctions, shownUrl: string): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The bot has a webhook (${shownUrl}), and a bot with a webhook cannot be polled. Remove it where it was set (unpublish the workflow whose Service Bot Trigger owns it, or run Delete Webhook), use the Service Bot Trigger (webhook delivery) instead, or turn on "Delete Existing Webhook" in this trigger's options`,
	);
}

function pollerConflict(ctx: ITriggerFunctions, test: boolean): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		test
			? 'Another consumer is polling this bot, for example this workflow while it is published. A bot serves one poller at a time, and a test does not take updates away from it: to test, unpublish the workflow or use another bot'
			: 'Another consumer is polling this bot (another workflow, another n8n, or another program with this bot token). A bot serves one poller at a time: stop the other one, or use another bot',
	);
}

/** The bot's webhook URL ('' when none). */
async function currentWebhook(ctx: ITriggerFunctions, signal?: AbortSignal): Promise<string> {
	return (await webhookInfo(ctx, signal)).url ?? '';
}

/** Activation: a bot with a webhook cannot be polled; remove it only when the user said so. */
async function ensureNoWebhook(ctx: ITriggerFunctions, options: PollingOptions, token: string): Promise<void> {
	let url: string;
	try {
		url = await currentWebhook(ctx);
	} catch (error) {
		if (refusalStatus(error) === 401) throw tokenRefused(ctx);
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
	if (url === '') return;
	const shown = displayUrl(url, token);
	if (!options.deleteExistingWebhook) throw webhookConflict(ctx, shown);
	ctx.logger.warn(`Service Bot Polling Trigger "${ctx.getNode().name}": deleting the bot's webhook (${shown}) ("Delete Existing Webhook" is on); whatever it delivered to stops receiving updates`);
	await callMethod(ctx, 'deleteWebhook', {});
}

class Poller {
	private readonly controller = new AbortController();
	private running: Promise<void> = Promise.resolve();
	private readonly test: boolean;
	private readonly name: string;
	/** One-way key of the bot token, stored with the offset. */
	private readonly botKey: string;

	constructor(
		private readonly ctx: ITriggerFunctions,
		private readonly options: PollingOptions,
		private readonly environment: DeliveryEnvironment,
		/** The bot token the loop polls with: the credential's, read again when the service refuses it. */
		private token: string,
	) {
		this.botKey = fingerprint('polling-offset', keyed(token, 'bot:v1', []));
		this.test = runOf(ctx) === 'test';
		this.name = `Service Bot Polling Trigger "${ctx.getNode().name}"`;
	}

	start(): void {
		this.running = this.loop().catch((error: unknown) => {
			// The loop catches everything it expects; anything else ends polling visibly, never unhandled.
			this.report(new NodeOperationError(this.ctx.getNode(), `Polling stopped: ${messageOf(error)}`));
		});
	}

	/** The next offset: every update below it was handed to n8n (its offset saved with its emit). */
	private latestOffset: number | undefined;
	/** The offset the service was last given, i.e. what it knows is done. */
	private acknowledgedOffset: number | undefined;

	/**
	 * n8n's closeFunction: abort the open request and any wait, wait for the loop to end, then tell the
	 * service what was handed to n8n since the last poll. Without that, the workflow published next on
	 * this bot (or a test) would get those updates again, although they ran here.
	 */
	readonly stop = async (): Promise<void> => {
		this.controller.abort();
		await this.running;
		const offset = this.latestOffset;
		if (this.test || offset === undefined || offset === this.acknowledgedOffset) return;
		await this.sendOffset(offset, 'when stopping');
	};

	private get signal(): AbortSignal {
		return this.controller.signal;
	}

	private report(error: Error): void {
		this.controller.abort();
		this.ctx.emitError(error);
	}

	/** The node's static data, which holds the offset. */
	private get staticData(): IDataObject {
		return this.ctx.getWorkflowStaticData('node');
	}

	private storedOffset(): number | undefined {
		if (this.test) return undefined;
		const stored = this.staticData[OFFSET_KEY] as Partial<StoredOffset> | undefined;
		return stored?.bot === this.botKey && typeof stored.offset === 'number' ? stored.offset : undefined;
	}

	private storeOffset(offset: number): void {
		const stored: StoredOffset = { bot: this.botKey, offset };
		this.staticData[OFFSET_KEY] = stored as unknown as IDataObject;
	}

	private request(offset: number | undefined): IDataObject {
		const body: IDataObject = { limit: this.options.limit, timeout: this.options.longPollTimeout };
		if (offset !== undefined) body.offset = offset;
		// A test leaves the bot's persistent update types alone: narrowing them would make the service
		// drop updates a published poller of the same bot is waiting for.
		if (!this.test) body.allowed_updates = [...ALLOWED_UPDATES];
		return body;
	}

	private async loop(): Promise<void> {
		let failures = 0;
		/** Batches in a row that held nothing to acknowledge. */
		let unreadable = 0;
		let conflictSince: number | undefined;
		let offset = this.storedOffset();
		while (!this.signal.aborted) {
			const asked = Date.now();
			let result: unknown;
			try {
				result = await callMethod(this.ctx, 'getUpdates', this.request(offset), {
					idempotent: true,
					longPollSeconds: this.options.longPollTimeout,
					abortSignal: this.signal,
					// The loop waits and retries itself, abortably.
					retry: { rateLimitRetries: 0, transientRetries: 0 },
				});
			} catch (error) {
				if (this.signal.aborted) return;
				failures++;
				const failure = failureOf(error);
				const status = failure?.kind === 'refused' ? failure.status : undefined;
				if (status === 401) {
					// The token was changed in the credential (after a leak) while the workflow stays published:
					// go on with the new one, for the same bot (its offset and keys stay).
					const current = failures === 1 ? await rereadToken(this.ctx) : this.token;
					if (current === this.token) return this.report(tokenRefused(this.ctx));
					this.ctx.logger.info(`${this.name}: the bot token in the credential was changed; polling with the new one`);
					this.token = current;
					continue;
				}
				if (status === 409) {
					const conflict = await this.webhookSetMeanwhile();
					if (conflict) return this.report(conflict);
					conflictSince ??= Date.now();
					if (this.test || Date.now() - conflictSince >= POLL_TIMING.conflictReportMs) {
						return this.report(pollerConflict(this.ctx, this.test));
					}
				}
				const wait = retryWait(failure, failures);
				if (failures === 1 || failures % WARN_EVERY === 0) {
					this.ctx.logger.warn(`${this.name}: getUpdates failed (${failures}× in a row): ${messageOf(error)}. Trying again in ${Math.round(wait / 100) / 10} s`);
				}
				await pause(wait, this.signal);
				continue;
			}
			this.acknowledgedOffset = offset;
			if (failures > 0) this.ctx.logger.info(`${this.name}: polling works again after ${failures} failed attempts`);
			failures = 0;
			conflictSince = undefined;

			const updates = Array.isArray(result) ? [...(result as unknown[])] : [];
			if (updates.length === 0) {
				// An empty answer long before the long poll's end: no long poll happened (timeout 0, or a
				// service that answers "nothing" while a webhook is set). Never spin.
				const timeout = this.options.longPollTimeout;
				if (timeout === 0 || Date.now() - asked < (timeout * 1000) / 2) {
					if (timeout > 0) {
						const conflict = await this.webhookSetMeanwhile();
						if (conflict) return this.report(conflict);
					}
					await pause(POLL_TIMING.idlePauseMs, this.signal);
				}
				continue;
			}
			if (this.test) {
				if (await this.emitFirst(updates)) return;
				// Only updates the filters drop are waiting; a test may not acknowledge them, so look again later.
				await pause(POLL_TIMING.idlePauseMs, this.signal);
				continue;
			}
			const next = await this.emitAll(updates, offset);
			if (next === offset) {
				// Entries without an update_id cannot be acknowledged, so the service sends them again: ask
				// less and less often (as after a failure) instead of every second.
				unreadable++;
				const wait = backoff(unreadable);
				if (unreadable === 1 || unreadable % WARN_EVERY === 0) {
					this.ctx.logger.warn(`${this.name}: the service keeps sending entries that are not updates (no update_id); they cannot be acknowledged. Asking again in ${Math.round(wait / 100) / 10} s`);
				}
				await pause(wait, this.signal);
			} else {
				unreadable = 0;
			}
			offset = next;
			this.latestOffset = next;
		}
	}

	/** The conflict when the bot got a webhook while this trigger polls (a failed look counts as none). */
	private async webhookSetMeanwhile(): Promise<NodeOperationError | undefined> {
		const webhook = await currentWebhook(this.ctx, this.signal).catch(() => '');
		return webhook === '' ? undefined : webhookConflict(this.ctx, displayUrl(webhook, this.token));
	}

	/**
	 * Starts one execution with the update. n8n refuses a second execution with the same deduplication
	 * key (a unique index of its executions table, n8n 2.x): an update fetched again after n8n stopped
	 * between creating its execution and saving the offset does not run twice. Older n8n ignores it.
	 */
	private emitUpdate(item: IDataObject, updateId: number): void {
		const deduplicationKey = `service-bot:${this.environment.windowKey}:${updateId}`;
		this.ctx.emit([this.ctx.helpers.returnJsonArray([item])], undefined, undefined, deduplicationKey);
	}

	/**
	 * Tells the service that every update below `offset` is done: a getUpdates that waits for nothing
	 * (a test's leaves the bot's update types alone). A failure is not an error: the updates come again.
	 */
	private async sendOffset(offset: number, when: string, signal?: AbortSignal): Promise<void> {
		const body: IDataObject = { offset, limit: 1, timeout: 0 };
		if (!this.test) body.allowed_updates = [...ALLOWED_UPDATES];
		try {
			await callMethod(this.ctx, 'getUpdates', body, { idempotent: true, abortSignal: signal, retry: { rateLimitRetries: 0, transientRetries: 0 } });
			this.acknowledgedOffset = offset;
		} catch (error) {
			this.ctx.logger.debug(`${this.name}: could not acknowledge the updates below ${offset} ${when}: ${messageOf(error)}`);
		}
	}

	/** Production: every update in order; returns the next offset. */
	private async emitAll(updates: unknown[], offset: number | undefined): Promise<number | undefined> {
		let next = offset;
		for (const body of updates) {
			if (this.signal.aborted) break;
			const delivery = await deliverUpdate(body, this.environment);
			if (delivery.updateId === undefined) {
				if (!delivery.run) this.ctx.logger.warn(`${this.name}: skipped an entry that is ${'reason' in delivery ? delivery.reason : 'not an update'}`);
				continue;
			}
			next = Math.max(next ?? 0, delivery.updateId + 1);
			// Saved by n8n together with the emit below (n8n saves a trigger's static data on emit).
			this.storeOffset(next);
			if (delivery.run) {
				if (this.environment.settings.showTyping) showTyping(this.ctx, delivery.chatId);
				this.emitUpdate(delivery.item, delivery.updateId);
			} else if ('answer' in delivery) {
				// Before it is brought: brought twice (n8n stopping before the next poll), its person would be
				// told the question was answered already; an answer that is lost can simply be given again.
				await this.sendOffset(next, 'before bringing an answer', this.signal);
				this.ctx.logger.debug(`${this.name}: update ${delivery.updateId} not run: ${await delivery.answer.bring()}`);
			} else {
				this.ctx.logger.debug(`${this.name}: update ${delivery.updateId} not run: ${delivery.reason}`);
			}
		}
		return next;
	}

	/**
	 * Test: the first update that passes. With no published workflow polling this bot in this n8n, it
	 * is acknowledged (with those before it), so a workflow published afterwards does not run it again,
	 * as with n8n's own triggers; while one polls, nothing is acknowledged, so that one still gets it.
	 */
	private async emitFirst(updates: unknown[]): Promise<boolean> {
		/** An answer before the shown update stays for the published poller: nothing from it on is acknowledged. */
		let firstAnswer: number | undefined;
		for (const body of updates) {
			const delivery = await deliverUpdate(body, this.environment);
			if (delivery.run) {
				// Before the emit: n8n ends the test (aborting what is still open) once the execution ran.
				if (pollerOf(this.token) === undefined) await this.sendOffset(firstAnswer ?? delivery.updateId + 1, 'that the test showed', this.signal);
				this.emitUpdate(delivery.item, delivery.updateId);
				return true;
			}
			if ('leftAnswer' in delivery && delivery.leftAnswer && delivery.updateId !== undefined) firstAnswer ??= delivery.updateId;
		}
		return false;
	}
}

/** A published poller of this bot in another workflow (or another node) of this n8n stops this one at once. */
function ensureOnlyPoller(ctx: ITriggerFunctions, token: string): PollingWorkflow {
	const self: PollingWorkflow = { workflowId: String(ctx.getWorkflow().id ?? ''), workflowName: ctx.getWorkflow().name ?? '', nodeName: ctx.getNode().name };
	const holder = pollerOf(token);
	if (holder && (holder.workflowId !== self.workflowId || holder.nodeName !== self.nodeName)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The workflow ${describePoller(holder)} already polls this bot, and a bot serves one poller at a time. Unpublish that workflow first, or give this one its own bot. For several workflows on one bot, use the Service Bot Trigger (webhook delivery) in each`,
		);
	}
	return self;
}

/** trigger() of the Service Bot Polling Trigger. */
export async function startPolling(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const settings = readDeliverySettings(this);
	const options = readPollingOptions(this);
	const token = await requireToken(this);
	const identity = identityOf(this);
	const run = runOf(this);
	const self = run === 'production' ? ensureOnlyPoller(this, token) : undefined;
	await ensureNoWebhook(this, options, token);
	const poller = new Poller(
		this,
		options,
		{
			settings,
			windowKey: deliveryKey(token, identity, 'polling', run),
			answers: answerDesk(this, run === 'production'),
		},
		token,
	);
	if (run === 'test') {
		// n8n installs the test's emit before it calls this.
		return { closeFunction: poller.stop, manualTriggerFunction: async () => poller.start() };
	}
	const forget = self ? recordPoller(token, self) : () => {};
	poller.start();
	return {
		closeFunction: async () => {
			forget();
			await poller.stop();
		},
	};
}
