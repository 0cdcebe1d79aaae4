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
 * fetches the update again after the restart and runs it: the emit's deduplication key carries the
 * process's id, so n8n 2.x refuses a second run within one process but not an update whose execution
 * crashed with the process before (n8n 2.41 refuses any key with an execution, a crashed one too);
 * n8n 1.x has no such key. The feed tells the service an emitted update is done only once n8n confirmed its execution
 * (the emit's done promise settles when the execution has run, or was refused as a duplicate) or a
 * while after the emit (`confirmWithinMs`): n8n creates the execution a little after the emit (it
 * reads the workflow first, then inserts it), and a kill meanwhile would otherwise lose the update with
 * no execution to show for it. A clean stop acknowledges what was emitted (feed.ts), so a restart
 * fetches nothing again. An execution n8n's queue mode lost with its worker (long after that
 * acknowledgement) is emitted once more while this process runs (workerLoss.ts).
 *
 * Group Messages Within (grouping.ts) holds a user's messages in one chat until the user has been
 * quiet for N seconds, then emits them as one item. While they wait, the saved offset and the feed's
 * acknowledgement stay below the first of them (`held`), so n8n stopping hard fetches them again;
 * unpublishing emits them at once, and so does the feed when they would hold every workflow of the
 * bot back (`release`: the spec's largest answer came after them). They are not kept in static data
 * instead: n8n saves a trigger's static data only when it emits, so messages kept there would be lost
 * with n8n killed before the workflow's next emit, while the service already dropped them.
 *
 * A test in the editor ('manual') joins the feed too: it shows the next update that passes its
 * filters and ends, beside the published workflows, which keep getting every update. It acknowledges
 * that update only when no published workflow of this n8n polls the bot (then nobody else would run
 * it, and a workflow published later must not run it again); it never changes the bot's update types
 * and leaves answers to waiting executions to the published triggers.
 *
 * One file (about 480 lines) on purpose: one trigger's saved offset, its stored grouped runs and the
 * executions it waits to see confirmed decide together what it may let the feed acknowledge; each of
 * them changes that offset, so they stay in one class (the gathering itself is grouping.ts).
 */
import { randomBytes } from 'crypto';
import type { IDataObject, INodeExecutionData, ITriggerFunctions, ITriggerResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiRequest } from '../shared/transport/client';
import { asCredentialError } from '../shared/transport/credentialProblems';
import { rereadToken } from '../shared/transport/token';
import type { ChatAnswer } from '../shared/trigger/answerDelivery';
import { answerDesk } from '../shared/trigger/answerDelivery';
import { deliverUpdate } from '../shared/trigger/deliver';
import { hasFilesToDownload, withFiles } from '../shared/trigger/files';
import { groupedItem, routed } from '../shared/trigger/output';
import type { ReceivedUpdate } from '../shared/trigger/update';
import type { Delivery, DeliveryEnvironment } from '../shared/trigger/deliver';
import type { Run, TriggerIdentity } from '../shared/trigger/identity';
import { botKeyOf, deliveryKey, identityOf, runOf } from '../shared/trigger/identity';
import { readDeliverySettings, requireToken } from '../shared/trigger/settings';
import { holderOf, holdersOf, recordHolder, warnOfSharedClicks } from '../shared/trigger/holders';
import { keepTyping, showTyping } from '../shared/trigger/typing';
import { displayUrl, webhookInfo } from '../shared/webhookInfo';
import type { BotFeed, FeedMember } from './feed';
import { POLL_TIMING, joinFeed, webhookConflict } from './feed';
import { MessageGrouping } from './grouping';
import { deleteUnlessReplaced, placeholderOf, withPlaceholder } from './placeholder';
import type { PollingOptions } from './options';
import { readPollingOptions } from './options';
import { lostWithItsWorker, RUNS_AFTER_WORKER_LOSS } from './workerLoss';

/** An emit's done promise, as n8n's emit takes it (the type's package is not n8n-workflow). */
type Done = NonNullable<Parameters<ITriggerFunctions['emit']>[2]>;
type DoneRun = Awaited<Done['promise']>;

/** A done promise to hand to an emit. */
function deferred(): Done {
	let resolve: Done['resolve'] = () => {};
	let reject: Done['reject'] = () => {};
	const promise = new Promise<DoneRun>((resolved, rejected) => {
		resolve = resolved;
		reject = rejected;
	});
	return { promise, resolve, reject };
}

const OFFSET_KEY = 'pollingOffset';

/**
 * This n8n process's id, drawn once when n8n loads the node (once per process): part of every
 * deduplication key (see `emitUpdate`). 12 characters keep the key far below n8n's 255.
 */
const PROCESS_ID = randomBytes(9).toString('base64url');
const RUNS_KEY = 'pollingGroupedRuns';

interface StoredOffset {
	/** One-way key of the bot token: an offset of another bot must never be sent to this one. */
	bot: string;
	offset: number;
	/**
	 * The trigger's duplicate window and deduplication keys (`deliveryKey`), kept with the offset so that
	 * they stay the same when the token is changed in the credential: an update fetched again after a
	 * change is then refused as the duplicate it is. Absent in offsets saved before: computed then.
	 */
	window?: string;
}

/** The key of a published trigger's duplicate window: the one stored with its offset for this bot, if any. */
function windowKeyOf(ctx: ITriggerFunctions, token: string, identity: TriggerIdentity, run: Run): string {
	const stored = run === 'production' ? (ctx.getWorkflowStaticData('node')[OFFSET_KEY] as Partial<StoredOffset> | undefined) : undefined;
	if (stored?.bot === botKeyOf(token, 'polling-offset') && typeof stored.window === 'string' && stored.window !== '') return stored.window;
	return deliveryKey(token, identity, 'polling', run);
}

/** Grouped runs (Group Messages Within) that n8n may fetch again after a restart: their update ids. */
interface StoredRuns {
	bot: string;
	runs: number[][];
}

function isRun(value: unknown): value is number[] {
	return Array.isArray(value) && value.length > 0 && value.every((id) => Number.isSafeInteger(id));
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
		// Publishing's first request: a refused token or a wrong base URL is named as the credential's.
		const named = asCredentialError(ctx, error);
		if (named !== error) throw named;
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
	if (url === '') return;
	const shown = displayUrl(url, token);
	const holders = holdersOf(token, 'webhook');
	// "Delete Existing Webhook" is for a webhook left behind, not for workflows of this n8n that use it.
	if (!options.deleteExistingWebhook || holders.length > 0) throw webhookConflict(ctx, shown, holders);
	ctx.logger.warn(`Service Bot Polling Trigger "${ctx.getNode().name}": deleting the bot's webhook (${shown}) ("Delete Existing Webhook" is on); whatever it delivered to stops receiving updates`);
	await apiRequest(ctx, 'deleteWebhook', {});
}

/** One polling trigger (a published workflow's, or the editor's test) as a member of its bot's feed. */
class PollingMember implements FeedMember {
	readonly test: boolean;
	readonly start: number | undefined;
	done = false;
	/** Set by the feed it joins; a test acknowledges through it, closing leaves it. */
	feed: BotFeed | undefined;
	/** A test: the first answer to a waiting execution it saw, which stays for the published triggers. */
	private firstAnswer: number | undefined;
	/** Unpublished (`close`). */
	private closed = false;
	/** One-way key of the bot token, stored with the offset. */
	private botKey: string;
	/** Group Messages Within (grouping.ts). */
	private readonly grouping: MessageGrouping;
	/**
	 * The grouped runs emitted whose messages the service may still send (the saved offset is not past
	 * their last), kept in static data with the emit: after a restart the same messages run again as the
	 * same group (n8n may have crashed that run with the old process). Gathered anew, a message the user
	 * sent after them would join them, and the workflow would see a different run.
	 */
	private runs: number[][];
	/**
	 * Emitted updates whose executions n8n has not confirmed yet, by the first update each ran (a
	 * grouped run's first message), with when they were emitted.
	 */
	private readonly emittedAt = new Map<number, number>();

	/** The environment for an update whose answer another member brings. */
	private readonly leavingAnswers: DeliveryEnvironment;

	constructor(
		readonly ctx: ITriggerFunctions,
		readonly options: PollingOptions,
		private readonly environment: DeliveryEnvironment,
		token: string,
		/** Told when the feed polls with another token of the bot (the holder registry is by token). */
		private readonly onTokenChanged: (token: string) => void,
	) {
		this.leavingAnswers = { ...environment, answers: { ...environment.answers, brings: false } };
		this.botKey = botKeyOf(token, 'polling-offset');
		this.test = runOf(ctx) === 'test';
		this.start = this.storedOffset();
		this.runs = this.storedRuns();
		this.grouping = new MessageGrouping(options.groupMessagesSeconds, {
			logger: ctx.logger,
			name: this.name,
			itemOf: async (updates) => await this.prepareItem(updates, groupedItem(updates, environment.settings)),
			emitRun: (updates, item, key, replayed) => {
				const first = updates[0].updateId;
				// The offset saved with it stays below the others still gathered; a new run is saved with it.
				if (!replayed) this.storeRuns([...this.runs, updates.map((update) => update.updateId)]);
				this.storeOffset(Math.min(first, this.keepFrom));
				this.emitUpdate(updates[updates.length - 1], item, key, first, updates);
			},
			showTyping: (update) => {
				if (environment.settings.showTyping) showTyping(ctx, update);
			},
			forgetRun: (last) => this.storeRuns(this.runs.filter((run) => run[run.length - 1] !== last)),
		});
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
		const stored: StoredOffset = { bot: this.botKey, offset, window: this.environment.windowKey };
		this.staticData[OFFSET_KEY] = stored as unknown as IDataObject;
		// A run wholly below the offset is never fetched again.
		const kept = this.runs.filter((run) => run[run.length - 1] >= offset);
		if (kept.length !== this.runs.length) this.storeRuns(kept);
	}

	private storedRuns(): number[][] {
		if (this.test) return [];
		const stored = this.staticData[RUNS_KEY] as Partial<StoredRuns> | undefined;
		return stored?.bot === this.botKey && Array.isArray(stored.runs) ? stored.runs.filter(isRun) : [];
	}

	private storeRuns(runs: number[][]): void {
		this.runs = runs;
		if (runs.length === 0) delete this.staticData[RUNS_KEY];
		else this.staticData[RUNS_KEY] = { bot: this.botKey, runs } satisfies StoredRuns as unknown as IDataObject;
	}

	/**
	 * A published trigger without a stored offset (published now, or before without ever being handed
	 * an update) stores where it starts, which n8n saves once trigger() returned: after a restart it
	 * resumes there, also when another workflow's poller fetched what waited before it was published
	 * again. 0 (before every update) when the feed has not fetched anything yet.
	 */
	rememberStart(): void {
		if (!this.test && this.storedOffset() === undefined) this.storeOffset(this.feed?.nextOf(this) ?? 0);
	}

	/**
	 * The token was changed in the credential (the same bot): the stored offset is kept under the new
	 * token's key (saved with the next emit), so that n8n started with the new token resumes from it.
	 */
	tokenChanged(token: string): void {
		const offset = this.storedOffset();
		this.botKey = botKeyOf(token, 'polling-offset');
		if (this.runs.length > 0) this.storeRuns(this.runs);
		if (offset !== undefined) this.storeOffset(offset);
		// Its own calls (typing, answers, files) redact errors with the token they read: the new one.
		rereadToken(this.ctx).catch(() => undefined);
		this.onTokenChanged(token);
	}

	/**
	 * Starts one execution with the update. n8n 2.x refuses an emit whose deduplication key an execution
	 * already has (a unique index of its executions table), whatever that execution's status: a
	 * `crashed` one too. The key carries this process's id (`PROCESS_ID`), so it refuses a second run of
	 * an update within one n8n process, and a restarted n8n (new id) runs an update whose execution
	 * crashed with the old one instead of losing it. The price: an update whose execution ran but was
	 * not yet acknowledged when n8n was killed runs again after the restart (twice across processes,
	 * never within one). Older n8n ignores the key. `together`: the updates a gathered item stands for
	 * (its output is a file's when any of them carries one).
	 */
	private emitUpdate(update: ReceivedUpdate, item: INodeExecutionData, updateId: number, first = updateId, together: readonly ReceivedUpdate[] = [update]): void {
		const keyOf = (again: number): string => `service-bot:${this.environment.windowKey}:${PROCESS_ID}:${updateId}${again === 0 ? '' : `:again-${again}`}`;
		const data = routed(update, item, this.environment.settings, together);
		const placeholder = placeholderOf(update, item.json);
		// A test's run has no acknowledgement to wait for, but its placeholder is still deleted after it.
		const done = this.test ? (placeholder ? deferred() : undefined) : this.confirmation(first);
		// The run the update ends with: queue mode may lose one with its worker, and the update runs again.
		const ran = done && !this.test ? this.runAgainIfLost(done.promise, data, keyOf, updateId) : done?.promise;
		// Show Typing lasts while the execution runs: n8n settles the done promise once it has run.
		if (ran && !this.test && this.environment.settings.showTyping) keepTyping(this.ctx, update, ran);
		if (ran && placeholder) deleteUnlessReplaced(this.ctx, placeholder, ran);
		this.ctx.emit(data, undefined, done, keyOf(0));
	}

	/**
	 * The run `ran` settles with, or, when n8n's queue mode lost it with its worker (workerLoss.ts), the
	 * run of the update emitted again under the next deduplication key, up to `RUNS_AFTER_WORKER_LOSS`
	 * times while this trigger is published. Never rejects: a run n8n could not start settles it with nothing.
	 */
	private async runAgainIfLost(ran: Promise<DoneRun>, data: INodeExecutionData[][], keyOf: (again: number) => string, updateId: number, again = 1): Promise<DoneRun | undefined> {
		const run = await ran.catch(() => undefined);
		if (again > RUNS_AFTER_WORKER_LOSS || this.closed || !lostWithItsWorker(run)) return run;
		this.ctx.logger.warn(`${this.name}: n8n lost the execution of update ${updateId} with its queue-mode worker ("failed to be processed too many times"); running it again`);
		const next = deferred();
		this.ctx.emit(data, undefined, next, keyOf(again));
		return await this.runAgainIfLost(next.promise, data, keyOf, updateId, again + 1);
	}

	/** Unpublished: an execution lost afterwards is not run again (its workflow no longer takes updates). */
	close(): void {
		this.closed = true;
	}

	/**
	 * The done promise of an emit: n8n settles it once the execution has run (resolved also when it
	 * refused the execution as a duplicate, rejected when it could not start it). Until then, or until
	 * `confirmWithinMs` passed, the update stays unacknowledged (`unconfirmed`).
	 */
	private confirmation(first: number): Done {
		this.emittedAt.set(first, Date.now());
		const { promise, resolve, reject } = deferred();
		const settled = (): void => {
			this.emittedAt.delete(first);
			this.feed?.confirmed();
		};
		promise.then(settled, settled);
		return { promise, resolve, reject };
	}

	/** The first update whose execution is unconfirmed and young enough to wait for (see `confirmation`). */
	get unconfirmed(): number | undefined {
		const now = Date.now();
		let first: number | undefined;
		for (const [id, at] of this.emittedAt) {
			if (now - at >= POLL_TIMING.confirmWithinMs) this.emittedAt.delete(id);
			else first = Math.min(first ?? id, id);
		}
		return first;
	}

	/**
	 * The item with the files of its messages (Download Files) and the id of its placeholder (Placeholder
	 * While Thinking, placeholder.ts). This trigger's updates after it wait
	 * (its queue in the feed), so that its executions start in update order; the other triggers of the
	 * bot do not. Unpublishing waits for a download under way (the feed lets the queue finish), and
	 * its message then runs.
	 */
	private async prepareItem(updates: readonly ReceivedUpdate[], json: IDataObject): Promise<INodeExecutionData> {
		const settings = this.environment.settings;
		// Posted as the message is handed over (after its files, which may take a while): the id goes on the item.
		const item = hasFilesToDownload(updates, settings) ? await withFiles(this.ctx, updates, json, settings) : { json };
		if (this.options.placeholder === '') return item;
		return { ...item, json: await withPlaceholder(this.ctx, this.options.placeholder, updates[updates.length - 1], item.json) };
	}

	/** The first update of the messages being gathered (or their files fetched), which the service must keep until they ran. */
	get held(): number | undefined {
		return this.grouping.held;
	}

	/** What the offset saved with an emit must not pass: messages gathered, executions unconfirmed. */
	private get keepFrom(): number {
		return Math.min(this.held ?? Number.POSITIVE_INFINITY, this.unconfirmed ?? Number.POSITIVE_INFINITY);
	}

	async take(body: unknown, updateId: number | undefined, bringsAnswers: boolean): Promise<ChatAnswer | undefined> {
		// A test that showed its update takes nothing more, also what was queued for it in the same answer.
		if (this.done) return undefined;
		const delivery = await deliverUpdate(body, bringsAnswers ? this.environment : this.leavingAnswers);
		if (updateId === undefined || delivery.updateId === undefined) {
			if (!delivery.run && !this.test) this.ctx.logger.warn(`${this.name}: skipped an entry that is ${'reason' in delivery ? delivery.reason : 'not an update'}`);
			return undefined;
		}
		if (this.test) return await this.show(delivery);
		// A run whose last message is behind this one will not be completed: it runs with what came.
		await this.grouping.runIncompleteBefore(updateId);
		const run = delivery.run ? this.runs.find((ids) => ids.includes(updateId)) : undefined;
		if (delivery.run && run) {
			if (!(await this.grouping.replay(run, delivery.update))) this.storeOffset(Math.min(updateId + 1, this.keepFrom));
			return undefined;
		}
		const gathered = delivery.run && this.grouping.gather(delivery.update);
		// A gathered message shows typing too: the user sees the bot is there while it waits for more.
		if (delivery.run && this.environment.settings.showTyping) showTyping(this.ctx, delivery.update);
		const runsNow = delivery.run && !gathered;
		const item = runsNow ? await this.prepareItem([delivery.update], delivery.item) : undefined;
		// Saved by n8n together with the next emit (n8n saves a trigger's static data on emit); never
		// beyond a message still gathered, so n8n stopping hard meanwhile fetches it again. An update
		// that runs keeps itself in the saved offset: n8n saves it while it creates the execution, and
		// a process killed in between must fetch it again (its deduplication key refuses a second run in this process).
		this.storeOffset(Math.min(runsNow ? updateId : updateId + 1, this.keepFrom));
		if (gathered) return undefined;
		if (delivery.run) {
			this.emitUpdate(delivery.update, item ?? { json: delivery.item }, updateId);
			return undefined;
		}
		if ('answer' in delivery) return delivery.answer;
		this.ctx.logger.debug(`${this.name}: update ${updateId} not run: ${delivery.reason}`);
		return undefined;
	}

	/** The feed cannot move on past them: the messages gathered from before `before` run now. */
	async release(before: number): Promise<void> {
		await this.grouping.release(before);
	}

	/** Unpublishing (the feed calls it once this member took what it was handed): the messages being gathered run now rather than never. */
	async finish(): Promise<void> {
		await this.grouping.finish();
	}

	/**
	 * Test: the first update that passes. With no published workflow polling this bot in this n8n, it
	 * is acknowledged (with those before it), so a workflow published afterwards does not run it again,
	 * as with n8n's own triggers; while one polls, nothing is acknowledged, so that one still gets it.
	 */
	private async show(delivery: Delivery): Promise<undefined> {
		if (delivery.run) {
			this.done = true;
			const item = await this.prepareItem([delivery.update], delivery.item);
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
	const self = holderOf(this, 'polling', run);
	let forget = recordHolder(token, self);
	const member = new PollingMember(
		this,
		options,
		{
			settings,
			windowKey: windowKeyOf(this, token, identity, run),
			answers: answerDesk(this, run === 'production', 'now'),
		},
		token,
		(changed) => {
			forget();
			forget = recordHolder(changed, self);
		},
	);
	const join = async (): Promise<void> => {
		await joinFeed(token, member);
	};
	warnOfSharedClicks(this, token, self);
	if (run === 'test') {
		// n8n installs the test's emit before it calls this.
		return {
			closeFunction: async () => {
				forget();
				await member.feed?.leave(member);
			},
			manualTriggerFunction: async () => await join(),
		};
	}
	await join();
	member.rememberStart();
	return {
		closeFunction: async () => {
			forget();
			member.close();
			await member.feed?.leave(member);
		},
	};
}
