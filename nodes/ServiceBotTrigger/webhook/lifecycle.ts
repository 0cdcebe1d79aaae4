/**
 * The webhook's lifecycle, as n8n drives it: `checkExists` then `create` when a workflow is published
 * (mode 'trigger') or when the editor listens for a test event (mode 'manual', on the test URL), and
 * `delete` when it is unpublished or the test ends (mode 'internal' for both, with the URL of the
 * registration being removed). n8n does not call them again when it restarts.
 *
 * A bot has one webhook; the triggers of this n8n share it (shared/trigger/listeners.ts):
 * - a trigger joins the bot's listeners, or registers alone when there are none; a test in the
 *   editor is one more listener, so published workflows keep receiving while it listens;
 * - leaving, it registers the others again (the next one receives when it was the receiver), or
 *   removes the webhook when it was the last;
 * - a foreign webhook (another n8n, another system) is replaced only with "Take Over Existing
 *   Webhook", and never deleted.
 *
 * One file (about 500 lines) on purpose: checkExists, create and delete are three entries into one
 * state machine (the bot's listener list, written by one writer per bot, with the start-up joins, the
 * retried writes and the removals still due), and its invariants are read in one place; the list's
 * encoding (listeners.ts), the copies (forward.ts), the secret and the URLs are already apart.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RetryPolicy } from '../../shared/transport/client';
import { apiRequest, pause } from '../../shared/transport/client';
import { asCredentialError } from '../../shared/transport/credentialProblems';
import { publicationRefusal } from '../../shared/transport/publicationRefusal';
import { failureOf, messageOf } from '../../shared/transport/failure';
import type { Run } from '../../shared/trigger/identity';
import { botKeyOf, fingerprint, identityOf, runOf } from '../../shared/trigger/identity';
import type { Holder } from '../../shared/trigger/holders';
import { describeWorkflows, forgetHolder, holderOf, holdersOf, isHeld, recordHolder, warnOfSharedClicks } from '../../shared/trigger/holders';
import { ALLOWED_UPDATES, readDeliverySettings, requireToken } from '../../shared/trigger/settings';
import { displayUrl, webhookInfo } from '../../shared/webhookInfo';
import type { Listener } from '../../shared/trigger/listeners';
import { MAX_LISTENERS, inServingOrder, isServed, listenerOf, listenersOf, registeredUrlOf, webhookIdOf } from '../../shared/trigger/listeners';
import type { WebhookOptions } from './options';
import { readWebhookOptions } from './options';
import { deriveSecret, secretDigest, sharedSecret } from './secret';
import { sameUrl, serviceBaseUrl, webhookUrlProblem } from './urls';

/** What create() registered, kept in the node's static data (a test's own static data for a test). */
interface RegistrationRecord {
	url: string;
	/** One-way tag of the secret and the options sent with it; never the secret itself. */
	tag: string;
	/** Digest of the secret the service was given (`secretDigest`), so pushes stay accepted after a token change. */
	secretDigest?: string;
	/**
	 * Digest of this trigger's shared secret as a receiver (`sharedSecret`) under the token of create():
	 * another listener may register the bot with it (listeners.ts), and the service keeps sending it
	 * after a token change, as it keeps the direct one.
	 */
	sharedSecretDigest?: string;
	/** Absent in records of version 0.1.0, which registered production webhooks only in practice. */
	run?: Run;
	/** A test that took over a foreign webhook: where it pointed (for display only). */
	tookOverFrom?: string;
}

const REGISTRATION_KEY = 'registration';

/** How often a trigger writes the listeners again when another registration replaced its own. */
const MAX_WRITES = 5;

/** How the bot's webhook is written; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const WRITE_TIMING = {
	/**
	 * Writing the bot's webhook is repeated after a 5xx or a lost answer, not only after a 429: setting
	 * the same listeners again, or deleting a webhook twice, leaves the same state (idempotent), and a
	 * write that fails for good can leave the bot deaf (a receiver n8n no longer serves). About 15 s.
	 */
	retry: { transientRetries: 5, backoffBaseMs: 500 } as Partial<RetryPolicy>,
	/**
	 * Waits before the first further attempts of a removal that still failed, in the background
	 * (growing: about 7.5 minutes in all), then one every `removalRetryEveryMs`.
	 */
	removalRetryDelaysMs: [30_000, 60_000, 120_000, 240_000] as readonly number[],
	/**
	 * The wait between further attempts once the growing ones are used up: a bot left deaf heals within
	 * this time after the service accepts writes again. Cheap (one getWebhookInfo, a probe per listed
	 * workflow, one setWebhook), and nothing else of this package runs for such a bot in n8n 2.41 until
	 * a workflow of it is published (CONTRIBUTING, "Several workflows on one bot").
	 */
	removalRetryEveryMs: 300_000,
	/**
	 * How long after the removal failed it is still tried: for as long as n8n runs. An in-memory
	 * attempt ends with the process anyway (n8n's shutdown calls no method of a webhook trigger);
	 * tests bound it so that their process can end.
	 */
	removalRetryForMs: Number.POSITIVE_INFINITY,
	/** At n8n's start, the bot's triggers are registered together once no other has joined for this long. */
	startQuietMs: 3_000,
	/** …and at the latest this long after the first joined. */
	startLongestMs: 60_000,
};

/**
 * The triggers of a bot that n8n's start ('init') registered and that wait to be written together,
 * per bot (bounded by the bots this n8n serves).
 */
interface StartJoin {
	readonly joiners: Array<{ readonly ctx: IHookFunctions; readonly plan: Registration; readonly record: RegistrationRecord }>;
	lastJoinAt: number;
}
const startJoins = new Map<string, StartJoin>();

/** Removals that failed and are tried again in the background, by bot and listener path (bounded by the triggers served). */
const removalsDue = new Set<string>();

function removalKey(token: string, listener: Listener): string {
	return fingerprint(botKeyOf(token, 'removal'), listener.run, listener.path);
}

/** The write in progress per bot, in this process (bounded by the bots this n8n serves). */
const writers = new Map<string, Promise<unknown>>();

/**
 * Runs `work` when no other registration of the bot in this process is under way. The service has
 * no compare-and-set: two triggers that read the listeners at once and each wrote its own list would
 * lose one of them. n8n registers every trigger of this n8n (a single process, or the leader main in
 * queue mode) in one process, so one writer per bot there makes the read, write and read-back one
 * step; the read-back after `settle` stays for writers elsewhere (another main).
 */
async function oneWriterPerBot<T>(token: string, work: () => Promise<T>): Promise<T> {
	const key = botKeyOf(token, 'webhook-writer');
	const mine = (writers.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
	const settled = mine.catch(() => undefined);
	writers.set(key, settled);
	try {
		return await mine;
	} finally {
		if (writers.get(key) === settled) writers.delete(key);
	}
}

/** The URL n8n registers for this node: the test URL during a test in the editor. */
function registeredUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not provide a webhook URL for this trigger');
	return url;
}

function readRecord(ctx: IHookFunctions | IWebhookFunctions): RegistrationRecord | undefined {
	const record = ctx.getWorkflowStaticData('node')[REGISTRATION_KEY] as RegistrationRecord | undefined;
	return record && typeof record.url === 'string' ? record : undefined;
}

/** The digests of the secrets the service may push to the production webhook with, as create() kept them. */
export function registeredSecretDigests(ctx: IWebhookFunctions): string[] {
	const record = readRecord(ctx);
	if (record?.run !== 'production') return [];
	return [record.secretDigest, record.sharedSecretDigest].filter((digest): digest is string => typeof digest === 'string');
}

function forgetRecord(ctx: IHookFunctions): void {
	delete ctx.getWorkflowStaticData('node')[REGISTRATION_KEY];
}

function registrationTag(secret: string, allowedUpdates: readonly string[], maxConnections: number | undefined): string {
	return fingerprint(secret, allowedUpdates.join(','), String(maxConnections ?? ''));
}

interface Registration {
	url: string;
	token: string;
	run: Run;
	options: WebhookOptions;
	/** What registering alone sends. */
	body: IDataObject;
	tag: string;
	secret: string;
	/** This trigger among the bot's listeners, and the origin of this n8n's webhook URLs. */
	self: Listener;
	origin: string;
}

/** Everything create() would send, with every parameter (and n8n's webhook URL) checked first. */
async function planRegistration(ctx: IHookFunctions): Promise<Registration> {
	readDeliverySettings(ctx);
	const options = readWebhookOptions(ctx);
	const token = await requireToken(ctx);
	const url = registeredUrl(ctx);
	const problem = webhookUrlProblem(url, await serviceBaseUrl(ctx));
	// n8n's own webhook URL is wrong for the service: it stays so until n8n's settings change.
	if (problem) throw publicationRefusal(ctx, problem);
	const run = runOf(ctx);
	const secret = deriveSecret(token, identityOf(ctx), run);
	const body: IDataObject = { url, secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] };
	if (options.maxConnections !== undefined) body.max_connections = options.maxConnections;
	if (options.dropPendingUpdates) body.drop_pending_updates = true;
	const self = listenerOf(url, run);
	return { url, token, run, options, body, secret, tag: registrationTag(secret, ALLOWED_UPDATES, options.maxConnections), self, origin: new URL(url).origin };
}

function among(listeners: readonly Listener[] | undefined, self: Listener): boolean {
	return listeners?.some((listener) => listener.path === self.path) ?? false;
}

/**
 * Registers the bot's webhook for several listeners: the first receives, with the secret every
 * listener can derive for it. Max Connections stays what the service has (the receiver's choice);
 * pending updates are never dropped, as they belong to every listener.
 */
async function registerListeners(
	ctx: IHookFunctions,
	token: string,
	origin: string,
	listeners: readonly Listener[],
	maxConnections: number | undefined,
): Promise<void> {
	const receiver = listeners[0];
	const body: IDataObject = {
		url: registeredUrlOf(origin, listeners),
		secret_token: sharedSecret(token, webhookIdOf(receiver) ?? '', receiver.run),
		allowed_updates: [...ALLOWED_UPDATES],
	};
	if (maxConnections !== undefined) body.max_connections = maxConnections;
	await apiRequest(ctx, 'setWebhook', body, { idempotent: true, retry: WRITE_TIMING.retry });
}

/**
 * The listeners without the published ones this n8n no longer serves (a workflow unpublished while
 * the service could not be told, e.g. it answered 5xx for longer than the retries): n8n answers
 * their URL with 404, and a receiver n8n answers 404 leaves every listener of the bot deaf. Not at
 * n8n's start ('init'), when the workflows of the list are activated one after another and a later
 * one is not served yet, unless the start has settled (`startSettled`, `checkAfterStart`); tests are
 * never probed (their URL exists only while the editor listens).
 */
async function withoutUnserved(
	ctx: IHookFunctions,
	token: string,
	origin: string,
	listeners: readonly Listener[],
	self: Listener,
	{ quiet = false, startSettled = false }: { quiet?: boolean; startSettled?: boolean } = {},
): Promise<Listener[]> {
	if (ctx.getActivationMode() === 'init' && !startSettled) return [...listeners];
	const served = await Promise.all(
		listeners.map(async (listener) => listener.path === self.path || listener.run === 'test' || (await isServed(ctx, origin, token, listener))),
	);
	const gone = listeners.filter((_, index) => !served[index]);
	if (gone.length > 0 && !quiet) {
		ctx.logger.warn(
			`Service Bot Trigger "${ctx.getNode().name}": ${gone.length} workflow(s) listed on the bot's webhook are no longer published in this n8n (${gone.map((listener) => listener.path).join(', ')}): they are taken off the list`,
		);
	}
	return listeners.filter((_, index) => served[index]);
}

/**
 * The service has no compare-and-set: a trigger that read the listeners just before this one wrote
 * them can write its own list a moment later. Reading back after twice the time the write took (a
 * round trip to the service, plus a margin) sees such a write.
 */
async function settle(startedAt: number): Promise<void> {
	await pause(2 * (Date.now() - startedAt) + 50);
}

/**
 * True when this trigger is among the bot's listeners: for a trigger alone, only when the webhook was
 * registered by create() with the secret and options this node would use now. The service never
 * reveals a webhook's secret, so "its secret is known" is proven by the record create() keeps in
 * static data; without that record (or after a token or option change) n8n calls create(), which
 * sets the same URL again — harmless, and it makes sure the service has the current secret.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	// Publishing's first request: a refused token or a wrong base URL shows here, named as the credential's.
	const { url: current = '' } = await webhookInfo(this).catch((error: unknown) => {
		throw asCredentialError(this, error);
	});
	const listeners = listenersOf(current, plan.origin, plan.self);
	if (!listeners || !among(listeners, plan.self)) return false;
	const record = readRecord(this);
	const exists = listeners.length > 1 || (record !== undefined && sameUrl(record.url, plan.url) && record.tag === plan.tag);
	if (!exists) return false;
	// A listed workflow this n8n no longer serves: create() writes the list without it. At n8n's start
	// the others may not be served yet: the list is checked once the start has settled.
	if (listeners.length > 1 && this.getActivationMode() === 'init') checkAfterStart(this, plan);
	if (listeners.length > 1 && (await withoutUnserved(this, plan.token, plan.origin, listeners, plan.self, { quiet: true })).length < listeners.length) return false;
	// A published workflow whose webhook is in place holds the bot again.
	recordHolder(plan.token, holderOf(this, 'webhook', plan.run));
	return true;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	const record: RegistrationRecord = { url: plan.url, tag: plan.tag, run: plan.run };
	record.sharedSecretDigest = secretDigest(sharedSecret(plan.token, webhookIdOf(plan.self) ?? '', plan.run));
	const pollers = holdersOf(plan.token, 'polling');
	if (pollers.length > 0) {
		// Holds until a person unpublishes the pollers: refused at once (publicationRefusal.ts).
		throw publicationRefusal(
			this,
			`The published ${describeWorkflows(pollers)} ${pollers.length > 1 ? 'poll' : 'polls'} this bot (Service Bot Polling Trigger), and a bot that is polled cannot have a webhook. Unpublish ${pollers.length > 1 ? 'them' : 'it'} first, or use the same trigger in every workflow of this bot (both kinds serve several workflows, each kind alone)`,
		);
	}

	if (this.getActivationMode() === 'init') {
		// Kept before the write (n8n saves static data when create() returns): when it registers alone,
		// the service keeps this secret, and pushes with it stay accepted after a token change.
		record.secretDigest = secretDigest(plan.secret);
		joinAtStart(this, plan, record);
	} else {
		await oneWriterPerBot(plan.token, async () => await join(this, plan, record));
	}
	this.getWorkflowStaticData('node')[REGISTRATION_KEY] = record as unknown as IDataObject;
	const self = holderOf(this, 'webhook', plan.run);
	recordHolder(plan.token, self);
	warnOfSharedClicks(this, plan.token, self);
	return true;
}

/**
 * At n8n's start the service may hold updates that came while n8n was down, and delivers them to the
 * webhook as soon as one is set; n8n registers its workflows one after another, so the first trigger
 * of a bot to register alone would get them all and the others none (measured in n8n 2.41.1: 5 of 6
 * starts lost updates for some workflows). So at the start the triggers of a bot are written in one
 * list once no other joined for `startQuietMs`: create() returns at once (n8n goes on with the next
 * workflow), and the write happens in the background; a failure is logged with what to do.
 */
function joinAtStart(ctx: IHookFunctions, plan: Registration, record: RegistrationRecord): void {
	const key = botKeyOf(plan.token, 'start-join');
	const pending = startJoins.get(key);
	if (pending) {
		pending.joiners.push({ ctx, plan, record });
		pending.lastJoinAt = Date.now();
		return;
	}
	const started: StartJoin = { joiners: [{ ctx, plan, record }], lastJoinAt: Date.now() };
	startJoins.set(key, started);
	ctx.logger.info(
		`Service Bot Trigger "${ctx.getNode().name}": n8n is starting; the triggers of this bot are registered together once no other joined for ${WRITE_TIMING.startQuietMs / 1000} s, so updates that waited reach every workflow`,
	);
	void (async () => {
		await untilStartQuiet(() => started.lastJoinAt);
		startJoins.delete(key);
		// One write for all: the first joiner writes the list with every trigger that joined.
		const [first, ...rest] = started.joiners;
		try {
			const alongside = rest.map((joiner) => joiner.plan.self);
			await oneWriterPerBot(first.plan.token, async () => await join(first.ctx, first.plan, first.record, alongside));
			first.ctx.logger.info(`Service Bot Trigger "${first.ctx.getNode().name}": registered ${started.joiners.length} trigger(s) of this n8n on the bot's webhook at n8n's start`);
		} catch (error) {
			for (const joiner of started.joiners) {
				joiner.ctx.logger.error(
					`Service Bot Trigger "${joiner.ctx.getNode().name}": could not register this trigger on the bot's webhook at n8n's start: ${messageOf(error)}. It receives no updates until its workflow is published again (unpublish and publish it)`,
					{ workflowId: joiner.ctx.getWorkflow().id, node: joiner.ctx.getNode().name },
				);
			}
		}
	})();
}

/** Resolves once `lastAt()` (the last trigger of a bot n8n activated) lies `startQuietMs` back, or `startLongestMs` after the call. */
async function untilStartQuiet(lastAt: () => number): Promise<void> {
	const firstAt = Date.now();
	for (;;) {
		const now = Date.now();
		const quietFor = now - lastAt();
		if (quietFor >= WRITE_TIMING.startQuietMs || now - firstAt >= WRITE_TIMING.startLongestMs) return;
		await pause(Math.min(WRITE_TIMING.startQuietMs - quietFor, 250));
	}
}

/** Bots whose listener list is checked once n8n's start has settled (bounded by the bots this n8n serves). */
const startChecks = new Map<string, { lastSeenAt: number }>();

/**
 * A list left stale while n8n was down (a removal that failed and whose background retries had not
 * landed) names a workflow n8n no longer serves; its pushes get 404 and, when it receives, the bot is
 * deaf. At n8n's start the listed workflows cannot be probed (they are activated one after another),
 * so once no trigger of the bot was activated for `startQuietMs`, the list is probed and written
 * again without the workflows n8n does not serve: a restart repairs it. A listed workflow n8n
 * activates only later (a start longer than `startLongestMs`) finds itself missing then and joins
 * again (its checkExists answers false). n8n 2.41 calls no method of a webhook trigger at its start,
 * so there only publishing repairs such a list (CONTRIBUTING, "Several workflows on one bot").
 */
function checkAfterStart(ctx: IHookFunctions, plan: Registration): void {
	const key = botKeyOf(plan.token, 'start-check');
	const pending = startChecks.get(key);
	if (pending) {
		pending.lastSeenAt = Date.now();
		return;
	}
	const started = { lastSeenAt: Date.now() };
	startChecks.set(key, started);
	void (async () => {
		await untilStartQuiet(() => started.lastSeenAt);
		startChecks.delete(key);
		try {
			await oneWriterPerBot(plan.token, async () => {
				const info = await webhookInfo(ctx);
				const listeners = listenersOf(info.url ?? '', plan.origin, plan.self);
				if (!listeners || listeners.length < 2) return;
				const served = await withoutUnserved(ctx, plan.token, plan.origin, listeners, plan.self, { startSettled: true });
				if (served.length === listeners.length || served.length === 0) return;
				await registerListeners(ctx, plan.token, plan.origin, inServingOrder(served), info.max_connections);
			});
		} catch (error) {
			ctx.logger.error(
				`Service Bot Trigger "${ctx.getNode().name}": could not check the bot's webhook after n8n's start: ${messageOf(error)}. If a workflow of this bot was unpublished while n8n could not tell the service, publish any workflow of this bot to repair the webhook`,
				{ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name },
			);
		}
	})();
}

/**
 * Registers this trigger among the bot's listeners (or alone), read back until it is listed; with
 * `alongside`, the triggers of this n8n that join at the same time (at its start) join in the same write.
 */
async function join(ctx: IHookFunctions, plan: Registration, record: RegistrationRecord, alongside: readonly Listener[] = []): Promise<void> {
	const node = ctx.getNode();
	let info = await webhookInfo(ctx);
	const current = info.url ?? '';
	let listeners = listenersOf(current, plan.origin, plan.self);
	if (listeners === undefined) {
		const shown = displayUrl(current, plan.token);
		if (!plan.options.takeOver) {
			throw publicationRefusal(
				ctx,
				`The bot's webhook belongs to someone else: it delivers to ${shown}. Workflows of this n8n share a bot, another n8n or system cannot: deactivate the workflow or system that owns it, or turn on "Take Over Existing Webhook" in this trigger (the other receiver then stops getting updates)`,
			);
		}
		if (plan.run === 'test') record.tookOverFrom = shown;
		ctx.logger.warn(
			`Service Bot Trigger "${node.name}": taking over the bot's webhook from ${shown} ("Take Over Existing Webhook" is on). It stops receiving updates and does not get the webhook back: register it again there when you are done (for an n8n workflow: deactivate and activate it)`,
		);
		listeners = [];
	}
	listeners = await withoutUnserved(ctx, plan.token, plan.origin, listeners, plan.self);
	listeners = [...listeners, ...alongside.filter((listener) => listener.path !== plan.self.path && !among(listeners, listener))];

	for (let write = 1; ; write++) {
		const others = listeners.filter((listener) => listener.path !== plan.self.path);
		if (others.length >= MAX_LISTENERS) {
			throw publicationRefusal(
				ctx,
				`${others.length} workflows already listen to this bot, the most one bot can serve here (every update is sent once to each). Unpublish one, or stop its test, then publish this workflow again`,
			);
		}
		const startedAt = Date.now();
		if (others.length === 0) {
			await apiRequest(ctx, 'setWebhook', plan.body, { idempotent: true, retry: WRITE_TIMING.retry });
			record.secretDigest = secretDigest(plan.secret);
		} else {
			delete record.secretDigest;
			await registerListeners(ctx, plan.token, plan.origin, inServingOrder([...others, plan.self]), info.max_connections ?? plan.options.maxConnections);
			ctx.logger.info(`Service Bot Trigger "${node.name}": listening to the bot with ${others.length} other trigger(s) of this n8n`);
		}
		await settle(startedAt);
		info = await webhookInfo(ctx);
		const now = listenersOf(info.url ?? '', plan.origin, plan.self);
		if (among(now, plan.self)) return;
		if (now === undefined || write === MAX_WRITES) {
			throw new NodeOperationError(
				node,
				`Another registration replaced the bot's webhook while this trigger registered (it now delivers to ${displayUrl(info.url ?? '', plan.token)}): publish this workflow again`,
			);
		}
		listeners = now;
	}
}

/**
 * Leaves the bot's listeners: the others are registered again (the next one receives when this one
 * did), or the webhook is removed when this one was the last. A webhook that is already gone, or that
 * belongs to someone else now, is left alone and is not an error. Failures are logged with what to do
 * and reported as `false` rather than thrown: a throw here would stop n8n from deregistering the
 * workflow's other webhooks and from finishing the deactivation. A removal that failed is tried again
 * in the background until it lands (`leaveLater`): n8n answers this trigger's URL with 404 from now on,
 * and while the bot's webhook still lists it first, no workflow of the bot receives anything.
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	const node = this.getNode();
	const record = readRecord(this);
	let url = '';
	try {
		url = registeredUrl(this);
		const token = await requireToken(this);
		// delete() runs in mode 'internal' for both; the URL n8n gives is the registration's own.
		const run = record?.run ?? 'production';
		const holder = holderOf(this, 'webhook', run);
		forgetHolder(token, holder);
		const self = listenerOf(url, run);
		const due = removalKey(token, self);
		// In the background, checked again once it is this removal's turn: another delete() of the same
		// trigger may have landed, or a create() published it again, while it waited.
		const leave = async (background = false): Promise<boolean> =>
			await oneWriterPerBot(token, async () => {
				if (background && (!removalsDue.has(due) || isHeld(token, holder))) return false;
				await leaveListeners(this, token, self, new URL(url).origin, record);
				// Within this writer's turn, so a background attempt queued behind it sees it done.
				removalsDue.delete(due);
				return true;
			});
		try {
			await leave();
		} catch (error) {
			if (credentialRefused(error)) {
				// No retry can succeed with a token the service refuses or a base URL where it is not; and
				// without a record this trigger never registered (a refused publish): nothing to report.
				removalsDue.delete(due);
				if (record) {
					this.logger.warn(
						`Service Bot Trigger "${node.name}": could not remove this trigger from the bot's webhook (${url}): the service refuses the credential's access token or base URL (${messageOf(error)}). Not tried again; publishing a workflow of this bot with a working credential repairs the bot's webhook`,
						{ workflowId: this.getWorkflow().id, node: node.name },
					);
				}
				return false;
			}
			this.logger.error(
				`Service Bot Trigger "${node.name}": could not remove this trigger from the bot's webhook (${url}): ${messageOf(error)}. While the bot's webhook lists it, the bot's other workflows may receive nothing: it is tried again in the background; publishing any workflow of this bot also repairs it`,
				{ workflowId: this.getWorkflow().id, node: node.name },
			);
			if (!removalsDue.has(due)) {
				removalsDue.add(due);
				void leaveLater(this, token, holder, due, leave);
			}
			return false;
		}
		forgetRecord(this);
		return true;
	} catch (error) {
		const message = messageOf(error);
		this.logger.error(`Service Bot Trigger "${node.name}": could not remove this trigger from the bot's webhook${url ? ` (${url})` : ''}: ${message}`, {
			workflowId: this.getWorkflow().id,
			node: node.name,
		});
		return false;
	}
}

/**
 * A failure no later attempt with the same credential can get past: the service refuses the token (401),
 * or nothing answers the method at the base URL (404).
 */
function credentialRefused(error: unknown): boolean {
	const failure = failureOf(error);
	return failure?.kind === 'refused' && (failure.status === 401 || failure.status === 404);
}

/** Takes `self` off the bot's listeners, read back until it is not listed. */
async function leaveListeners(ctx: IHookFunctions, token: string, self: Listener, origin: string, record: RegistrationRecord | undefined): Promise<void> {
	const node = ctx.getNode();
	for (let write = 1; write <= MAX_WRITES; write++) {
		const info = await webhookInfo(ctx);
		const current = info.url ?? '';
		const listeners = listenersOf(current, origin, self);
		if (listeners === undefined) {
			ctx.logger.warn(
				`Service Bot Trigger "${node.name}": the bot's webhook now points to another URL (${displayUrl(current, token)}), so it was left untouched`,
			);
			return;
		}
		if (!among(listeners, self)) return;
		const others = await withoutUnserved(
			ctx,
			token,
			origin,
			listeners.filter((listener) => listener.path !== self.path),
			self,
		);
		const startedAt = Date.now();
		if (others.length === 0) {
			await apiRequest(ctx, 'deleteWebhook', {}, { idempotent: true, retry: WRITE_TIMING.retry });
			if (record?.tookOverFrom) {
				ctx.logger.warn(
					`Service Bot Trigger "${node.name}": the test has ended and the bot has no webhook now. Before the test it delivered to ${record.tookOverFrom}: register it again there (for an n8n workflow: deactivate and activate it)`,
				);
			}
		} else {
			await registerListeners(ctx, token, origin, inServingOrder(others), info.max_connections);
		}
		await settle(startedAt);
	}
}

/** The wait before the `attempt`th background attempt (2 = the first after the removal failed). */
function removalWaitBefore(attempt: number): number {
	return WRITE_TIMING.removalRetryDelaysMs[attempt - 2] ?? WRITE_TIMING.removalRetryEveryMs;
}

/**
 * Tries a failed removal again, after growing waits and then every `removalRetryEveryMs`, until it
 * lands (here, or by another delete() of the same trigger), the trigger holds the bot again (published
 * again: its create() wrote the list), or `removalRetryForMs` passed; each failure is logged. It does
 * not give up after a few minutes: while the bot's webhook still lists this trigger first, every other
 * workflow of the bot receives nothing, and in n8n 2.41 nothing else of this package runs for that bot
 * (no push reaches a trigger, and n8n calls no method of a stored webhook at its start), so this is what
 * heals the bot without a person once the service accepts writes again.
 */
async function leaveLater(ctx: IHookFunctions, token: string, holder: Holder, due: string, leave: (background: boolean) => Promise<boolean>): Promise<void> {
	const name = ctx.getNode().name;
	const failedAt = Date.now();
	for (let attempt = 2; ; attempt++) {
		const wait = removalWaitBefore(attempt);
		const last = Date.now() + wait - failedAt > WRITE_TIMING.removalRetryForMs;
		if (last) {
			removalsDue.delete(due);
			ctx.logger.error(
				`Service Bot Trigger "${name}": stopped trying to remove this trigger from the bot's webhook after ${attempt - 1} attempts: publish any workflow of this bot to repair its webhook`,
			);
			return;
		}
		await pause(wait);
		if (!removalsDue.has(due) || isHeld(token, holder)) {
			removalsDue.delete(due);
			return;
		}
		try {
			if (!(await leave(true))) return;
			ctx.logger.info(`Service Bot Trigger "${name}": removed from the bot's webhook at the ${attempt}. attempt`);
			return;
		} catch (error) {
			if (credentialRefused(error)) {
				removalsDue.delete(due);
				ctx.logger.warn(
					`Service Bot Trigger "${name}": stopped trying to remove this trigger from the bot's webhook: the service refuses the credential's access token or base URL (${messageOf(error)}). Publishing a workflow of this bot with a working credential repairs the bot's webhook`,
				);
				return;
			}
			ctx.logger.error(
				`Service Bot Trigger "${name}": could not remove this trigger from the bot's webhook, also at the ${attempt}. attempt: ${messageOf(error)}. While the bot's webhook lists it, the bot's other workflows may receive nothing. Trying again in ${describeWait(removalWaitBefore(attempt + 1))} for as long as n8n runs; publishing any workflow of this bot repairs it at once (after a restart of n8n, only that does)`,
			);
		}
	}
}

function describeWait(ms: number): string {
	return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}
