/**
 * One `getUpdates` consumer per bot in this n8n, shared by every polling trigger of the bot: the
 * published workflows and the editor's tests. A bot serves one poller at a time (a second one gets
 * 409), so workflows cannot each poll; instead the first trigger of a bot starts a feed, the others
 * join it, and every update the feed fetches is offered to each of them in the service's order.
 * n8n runs every published trigger() on its (leader) main, so memory is where they meet.
 *
 * The loop reads: fetch, hand out, acknowledge. Handing out puts an update in the queue of each
 * trigger that needs it; each trigger takes its queue in order, on its own (a download delays only
 * its own trigger's later updates), and the loop does not wait for them: it asks again once
 * everything handed out was taken and confirmed (the offset then moves past it, and a long poll
 * follows), or after `idlePauseMs` for the triggers that are free, never more often (each request
 * from a held-back offset fetches that whole backlog again).
 *
 * Acknowledgement. `getUpdates` with offset N tells the service that every update below N is done.
 * Each published trigger keeps its own next offset (in its static data, saved with its emit, see
 * poll.ts); the feed asks with the smallest of them, and never past an update a trigger still needs
 * (handed out and not taken yet, messages it gathers, an execution n8n has not confirmed yet: the
 * ledger, ledger.ts), so the service keeps an update until every published trigger was handed it and
 * n8n has its execution. A trigger joining a
 * running feed starts where the feed is, as a workflow published later starts with the updates that
 * arrive after it; one that was published before (a restart) starts at its own offset. Tests never hold the offset back, and move it only
 * when no published trigger polls the bot (poll.ts).
 *
 * Errors never escape the loop (an unawaited rejection could take n8n down). A network error, a 5xx
 * or a 429 waits (429: `retry_after`; else 1 s doubling to 30 s) and tries again, for as long as a
 * trigger is joined. A 401 ends the feed for every trigger with n8n's `emitError` (n8n then retries
 * each activation with its own backoff and shows the error), unless the credential now holds another
 * token. A 409 with a webhook set ends it the same way; a 409 from another consumer (another n8n,
 * another program, two n8n leaders during a hand-over) is retried and reported only if it lasts.
 *
 * A trigger leaving is handed nothing more, takes what it was handed and runs what it gathers. The
 * last one leaving then aborts the open long poll and any wait at once, and the feed tells the
 * service what published triggers were handed and took since the last poll, so the workflow
 * published next on this bot does not get those updates again.
 *
 * One feed per bot, also when its token is changed in the credential (after a leak). n8n reads the
 * credential for every request, so a running feed polls with the new token from its next request on,
 * without noticing; the spec shows no call that names the bot itself, so the token is all that says
 * which bot a feed polls. The feed is found by the token it polls with now: it reads its credential's
 * token after every answer (and when refused its token, or meeting another poller), and a trigger
 * that finds no feed for its token asks each running feed first. A feed whose credential holds a new
 * token takes it as its key (its triggers store their offsets under it), and when a feed polls with
 * it already, hands its triggers over to that one (see `switchTo`). The triggers keep their offsets:
 * a token changed in the credential is taken to be a new token of the same bot, as before.
 *
 * Group Messages Within keeps the first gathered message unacknowledged (the service keeps it until it
 * ran, `held`), so the feed asks from it and cannot long-poll meanwhile (it asks again each
 * `idlePauseMs`, for as many updates as it handed out past it and `limit` more). When even that answer
 * is full, waiting would hold every workflow of the bot back; the feed then has the holding triggers
 * run what they gathered before the end of that answer at once (`release`), and moves on.
 *
 * One file (about 620 lines) on purpose: the loop, its failures, the token switch and the members'
 * queues all decide when the service is asked and with which token; the offsets themselves are the
 * ledger's (ledger.ts), and what one trigger does with an update is in poll.ts.
 */
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, pause } from '../shared/transport/client';
import { TOKEN_REFUSED, credentialError } from '../shared/transport/credentialProblems';
import type { ServiceFailure } from '../shared/transport/failure';
import { failureOf, messageOf } from '../shared/transport/failure';
import { rereadToken } from '../shared/transport/token';
import type { ChatAnswer } from '../shared/trigger/answerDelivery';
import type { Holder } from '../shared/trigger/holders';
import { describeWorkflows, holdersOf } from '../shared/trigger/holders';
import { botKeyOf } from '../shared/trigger/identity';
import { updateIdOf } from '../shared/trigger/update';
import { ALLOWED_UPDATES } from '../shared/trigger/settings';
import { displayUrl, webhookInfo } from '../shared/webhookInfo';
import { LIMITS } from '../shared/spec';
import type { LedgerEntry, LedgerMember } from './ledger';
import { Ledger } from './ledger';
import type { PollingOptions } from './options';

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
	/**
	 * How long an emitted update's execution may go unconfirmed before the feed tells the service the
	 * update is done anyway. n8n confirms an execution when it has run (the emit's done promise); until
	 * then the feed asks from that update, so that n8n killed before it created the execution fetches the
	 * update again. Creating one takes n8n milliseconds, seconds when it is very busy; a workflow that runs
	 * longer than this (an AI agent) certainly has its execution, and holding on would only slow the bot.
	 */
	confirmWithinMs: 10_000,
	/**
	 * How long one trigger's unfinished work (a download: Download Files) may hold every other workflow
	 * of the bot back once the updates behind it fill the service's largest answer (the next request
	 * could bring nothing new). After that the feed lets the service drop what that trigger was handed
	 * in that answer (`Ledger.letGo`); the trigger runs those updates from memory when it can (n8n
	 * killed meanwhile loses them). Below that size the others are never held back.
	 */
	fullAnswerHoldMs: 10_000,
	/**
	 * How long a feed that started from a saved offset acknowledges nothing beyond it. When n8n starts,
	 * it publishes its workflows one after another; a workflow joining a few seconds after the first
	 * must still find the updates that arrived while n8n was down.
	 */
	startGraceMs: 15_000,
	/**
	 * How long a published trigger that left still holds the acknowledgement at the update it would
	 * have taken next. A trigger cannot tell being unpublished from n8n stopping, and n8n closes the
	 * workflows one after another: an update fetched after the first closed and run by the others
	 * must stay at the service for the first one's next start. A workflow really unpublished holds
	 * the others' acknowledgement (not their updates) back this long.
	 */
	leftKeepMs: 5_000,
};

/** A trigger across publishes: its workflow and node. */
function triggerOf(member: FeedMember): string {
	return `${member.ctx.getWorkflow().id ?? ''}\u0000${member.ctx.getNode().name}`;
}

/** Warnings of a lasting failure: the first, then every `WARN_EVERY`-th. */
const WARN_EVERY = 10;

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

/** A 401 while polling: the credential's words, naming it and its Access Token (credentialProblems.ts). */
export function tokenRefused(ctx: ITriggerFunctions): NodeOperationError {
	return credentialError(ctx, { field: 'Access Token', advice: TOKEN_REFUSED });
}

/** The bot has a webhook; `holders` are the published workflows of this n8n that receive through it. */
export function webhookConflict(ctx: ITriggerFunctions, shownUrl: string, holders: readonly Holder[]): NodeOperationError {
	if (holders.length > 0) {
		const them = holders.length > 1 ? 'them' : 'it';
		return new NodeOperationError(
			ctx.getNode(),
			`The published ${describeWorkflows(holders)} ${holders.length > 1 ? 'receive' : 'receives'} this bot's updates through its webhook (Service Bot Trigger), and a bot with a webhook cannot be polled. Use the Service Bot Trigger in this workflow too (several workflows share a bot that way), or unpublish ${them} first`,
		);
	}
	return new NodeOperationError(
		ctx.getNode(),
		`The bot has a webhook (${shownUrl}), and a bot with a webhook cannot be polled. Remove it where it was set (unpublish the workflow whose Service Bot Trigger owns it, or run Delete Webhook), use the Service Bot Trigger (webhook delivery) instead, or turn on "Delete Existing Webhook" in this trigger's options`,
	);
}

function pollerConflict(ctx: ITriggerFunctions): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		'Another consumer is polling this bot (another n8n, or another program with this bot token). A bot serves one poller at a time, and the workflows of one n8n share it: stop the other consumer, or use another bot',
	);
}

/** A polling trigger joined to its bot's feed (poll.ts). */
export interface FeedMember extends LedgerMember {
	readonly ctx: ITriggerFunctions;
	readonly options: PollingOptions;
	/** Where it starts: its stored offset (a restart), or undefined to start where the feed is. */
	readonly start: number | undefined;
	/**
	 * Takes one update (its id is at or after the update it needs next). Returns an answer to a waiting
	 * execution when this trigger was asked to bring answers and the update is one: the feed brings it,
	 * after acknowledging.
	 */
	take(body: unknown, updateId: number | undefined, bringsAnswers: boolean): Promise<ChatAnswer | undefined>;
	/** Runs at once what it holds below `before` (messages it gathers); resolves once they were emitted. */
	release(before: number): Promise<void>;
	/** Leaving: runs what it still gathers (the feed has stopped handing it updates, and it took all it had). */
	finish(): Promise<void>;
	/** The feed now polls with another token of the bot (changed in the credential): what it keys by the token follows. */
	tokenChanged(token: string): void;
	/** The feed it is a member of (set by the feed: a feed that joins another hands its members over). */
	feed: BotFeed | undefined;
}

export class BotFeed {
	private readonly controller = new AbortController();
	private running: Promise<void> = Promise.resolve();
	/** Position, acknowledgement and what each member was handed and still needs (no I/O: ledger.ts). */
	private readonly ledger = new Ledger<FeedMember>();
	/**
	 * Each member's queue: the updates handed to it, taken one after another in the service's order.
	 * One member's slow take (Download Files) waits only in its own queue.
	 */
	private readonly queues = new Map<FeedMember, Promise<void>>();
	/** Answers taken and not yet brought: the loop makes no long poll meanwhile (their acknowledgement comes first). */
	private bringing = 0;
	/** getUpdates one at a time: a bot serves one request of its consumer at a time (another gets 409). */
	private requests: Promise<unknown> = Promise.resolve();
	/** When the feed started and the offset it first asked with (see `startGraceMs`). */
	private readonly startedAt = Date.now();
	private startOffset: number | undefined;
	private started = false;
	/** Ends the loop's wait early: something it waits for changed (an update taken, an execution confirmed). */
	private wake = new AbortController();
	/** Published triggers holding the feed at a full answer: their need, and since when it has not moved. */
	private readonly stalled = new Map<FeedMember, { need: number; since: number }>();

	constructor(
		/** Where `feeds` has it: the key of the token it polls with (see `switchTo`). */
		private key: string,
		/** The bot token the loop polls with: the credential's, read again when the service refuses it. */
		private token: string,
		first: FeedMember,
	) {
		this.join(first);
	}

	/** For log lines: the trigger whose requests the feed sends now. */
	private get name(): string {
		return `Service Bot Polling Trigger "${this.caller?.getNode().name ?? ''}"`;
	}

	/** The published triggers joined, in the order they joined. */
	get published(): FeedMember[] {
		return this.ledger.published;
	}

	/** The update a member needs next (where it starts, once joined). */
	nextOf(member: FeedMember): number | undefined {
		return this.ledger.nextOf(member);
	}

	/** Adds a trigger: it starts where the feed is, or at its own stored offset. */
	join(member: FeedMember): void {
		// The same trigger published again: its departure no longer holds the others back.
		const who = triggerOf(member);
		this.left.splice(0, this.left.length, ...this.left.filter((departed) => departed.who !== who));
		this.ledger.join(member, member.start);
		member.feed = this;
		this.changed();
	}

	/** Takes over a member of another feed of the bot (`switchTo`), with the updates it has still to take. */
	private adopt(member: FeedMember, entry: LedgerEntry | undefined, queue: Promise<void> | undefined): void {
		if (entry) this.ledger.adopt(member, entry);
		else this.ledger.join(member, member.start);
		if (queue) this.queues.set(member, queue);
		member.feed = this;
	}

	/**
	 * Reads the token its credential holds now (n8n polls with it from the next request on) and, when it
	 * changed, follows it (`switchTo`). Returns the feed that polls the bot afterwards.
	 */
	async refreshToken(mayJoin: boolean): Promise<BotFeed> {
		const ctx = this.caller;
		if (!ctx || this.signal.aborted) return this;
		let current: string;
		try {
			current = await rereadToken(ctx);
		} catch {
			return this;
		}
		return current === '' || current === this.token ? this : this.switchTo(current, mayJoin);
	}

	/**
	 * The bot is polled with `token` now. Its triggers keep their offsets (the same bot); the feed is
	 * found under the new token from now on. When a feed polls with that token already (two feeds of one
	 * bot: one credential changed after a trigger published with the new token had started its own),
	 * this one hands its triggers over and ends, so that one consumer is left; only the loop does that,
	 * between two polls, when `mayJoin`.
	 */
	private switchTo(token: string, mayJoin: boolean): BotFeed {
		const key = feedKey(token);
		const other = feeds.get(key);
		if (other && other !== this && !mayJoin) return this;
		this.caller?.logger.info(`${this.name}: the bot token in the credential was changed; polling with the new one`);
		this.token = token;
		for (const member of this.ledger.members) member.tokenChanged(token);
		if (other && other !== this) {
			this.end();
			for (const member of this.ledger.members) {
				other.adopt(member, this.ledger.entryOf(member), this.queues.get(member));
				this.ledger.remove(member);
			}
			this.queues.clear();
			return other;
		}
		if (feeds.get(this.key) === this) feeds.delete(this.key);
		this.key = key;
		feeds.set(key, this);
		return this;
	}

	/**
	 * Removes a trigger: it is handed nothing more, takes what it was handed (its queue) and runs what
	 * it gathers, and only then stops counting; the last one ends the feed and acknowledges what was
	 * handed out and taken.
	 */
	async leave(member: FeedMember): Promise<void> {
		if (!this.ledger.has(member)) return;
		this.ledger.leaving(member);
		await this.queues.get(member);
		await member.finish();
		// A token switch may have handed it to another feed meanwhile.
		if (member.feed !== this) return await member.feed?.leave(member);
		this.queues.delete(member);
		const need = member.test ? undefined : this.ledger.departingNeed(member);
		if (need !== undefined) this.left.push({ who: triggerOf(member), need, until: Date.now() + POLL_TIMING.leftKeepMs });
		this.ledger.remove(member);
		this.changed();
		if (this.ledger.members.length > 0) return;
		this.end();
		await this.running;
		const settled = this.ledger.settledPosition();
		const keep = this.leftNeed;
		const offset = settled !== undefined && keep !== undefined ? Math.min(settled, keep) : settled;
		if (offset === undefined || offset === this.ledger.acknowledged) return;
		await this.acknowledge(offset, 'when stopping', member.ctx);
	}

	start(): void {
		this.running = this.loop().catch((error: unknown) => {
			// The loop catches everything it expects; anything else ends polling visibly, never unhandled.
			this.report((ctx) => new NodeOperationError(ctx.getNode(), `Polling stopped: ${messageOf(error)}`));
		});
	}

	private get signal(): AbortSignal {
		return this.controller.signal;
	}

	private end(): void {
		if (feeds.get(this.key) === this) feeds.delete(this.key);
		this.controller.abort();
	}

	/** The trigger whose credential and helpers the feed's requests use (a published one first). */
	private get caller(): ITriggerFunctions | undefined {
		return (this.published[0] ?? this.ledger.members[0])?.ctx;
	}

	/** Ends the feed for every trigger: each gets the error through n8n's emitError. */
	private report(errorFor: (ctx: ITriggerFunctions) => Error): void {
		this.end();
		for (const member of this.ledger.members) {
			this.ledger.remove(member);
			member.ctx.emitError(errorFor(member.ctx));
		}
	}

	/** An execution a member emitted was confirmed (or failed to start): the loop may move on. */
	confirmed(): void {
		this.changed();
	}

	/** Wakes the loop's wait when what it waits for may have changed. */
	private changed(): void {
		this.wake.abort();
	}

	/** The offset to ask with: the ledger's, held at the start offset during the start grace and at what triggers that just left need. */
	private requestOffset(): number | undefined {
		return this.ledger.requestOffset(this.keepFrom);
	}

	/** Published triggers that left, with the update each would have taken next, for `leftKeepMs`. */
	private readonly left: Array<{ readonly who: string; readonly need: number; readonly until: number }> = [];

	/** Below what nothing may be acknowledged now: the start grace's offset, what triggers that just left need. */
	private get keepFrom(): number | undefined {
		const kept = [this.leftNeed, this.holding ? this.startOffset : undefined].filter((id): id is number => id !== undefined);
		return kept.length > 0 ? Math.min(...kept) : undefined;
	}

	/** The smallest update a published trigger that left less than `leftKeepMs` ago would have taken next. */
	private get leftNeed(): number | undefined {
		const now = Date.now();
		this.left.splice(0, this.left.length, ...this.left.filter((departed) => departed.until > now));
		return this.left.length > 0 ? Math.min(...this.left.map((departed) => departed.need)) : undefined;
	}

	/** Only a feed that started from a saved offset holds (n8n restarting, or a workflow published again). */
	private get holding(): boolean {
		return this.startOffset !== undefined && Date.now() - this.startedAt < POLL_TIMING.startGraceMs;
	}

	/** Whether the next request would bring updates handed out already, or a member has some still to take. */
	private get heldBack(): boolean {
		return this.ledger.holdsBack(this.keepFrom) || this.ledger.busy() || this.bringing > 0;
	}

	/**
	 * How many updates to ask for: the members' largest Updates per Request, plus those it handed out
	 * already past an offset that is held back (they come again and are skipped), up to the spec's limit.
	 */
	private limit(offset: number | undefined): number {
		const limit = Math.max(...this.ledger.members.map((member) => member.options.limit));
		const seen = this.ledger.seen;
		const again = offset !== undefined && seen !== undefined ? Math.max(seen - offset, 0) : 0;
		return Math.min(limit + again, LIMITS.updatesLimit.max);
	}

	private request(offset: number | undefined, timeout: number): IDataObject {
		const body: IDataObject = { limit: this.limit(offset), timeout };
		if (offset !== undefined) body.offset = offset;
		// Tests alone leave the bot's persistent update types alone: narrowing them would make the
		// service drop updates a workflow published later expects.
		if (this.published.length > 0) body.allowed_updates = [...ALLOWED_UPDATES];
		return body;
	}

	private longPollTimeout(): number {
		return Math.min(...this.ledger.members.map((member) => member.options.longPollTimeout));
	}

	/** Runs one getUpdates after the one under way (members acknowledge too: answers, tests). */
	private async oneAtATime<T>(request: () => Promise<T>): Promise<T> {
		const turn = this.requests.then(request, request);
		this.requests = turn.catch(() => undefined);
		return await turn;
	}

	/**
	 * Tells the service that every update below `offset` is done: a getUpdates that waits for nothing.
	 * A failure is not an error: the updates come again.
	 */
	async acknowledge(offset: number, when: string, ctx = this.caller): Promise<void> {
		if (!ctx) return;
		const body: IDataObject = { offset, limit: 1, timeout: 0 };
		if (this.published.length > 0) body.allowed_updates = [...ALLOWED_UPDATES];
		try {
			await this.oneAtATime(async () => await apiRequest(ctx, 'getUpdates', body, { idempotent: true, retry: { rateLimitRetries: 0, transientRetries: 0 } }));
			this.ledger.acknowledge(offset);
		} catch (error) {
			ctx.logger.debug(`${this.name}: could not acknowledge the updates below ${offset} ${when}: ${messageOf(error)}`);
		}
	}

	private async loop(): Promise<void> {
		let failures = 0;
		/** Batches in a row that moved nothing on. */
		let stuck = 0;

		let conflictSince: number | undefined;
		while (!this.signal.aborted) {
			const ctx = this.caller;
			if (!ctx) return;
			const offset = this.requestOffset();
			if (!this.started) {
				this.started = true;
				this.startOffset = offset;
			}
			// No long poll while a member has updates to take: it may need a request of its own meanwhile
			// (the acknowledgement before an answer, a test's), and the answer comes at once anyway.
			const timeout = this.ledger.busy() || this.bringing > 0 ? 0 : this.longPollTimeout();
			const asked = Date.now();
			let result: unknown;
			try {
				result = await this.oneAtATime(
					async () =>
						await apiRequest(ctx, 'getUpdates', this.request(offset, timeout), {
							idempotent: true,
							longPollSeconds: timeout,
							abortSignal: this.signal,
							// The loop waits and retries itself, abortably.
							retry: { rateLimitRetries: 0, transientRetries: 0 },
						}),
				);
			} catch (error) {
				if (this.signal.aborted) return;
				failures++;
				const failure = failureOf(error);
				const status = failure?.kind === 'refused' ? failure.status : undefined;
				if (status === 401) {
					// The token was changed in the credential (after a leak) while the workflows stay published:
					// go on with the new one, for the same bot (its offsets and keys stay).
					const before = this.token;
					if (failures === 1 && (await this.refreshToken(true)) !== this) return;
					if (this.token === before) return this.report(tokenRefused);
					continue;
				}
				if (status === 409) {
					// The other poller may be this bot's other feed: the credential now holds the token it polls with.
					if ((await this.refreshToken(true)) !== this) return;
					const webhook = await this.webhookSetMeanwhile(ctx);
					if (webhook !== undefined) return this.report((member) => webhookConflict(member, webhook, holdersOf(this.token, 'webhook')));
					conflictSince ??= Date.now();
					if (this.published.length === 0 || Date.now() - conflictSince >= POLL_TIMING.conflictReportMs) return this.report(pollerConflict);
				}
				const wait = retryWait(failure, failures);
				if (failures === 1 || failures % WARN_EVERY === 0) {
					ctx.logger.warn(`${this.name}: getUpdates failed (${failures}× in a row): ${messageOf(error)}. Trying again in ${Math.round(wait / 100) / 10} s`);
				}
				await pause(wait, this.signal);
				continue;
			}
			// Asked without an offset, the service answers from the first update it holds: as if asked with its id.
			const asFrom = offset ?? (Array.isArray(result) ? (result as unknown[]).map(updateIdOf).find((id): id is number => id !== undefined) : undefined);
			if (asFrom !== undefined) this.ledger.acknowledged = asFrom;
			if (failures > 0) ctx.logger.info(`${this.name}: polling works again after ${failures} failed attempts`);
			failures = 0;
			conflictSince = undefined;
			// Before the offsets of this answer are stored: they are stored under the token polled with now.
			if ((await this.refreshToken(true)) !== this) return;

			const updates = Array.isArray(result) ? [...(result as unknown[])] : [];
			if (updates.length === 0) {
				// An empty answer long before the long poll's end: no long poll happened (timeout 0, or a
				// service that answers "nothing" while a webhook is set). Never spin.
				if (timeout === 0 || Date.now() - asked < (timeout * 1000) / 2) {
					if (timeout > 0) {
						const webhook = await this.webhookSetMeanwhile(ctx);
						if (webhook !== undefined) return this.report((member) => webhookConflict(member, webhook, holdersOf(this.token, 'webhook')));
					}
					await this.waitForChange(POLL_TIMING.idlePauseMs, false);
				}
				continue;
			}
			const pausedUntil = this.handOut(updates);
			if (pausedUntil !== undefined) {
				// What the others were not handed yet waits for the departure to pass (see handOut).
				await this.waitForChange(pausedUntil - Date.now(), false);
				continue;
			}
			this.releaseHeld(updates);
			this.letGoOfSlowMembers(updates);
			// Until the members took this answer and n8n confirmed its executions (the offset can then move
			// past it, and a long poll follows), or for the idle pause: the next request brings the updates
			// handed out already again, to fetch what came since for the members that are free. Never more
			// often: each request from a held-back offset fetches that whole backlog.
			await this.waitForChange(POLL_TIMING.idlePauseMs, true);
			if (this.signal.aborted) return;
			if (this.requestOffset() !== offset || this.heldBack) {
				stuck = 0;
				continue;
			}
			// Nothing moved on and nothing is held back: entries without an update_id came, which cannot be
			// acknowledged (or only tests listen and the waiting updates are not theirs): ask less and less often.
			stuck++;
			const wait = backoff(stuck);
			if (stuck === 1 || stuck % WARN_EVERY === 0) {
				ctx.logger.warn(`${this.name}: the service keeps sending entries that are not updates (no update_id); they cannot be acknowledged. Asking again in ${Math.round(wait / 100) / 10} s`);
			}
			await pause(wait, this.signal);
		}
	}

	/**
	 * Waits at most `ms`: while the feed is held back (`whileHeldBack`), until it no longer is, telling
	 * the service meanwhile what was confirmed (`acknowledgeConfirmed`); else until something changes.
	 */
	private async waitForChange(ms: number, whileHeldBack: boolean): Promise<void> {
		const until = Date.now() + ms;
		for (;;) {
			this.wake = new AbortController();
			if (this.signal.aborted || (whileHeldBack && !this.heldBack)) return;
			if (whileHeldBack) await this.acknowledgeConfirmed();
			const left = until - Date.now();
			if (left <= 0) return;
			await pause(left, AbortSignal.any([this.signal, this.wake.signal]));
			if (!whileHeldBack && this.wake.signal.aborted) return;
		}
	}

	/**
	 * While the feed waits, the offset may move on (executions confirmed, updates taken): the service is
	 * told at once, with a request for one update (not the whole backlog the next fetch brings again),
	 * so that n8n killed a moment later fetches only what was not confirmed (which its restart runs
	 * again: see poll.ts, the deduplication key).
	 */
	private async acknowledgeConfirmed(): Promise<void> {
		const offset = this.requestOffset();
		const acknowledged = this.ledger.acknowledged;
		if (offset === undefined || (acknowledged !== undefined && offset <= acknowledged)) return;
		await this.acknowledge(offset, 'once what came before it was confirmed');
	}

	/**
	 * After an answer of the spec's largest size: when the next request would start at or before its
	 * first update, it could bring nothing new (the same updates again), and every workflow of the bot
	 * would wait until the gathering ends. Gathered messages are the only such hold (the start grace
	 * ends by itself): the triggers that gathered messages up to that first update run them now (cut
	 * short), so that the service may be told they are done and the feed moves on. Not waited for: a
	 * member's files may take long; the loop moves on once they ran.
	 */
	private releaseHeld(updates: unknown[]): void {
		if (updates.length < LIMITS.updatesLimit.max || this.holding) return;
		const first = updates.map(updateIdOf).find((id): id is number => id !== undefined);
		const next = this.requestOffset();
		if (first === undefined || next === undefined || next > first) return;
		const holders = this.published.filter((member) => member.held !== undefined && member.held <= first);
		if (holders.length === 0) return;
		void Promise.all(holders.map(async (member) => await member.release(first + 1))).finally(() => this.changed());
	}

	/**
	 * While answers of the spec's largest size start at or before their first update (the next request
	 * would bring nothing new), a published trigger whose need has not moved for `fullAnswerHoldMs`
	 * (its download holds the offset there) while another published trigger waits behind it is let go
	 * of up to the end of the answer, so that the others get what follows. A trigger that makes
	 * progress (takes, runs) is never let go, nor one no other trigger waits behind.
	 */
	private letGoOfSlowMembers(updates: unknown[]): void {
		const ids = updates.map(updateIdOf).filter((id): id is number => id !== undefined);
		const offset = this.requestOffset();
		if (updates.length < LIMITS.updatesLimit.max || this.holding || ids.length === 0 || offset === undefined || offset > ids[0]) {
			this.stalled.clear();
			return;
		}
		const now = Date.now();
		const end = Math.max(...ids) + 1;
		const needs = new Map(this.published.map((member) => [member, this.ledger.need(member)] as const));
		for (const member of this.published) {
			const need = needs.get(member);
			const stalled = this.stalled.get(member);
			// Only a trigger another one waits behind: one that needs nothing more or a later update. Two
			// stuck at the same update (a busy n8n slow to take the other's) hold each other, never let go.
			const waitedFor = [...needs].some(([other, its]) => other !== member && (its === undefined || (need !== undefined && its > need)));
			if (need === undefined || need > ids[0] || !waitedFor) {
				this.stalled.delete(member);
			} else if (stalled?.need !== need) {
				this.stalled.set(member, { need, since: now });
			} else if (now - stalled.since >= POLL_TIMING.fullAnswerHoldMs) {
				this.stalled.delete(member);
				this.ledger.letGo(member, end);
				this.changed();
				member.ctx.logger.warn(
					`Service Bot Polling Trigger "${member.ctx.getNode().name}": its updates from ${need} on are still being prepared (Download Files) or held after ${Math.round(POLL_TIMING.fullAnswerHoldMs / 1000)} s while the bot's other workflows wait behind them; the service is told they are done up to ${end} so that the others go on. This workflow still runs them; n8n stopping before it did loses them`,
				);
			}
		}
	}

	/**
	 * Hands each update, in order, to every trigger that needs it: into its queue, so that each takes
	 * its updates in order without waiting for the others (`take`).
	 */
	/**
	 * Hands the updates of an answer to the members, in order. While a published trigger that left
	 * counts (`leftKeepMs`), nothing from what it would have taken next on is handed to the others:
	 * when n8n stops it closes the workflows one after another, and an execution it creates in its
	 * last moment may be stored without being started; n8n 2.x runs such an execution at its next
	 * start, where the update, never confirmed, comes again (the chaos soak ran soak-901 twice this
	 * way). Returns until when handing out waits, or undefined when all was handed out.
	 */
	private handOut(updates: unknown[]): number | undefined {
		const pausedFrom = this.leftNeed;
		for (const body of updates) {
			if (this.signal.aborted) return undefined;
			const updateId = updateIdOf(body);
			if (pausedFrom !== undefined && updateId !== undefined && updateId >= pausedFrom) {
				return Math.min(...this.left.map((departed) => departed.until));
			}
			const { takers, bringer } = this.ledger.handOut(updateId);
			for (const member of takers) {
				const before = this.queues.get(member) ?? Promise.resolve();
				this.queues.set(
					member,
					before.then(async () => await this.take(member, body, updateId, member === bringer)),
				);
			}
		}
		return undefined;
	}

	/**
	 * One member takes one update. The first published one brings answers to waiting executions, after
	 * the service was told the update is done as far as the other members let it (brought twice — n8n
	 * stopping before the next poll —, its person would be told the question was answered already; an
	 * answer that is lost can simply be given again).
	 */
	private async take(member: FeedMember, body: unknown, updateId: number | undefined, bringsAnswers: boolean): Promise<void> {
		let answer: ChatAnswer | undefined;
		try {
			answer = await member.take(body, updateId, bringsAnswers);
		} catch (error) {
			// One trigger's failure must not cost the others their updates.
			member.ctx.logger.warn(`Service Bot Polling Trigger "${member.ctx.getNode().name}": could not take update ${updateId ?? '(no id)'}: ${messageOf(error)}`);
		}
		// Its feed now (a token switch hands members over).
		const feed = member.feed ?? this;
		if (answer) feed.bringing++;
		feed.ledger.taken(member, updateId);
		feed.changed();
		if (!answer) return;
		try {
			const offset = feed.requestOffset();
			if (offset !== undefined && offset !== feed.ledger.acknowledged) await feed.acknowledge(offset, 'before bringing an answer');
			feed.caller?.logger.debug(`${feed.name}: update ${updateId ?? '(no id)'} not run: ${await answer.bring()}`);
		} finally {
			feed.bringing--;
			feed.changed();
		}
	}

	/** The webhook's URL as shown when the bot got one while it is polled (a failed look counts as none). */
	private async webhookSetMeanwhile(ctx: ITriggerFunctions): Promise<string | undefined> {
		const webhook = await webhookInfo(ctx, this.signal).then(
			(info) => info.url ?? '',
			() => '',
		);
		return webhook === '' ? undefined : displayUrl(webhook, this.token);
	}
}

/** The running feeds of this n8n process, by the token they poll with (one-way keys). */
const feeds = new Map<string, BotFeed>();

function feedKey(token: string): string {
	return botKeyOf(token, 'polled-bot');
}

/**
 * Joins the bot's feed, starting one when none runs. A feed whose credential was changed to this
 * token polls this bot already: it is found by asking the running feeds for their current token.
 */
export async function joinFeed(token: string, member: FeedMember): Promise<BotFeed> {
	const key = feedKey(token);
	if (!feeds.has(key)) {
		for (const feed of [...feeds.values()]) {
			await feed.refreshToken(false);
			if (feeds.has(key)) break;
		}
	}
	// Looked up again after the awaits: another trigger of the bot may have started its feed meanwhile.
	const running = feeds.get(key);
	if (running) {
		running.join(member);
		return running;
	}
	const feed = new BotFeed(key, token, member);
	feeds.set(key, feed);
	feed.start();
	return feed;
}
