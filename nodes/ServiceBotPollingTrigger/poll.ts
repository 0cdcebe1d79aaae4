/**
 * The Service Bot Polling Trigger's part of polling: trigger() joins the bot's feed (feed.ts: one
 * `getUpdates` consumer per bot in this n8n), and each update the feed offers that passes the shared
 * delivery step starts one execution (as a webhook push does, so workflows read `$json.message…` of
 * one update either way). Several workflows poll one bot this way, each through its own filters.
 *
 * Acknowledgement. A published trigger keeps its offset in the node's static data, written before
 * an update is emitted, because n8n saves a trigger's static data when it emits; only a later
 * `getUpdates` acknowledges it to the service. The offset saved with an update's emit still includes
 * that update (the offset saved with the next emit is beyond it): n8n starts saving the static data
 * and creating the execution together without waiting for either, so a process killed in between may
 * have done one and not the other. n8n stopping before an emit, or killed with either half done,
 * fetches the update again after the restart; it runs if its execution was never created, and the
 * emit's deduplication key makes n8n 2.x refuse it if it was (n8n 1.x has no such key: there it runs
 * again). A clean stop acknowledges what was emitted (feed.ts), so a restart fetches nothing again.
 *
 * Group Messages Within holds a user's messages in one chat until the user has been quiet for N
 * seconds, then emits them as one item. While they wait, the saved offset and the feed's
 * acknowledgement stay below the first of them (`held`), so n8n stopping hard fetches them again;
 * unpublishing emits them at once.
 *
 * A test in the editor ('manual') joins the feed too: it shows the next update that passes its
 * filters and ends, beside the published workflows, which keep getting every update. It acknowledges
 * that update only when no published workflow of this n8n polls the bot (then nobody else would run
 * it, and a workflow published later must not run it again); it never changes the bot's update types
 * and leaves answers to waiting executions to the published triggers.
 */
import type { IDataObject, INodeExecutionData, ITriggerFunctions, ITriggerResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { callMethod, messageOf, pause, refusalStatus } from '../shared/transport';
import type { ChatAnswer } from '../shared/trigger/answers';
import { answerDesk } from '../shared/trigger/answers';
import { deliverUpdate } from '../shared/trigger/deliver';
import { hasFilesToDownload, withFiles } from '../shared/trigger/files';
import { groupedItem, isCommand, routed } from '../shared/trigger/output';
import type { ReceivedUpdate } from '../shared/trigger/update';
import type { Delivery, DeliveryEnvironment } from '../shared/trigger/deliver';
import { botKeyOf, deliveryKey, identityOf, runOf } from '../shared/trigger/identity';
import type { PollingOptions } from '../shared/trigger/settings';
import { readDeliverySettings, readPollingOptions, requireToken } from '../shared/trigger/settings';
import { holderOf, holdersOf, recordHolder, warnOfSharedClicks } from '../shared/trigger/holders';
import { showTyping } from '../shared/trigger/typing';
import { displayUrl, webhookInfo } from '../shared/trigger/webhookInfo';
import type { BotFeed, FeedMember } from './feed';
import { joinFeed, tokenRefused, webhookConflict } from './feed';

export { POLL_TIMING, backoff, retryWait } from './feed';

const OFFSET_KEY = 'pollingOffset';

interface StoredOffset {
	/** One-way key of the bot token: an offset of another bot must never be sent to this one. */
	bot: string;
	offset: number;
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
	const holders = holdersOf(token, 'webhook');
	// "Delete Existing Webhook" is for a webhook left behind, not for workflows of this n8n that use it.
	if (!options.deleteExistingWebhook || holders.length > 0) throw webhookConflict(ctx, shown, holders);
	ctx.logger.warn(`Service Bot Polling Trigger "${ctx.getNode().name}": deleting the bot's webhook (${shown}) ("Delete Existing Webhook" is on); whatever it delivered to stops receiving updates`);
	await callMethod(ctx, 'deleteWebhook', {});
}

/** One user's messages in one chat, gathered into one execution (Group Messages Within). */
interface MessageGroup {
	/** In the order they came; never empty. */
	readonly updates: ReceivedUpdate[];
	/** When it runs unless another message comes first (which moves it on). */
	deadline: number;
}

/** One polling trigger (a published workflow's, or the editor's test) as a member of its bot's feed. */
class PollingMember implements FeedMember {
	readonly test: boolean;
	next: number | undefined;
	done = false;
	/** Set by startPolling once joined; a test acknowledges through it. */
	feed: BotFeed | undefined;
	/** A test: the first answer to a waiting execution it saw, which stays for the published triggers. */
	private firstAnswer: number | undefined;
	/** One-way key of the bot token, stored with the offset. */
	private readonly botKey: string;
	/** Messages being gathered, by chat and user; each has a waiter that runs it once the chat is quiet. */
	private readonly groups = new Map<string, MessageGroup>();
	/** The first update of each group whose files are being downloaded before it runs. */
	private readonly preparing = new Set<number>();
	private readonly waiters = new Set<Promise<void>>();
	private readonly stopping = new AbortController();

	/** The environment for an update whose answer another member brings. */
	private readonly leavingAnswers: DeliveryEnvironment;

	constructor(
		readonly ctx: ITriggerFunctions,
		readonly options: PollingOptions,
		private readonly environment: DeliveryEnvironment,
		token: string,
	) {
		this.leavingAnswers = { ...environment, answers: { ...environment.answers, brings: false } };
		this.botKey = botKeyOf(token, 'polling-offset');
		this.test = runOf(ctx) === 'test';
		this.next = this.storedOffset();
	}

	private get name(): string {
		return `Service Bot Polling Trigger "${this.ctx.getNode().name}"`;
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

	/**
	 * Starts one execution with the update. n8n refuses a second execution with the same deduplication
	 * key (a unique index of its executions table, n8n 2.x): an update fetched again after n8n stopped
	 * between creating its execution and saving the offset does not run twice. Older n8n ignores it.
	 */
	private emitUpdate(update: ReceivedUpdate, item: INodeExecutionData, updateId: number): void {
		const deduplicationKey = `service-bot:${this.environment.windowKey}:${updateId}`;
		this.ctx.emit(routed(update, item, this.environment.settings), undefined, undefined, deduplicationKey);
	}

	/**
	 * The item with the files of its messages (Download Files). The updates after it wait, so that
	 * executions start in update order; unpublishing waits for a download under way (its message
	 * then runs), as it runs the gathered messages.
	 */
	private async withFiles(updates: readonly ReceivedUpdate[], json: IDataObject): Promise<INodeExecutionData> {
		const settings = this.environment.settings;
		if (!hasFilesToDownload(updates, settings)) return { json };
		const item = withFiles(this.ctx, updates, json, settings);
		const waiter = item.then(() => undefined);
		this.waiters.add(waiter);
		try {
			return await item;
		} finally {
			this.waiters.delete(waiter);
		}
	}

	/** The first update of the messages being gathered (or their files fetched), which the service must keep until they ran. */
	get held(): number | undefined {
		const firsts = [...[...this.groups.values()].map((group) => group.updates[0].updateId), ...this.preparing];
		return firsts.length > 0 ? Math.min(...firsts) : undefined;
	}

	async take(body: unknown, updateId: number | undefined, bringsAnswers: boolean): Promise<ChatAnswer | undefined> {
		const delivery = await deliverUpdate(body, bringsAnswers ? this.environment : this.leavingAnswers);
		if (updateId === undefined || delivery.updateId === undefined) {
			if (!delivery.run && !this.test) this.ctx.logger.warn(`${this.name}: skipped an entry that is ${'reason' in delivery ? delivery.reason : 'not an update'}`);
			return undefined;
		}
		if (this.test) return await this.show(delivery);
		const gathered = delivery.run && this.gather(delivery.update);
		// A gathered message shows typing too: the user sees the bot is there while it waits for more.
		if (delivery.run && this.environment.settings.showTyping) showTyping(this.ctx, delivery.update);
		const runsNow = delivery.run && !gathered;
		const item = runsNow ? await this.withFiles([delivery.update], delivery.item) : undefined;
		// Saved by n8n together with the next emit (n8n saves a trigger's static data on emit); never
		// beyond a message still gathered, so n8n stopping hard meanwhile fetches it again. An update
		// that runs keeps itself in the saved offset: n8n saves it while it creates the execution, and
		// a process killed in between must fetch it again (its deduplication key refuses a second run).
		this.storeOffset(Math.min(runsNow ? updateId : updateId + 1, this.held ?? Number.POSITIVE_INFINITY));
		if (gathered) return undefined;
		if (delivery.run) {
			this.emitUpdate(delivery.update, item ?? { json: delivery.item }, updateId);
			return undefined;
		}
		if ('answer' in delivery) return delivery.answer;
		this.ctx.logger.debug(`${this.name}: update ${updateId} not run: ${delivery.reason}`);
		return undefined;
	}

	/**
	 * Group Messages Within: a user's message joins the messages they sent to this chat in the last
	 * N seconds (or starts them), and they run together once the user has been quiet for N seconds.
	 * Clicks and other updates run at once. Returns whether the update was gathered.
	 */
	private gather(update: ReceivedUpdate): boolean {
		const seconds = this.options.groupMessagesSeconds;
		// A command runs at once, alone: it asks for something specific.
		if (seconds === 0 || update.type !== 'message' || isCommand(update) || update.chatId === undefined || update.userId === undefined) return false;
		const key = JSON.stringify([update.chatId, update.userId]);
		const deadline = Date.now() + seconds * 1000;
		const group = this.groups.get(key);
		if (group) {
			group.updates.push(update);
			group.deadline = deadline;
			return true;
		}
		this.groups.set(key, { updates: [update], deadline });
		const waiter = this.runWhenQuiet(key).catch((error: unknown) => {
			this.ctx.logger.error(`${this.name}: could not run grouped messages: ${messageOf(error)}`);
		});
		this.waiters.add(waiter);
		void waiter.finally(() => this.waiters.delete(waiter));
		return true;
	}

	private async runWhenQuiet(key: string): Promise<void> {
		for (;;) {
			const group = this.groups.get(key);
			if (!group) return;
			const wait = group.deadline - Date.now();
			if (wait <= 0 || this.stopping.signal.aborted) break;
			await pause(wait, this.stopping.signal);
		}
		if (!this.groups.has(key)) return;
		// Users who went quiet at the same moment (their messages came in one response) run in the
		// order the service sent their last messages, whichever waiter woke first.
		const now = Date.now();
		const lastOf = (group: MessageGroup): ReceivedUpdate => group.updates[group.updates.length - 1];
		const due = [...this.groups.entries()]
			.filter(([other, group]) => other === key || group.deadline <= now)
			.sort(([, a], [, b]) => lastOf(a).updateId - lastOf(b).updateId);
		// They leave the gathered ones at once (a message coming meanwhile starts a new group, and a
		// waiter waking meanwhile finds them gone); while their files download they are still held, so
		// the service keeps their messages.
		for (const [dueKey, group] of due) {
			this.groups.delete(dueKey);
			this.preparing.add(group.updates[0].updateId);
		}
		for (const [, group] of due) {
			const last = lastOf(group);
			const first = group.updates[0].updateId;
			// Again as the gathered messages run: the typing shown for the first may have ended.
			if (this.environment.settings.showTyping) showTyping(this.ctx, last);
			let item: INodeExecutionData;
			try {
				item = await this.withFiles(group.updates, groupedItem(group.updates, this.environment.settings));
			} finally {
				this.preparing.delete(first);
			}
			// The offset saved with it stays below the others still gathered.
			this.storeOffset(Math.min(first, this.held ?? Number.POSITIVE_INFINITY));
			this.emitUpdate(last, item, last.updateId);
		}
	}

	/** Unpublishing: the messages being gathered run now rather than never. */
	async runGathered(): Promise<void> {
		this.stopping.abort();
		await Promise.all([...this.waiters]);
	}

	/**
	 * Test: the first update that passes. With no published workflow polling this bot in this n8n, it
	 * is acknowledged (with those before it), so a workflow published afterwards does not run it again,
	 * as with n8n's own triggers; while one polls, nothing is acknowledged, so that one still gets it.
	 */
	private async show(delivery: Delivery): Promise<undefined> {
		if (delivery.run) {
			this.done = true;
			const item = await this.withFiles([delivery.update], delivery.item);
			// Before the emit: n8n ends the test (aborting what is still open) once the execution ran.
			if (this.feed && this.feed.published.length === 0) await this.feed.acknowledge(this.firstAnswer ?? delivery.updateId + 1, 'that the test showed', this.ctx);
			this.emitUpdate(delivery.update, item, delivery.updateId);
		} else if ('leftAnswer' in delivery && delivery.leftAnswer && delivery.updateId !== undefined) {
			this.firstAnswer ??= delivery.updateId;
		}
		return undefined;
	}
}

/** trigger() of the Service Bot Polling Trigger. */
export async function startPolling(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const settings = readDeliverySettings(this);
	const options = readPollingOptions(this);
	const token = await requireToken(this);
	const identity = identityOf(this);
	const run = runOf(this);
	await ensureNoWebhook(this, options, token);
	const member = new PollingMember(
		this,
		options,
		{
			settings,
			windowKey: deliveryKey(token, identity, 'polling', run),
			answers: answerDesk(this, run === 'production', 'now'),
		},
		token,
	);
	const join = (): void => {
		member.feed = joinFeed(token, member);
	};
	const self = holderOf(this, 'polling', run);
	const forget = recordHolder(token, self);
	warnOfSharedClicks(this, token, self);
	if (run === 'test') {
		// n8n installs the test's emit before it calls this.
		return {
			closeFunction: async () => {
				forget();
				await member.feed?.leave(member);
			},
			manualTriggerFunction: async () => join(),
		};
	}
	join();
	return {
		closeFunction: async () => {
			forget();
			await member.runGathered();
			await member.feed?.leave(member);
		},
	};
}
