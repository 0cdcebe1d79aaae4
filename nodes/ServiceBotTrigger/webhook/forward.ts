/**
 * The receiver's part of sharing a bot (listeners.ts): a push the service sent is forwarded to every
 * other listener of the bot on this n8n, at its own webhook URL, with a secret only that listener
 * accepts. Also the probe that tells whether a listener is still served by this n8n.
 *
 * A slow or failing listener costs only itself. The receiver waits for the copies at most
 * `FORWARD_TIMING.waitMs` before it answers the service and starts its own run (the service waits about
 * 10 s for an answer and then sends the update again, to everyone); a copy not taken by then goes on
 * in the background, and a copy that failed is sent again. A listener that is not there (404: n8n is
 * activating its workflow after a restart, or it was unpublished) is given half a minute. A listener
 * that is there but busy (5xx such as n8n's "503 Database is not ready!" under load, 429, no answer)
 * is given up to 15 minutes: it will take the copy once it recovers, and giving up earlier loses the
 * update for that workflow although the service was told it arrived. Each listener has its own
 * duplicate window, so a copy sent twice runs once.
 */
import type { IWebhookFunctions, RequestHelperFunctions } from 'n8n-workflow';

import { pause } from '../../shared/transport/client';
import { messageOf } from '../../shared/transport/failure';
import { seenBefore } from '../../shared/trigger/duplicates';
import type { Run } from '../../shared/trigger/identity';
import { botKeyOf, fingerprint, keyed } from '../../shared/trigger/identity';
import type { Listener } from '../../shared/trigger/listeners';
import { LISTENERS_PARAMETER, PROBE_FIELD, isListener, listenersIn, webhookIdOf } from '../../shared/trigger/listeners';
import { updateIdOf } from '../../shared/trigger/update';
import { SECRET_HEADER, forwardSecret } from './secret';

/** How forwarding waits; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const FORWARD_TIMING = {
	/** How long the receiver waits for its copies before it answers the service and runs its own. */
	waitMs: 2_000,
	/**
	 * A listener that does not answer within this time is sent the copy again. Long: a copy in the
	 * background holds nothing up, and a listener that is slow but alive takes each copy once.
	 */
	timeoutMs: 30_000,
	/** Waits before each further attempt of a copy that failed: about half a minute in all. */
	retryDelaysMs: [1_000, 2_000, 4_000, 8_000, 16_000] as readonly number[],
	/** A listener still busy after those attempts is tried again at this interval… */
	busyRetryEveryMs: 30_000,
	/** …until this long after the first attempt (a listener that is not there is not waited for so long). */
	busyRetryForMs: 15 * 60_000,
};
const WARN_INTERVAL_MS = 60_000;
/** When each listener last caused a warning (bounded). */
const lastWarned = new Map<string, number>();

/** The HTTP client of a hook or webhook context: forwarding and probing need nothing else. */
interface ListenerClient {
	readonly helpers: Pick<RequestHelperFunctions, 'httpRequest'>;
}

function warnOnce(ctx: IWebhookFunctions, listener: Listener, message: string): void {
	const key = fingerprint('forward', listener.path);
	const now = Date.now();
	const last = lastWarned.get(key);
	if (last !== undefined && now - last < WARN_INTERVAL_MS) return;
	if (lastWarned.size >= 1000) lastWarned.clear();
	lastWarned.set(key, now);
	ctx.logger.warn(message);
}

/** One POST to a listener with its forward secret: the HTTP status, or the failure as thrown. */
async function post(ctx: ListenerClient, origin: string, token: string, listener: Listener, body: object, timeout: number): Promise<number> {
	const response = await ctx.helpers.httpRequest({
		method: 'POST',
		url: `${origin}${listener.path}`,
		headers: { [SECRET_HEADER]: forwardSecret(token, webhookIdOf(listener) ?? '', listener.run) },
		body,
		json: true,
		timeout,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	});
	return typeof response === 'object' && response !== null ? Number((response as { statusCode?: unknown }).statusCode) : 200;
}

/**
 * What one attempt of a copy came to: taken, a listener that is not there (404), or one that is there
 * but could not take it now (busy).
 */
type Attempt = { readonly outcome: 'taken' } | { readonly outcome: 'absent' | 'busy'; readonly why: string };

async function attempt(ctx: IWebhookFunctions, origin: string, token: string, listener: Listener, body: object): Promise<Attempt> {
	try {
		const status = await post(ctx, origin, token, listener, body, FORWARD_TIMING.timeoutMs);
		// A test's URL is gone as soon as it got its event; n8n removes it from the list right after.
		if (status < 300 || (listener.run === 'test' && status === 404)) return { outcome: 'taken' };
		if (status === 404) return { outcome: 'absent', why: 'answered 404' };
		// A refusal other than 404 will not change by asking again (it is not a listener of this bot).
		if (status >= 400 && status < 500 && status !== 429) return { outcome: 'taken' };
		return { outcome: 'busy', why: `answered ${status}` };
	} catch (error) {
		return { outcome: 'busy', why: `could not be reached: ${messageOf(error)}` };
	}
}

/** Sends one listener its copy, again after a failure, until it takes it or its time runs out. */
async function forwardTo(ctx: IWebhookFunctions, origin: string, token: string, listener: Listener, body: object): Promise<void> {
	const firstAt = Date.now();
	let result = await attempt(ctx, origin, token, listener, body);
	for (const delay of FORWARD_TIMING.retryDelaysMs) {
		if (result.outcome === 'taken') return;
		await pause(delay);
		result = await attempt(ctx, origin, token, listener, body);
	}
	while (result.outcome === 'busy' && Date.now() - firstAt + FORWARD_TIMING.busyRetryEveryMs <= FORWARD_TIMING.busyRetryForMs) {
		await pause(FORWARD_TIMING.busyRetryEveryMs);
		result = await attempt(ctx, origin, token, listener, body);
	}
	if (result.outcome === 'taken') return;
	const node = ctx.getNode().name;
	const seconds = Math.round((Date.now() - firstAt) / 1000);
	warnOnce(
		ctx,
		listener,
		result.outcome === 'absent'
			? `Service Bot Trigger "${node}": the workflow listening to this bot at ${listener.path} ${result.why}, also when sent the update again over ${seconds} s; it misses updates until it answers again. If that workflow was unpublished or deleted, publish any workflow of this bot again: the bot's listeners are then checked (logged at most once a minute)`
			: `Service Bot Trigger "${node}": the workflow listening to this bot at ${listener.path} ${result.why}, also when sent the update again for ${seconds} s, so it missed this update. Its n8n was busy or down that long: check that n8n's log and its database (logged at most once a minute)`,
	);
}

/**
 * Forwards the push to the bot's other listeners named in the request's query, all at once, and
 * resolves when each has taken its copy or `waitMs` has passed (the rest goes on; a listener that
 * confirms after its run answers when that run ended, so the receiver then waits up to its bound). A push
 * the receiver already forwarded (the service sends an update again when its answer was late or
 * lost) is not forwarded again. Nothing is forwarded for a bot with one listener.
 */
export async function forwardToListeners(ctx: IWebhookFunctions, token: string, self: { webhookId: string; run: Run }, waitMs = FORWARD_TIMING.waitMs): Promise<void> {
	const query = ctx.getQueryData() as Record<string, unknown>;
	const others = listenersIn(query[LISTENERS_PARAMETER]).filter((listener) => !isListener(listener, self.webhookId, self.run));
	if (others.length === 0) return;
	const ownUrl = ctx.getNodeWebhookUrl('default');
	if (!ownUrl) return;
	const body = ctx.getBodyData();
	const updateId = updateIdOf(body);
	if (updateId !== undefined && seenBefore(keyed(token, 'forwarded:v1', [self.webhookId.toLowerCase(), self.run]), updateId)) return;
	// Only to this n8n: the origin is n8n's own, whatever the registered URL says.
	const origin = new URL(ownUrl).origin;
	const sentAt = Date.now();
	const copies = others.map((listener) => {
		const copy = { listener, key: slowKey(token, listener), done: false, taken: Promise.resolve() };
		copy.taken = forwardTo(ctx, origin, token, listener, body).then(() => {
			copy.done = true;
			if (Date.now() - sentAt < waitMs) slowListeners.delete(copy.key);
		});
		return copy;
	});
	// Waited for: the listeners that took their last copy in time. One that did not is not waited for
	// again until it does (its copies go on in the background), so it costs the others one wait at most.
	const awaited = copies.filter((copy) => !slowListeners.has(copy.key));
	// The wait ends with the copies: its timer must not outlive them (one per push).
	const taken = new AbortController();
	await Promise.race([Promise.all(awaited.map(async (copy) => await copy.taken)).then(() => taken.abort()), pause(waitMs, taken.signal)]);
	taken.abort();
	for (const copy of awaited) if (!copy.done) markSlow(copy.key);
}

/** Listeners whose last copy took longer than the receiver waits (bounded: one entry per listener served). */
const slowListeners = new Set<string>();

function slowKey(token: string, listener: Listener): string {
	return fingerprint(botKeyOf(token, 'slow-listener'), listener.run, listener.path);
}

function markSlow(key: string): void {
	if (slowListeners.size >= 1000) slowListeners.clear();
	slowListeners.add(key);
}

/** Whether a push is the probe of `isServed` (shared/trigger/listeners.ts: it runs nothing; its secret was checked first). */
export function isProbe(body: unknown): boolean {
	return typeof body === 'object' && body !== null && (body as Record<string, unknown>)[PROBE_FIELD] === true;
}
