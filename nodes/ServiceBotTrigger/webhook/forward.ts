/**
 * The receiver's part of sharing a bot (listeners.ts): a push the service sent is forwarded to every
 * other listener of the bot on this n8n, at its own webhook URL, with a secret only that listener
 * accepts. Also the probe that tells whether a listener is still served by this n8n.
 *
 * A listener answers its copy once the copy's execution has run (answer.ts), so the receiver waits
 * for the copies before it runs its own and lets n8n answer the service: the service is told an
 * update arrived only once every workflow of the bot has it. A copy that failed (a 5xx, a refused
 * connection: that n8n is shutting down, or the workflow failed) makes the receiver refuse the push,
 * and the service sends it again; each listener has its own duplicate window, so the listeners that
 * took it answer the new copy at once and run it once.
 *
 * A slow or failing listener costs only itself. The receiver waits for the copies at most
 * `FORWARD_TIMING.waitMs` (below the bound of answer.ts, which is below the service's wait); a copy
 * not answered by then goes on in the background and its listener is not waited for again until it
 * answers a copy in time (its updates are then confirmed before they ran: a kill can lose them). A
 * listener that answers 404 (n8n is activating its workflow after a restart, for a few seconds) is
 * sent the copy again a few times over half a minute, in the background.
 */
import type { IWebhookFunctions, RequestHelperFunctions } from 'n8n-workflow';

import { pause } from '../../shared/transport/client';
import { messageOf } from '../../shared/transport/failure';
import type { Run } from '../../shared/trigger/identity';
import { botKeyOf, fingerprint } from '../../shared/trigger/identity';
import type { Listener } from '../../shared/trigger/listeners';
import { LISTENERS_PARAMETER, PROBE_FIELD, isListener, listenersIn, webhookIdOf } from '../../shared/trigger/listeners';
import { SECRET_HEADER, forwardSecret } from './secret';

/** How forwarding waits; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const FORWARD_TIMING = {
	/**
	 * How long the receiver waits for its copies (each answered when its execution has run) before it
	 * runs its own. Below `ANSWER_TIMING.boundMs`, so a copy that failed can still refuse the push.
	 */
	waitMs: 5_000,
	/**
	 * A listener that does not answer within this time is sent the copy again. Long: a copy in the
	 * background holds nothing up, and a listener that is slow but alive takes each copy once.
	 */
	timeoutMs: 30_000,
	/** Waits before each further attempt of a copy that failed: about half a minute in all. */
	retryDelaysMs: [1_000, 2_000, 4_000, 8_000, 16_000] as readonly number[],
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
 * What one attempt of a copy came to: taken (or not this listener's: asking again changes nothing),
 * failed (the push is refused so the service sends it again), or absent (404: a workflow n8n is
 * still activating, or one unpublished; asked again in the background, the push is not refused).
 */
type Attempt = { readonly done: true } | { readonly done: false; readonly absent: boolean; readonly why: string };

async function attempt(ctx: IWebhookFunctions, origin: string, token: string, listener: Listener, body: object): Promise<Attempt> {
	try {
		const status = await post(ctx, origin, token, listener, body, FORWARD_TIMING.timeoutMs);
		// A test's URL is gone as soon as it got its event; n8n removes it from the list right after.
		if (status < 300 || (listener.run === 'test' && status === 404)) return { done: true };
		// A refusal other than 404 will not change by asking again (it is not a listener of this bot).
		if (status >= 400 && status < 500 && status !== 404 && status !== 429) return { done: true };
		return { done: false, absent: status === 404, why: `answered ${status}` };
	} catch (error) {
		return { done: false, absent: false, why: `could not be reached: ${messageOf(error)}` };
	}
}

/**
 * Sends one listener its copy, again after a failure, until it takes it or the attempts run out.
 * `first` is told how the first attempt went.
 */
async function forwardTo(ctx: IWebhookFunctions, origin: string, token: string, listener: Listener, body: object, first: (result: Attempt) => void): Promise<void> {
	let result = await attempt(ctx, origin, token, listener, body);
	first(result);
	for (const delay of FORWARD_TIMING.retryDelaysMs) {
		if (result.done) return;
		await pause(delay);
		result = await attempt(ctx, origin, token, listener, body);
	}
	if (result.done) return;
	warnOnce(
		ctx,
		listener,
		`Service Bot Trigger "${ctx.getNode().name}": the workflow listening to this bot at ${listener.path} ${result.why}, also when sent the update again over ${FORWARD_TIMING.retryDelaysMs.reduce((sum, delay) => sum + delay, 0) / 1000} s; it misses updates until it answers again. If that workflow was unpublished or deleted, publish any workflow of this bot again: the bot's listeners are then checked (logged at most once a minute)`,
	);
}

/**
 * Forwards the push to the bot's other listeners named in the request's query, all at once, and
 * resolves when each awaited copy was answered or `FORWARD_TIMING.waitMs` has passed (the rest goes
 * on): 'failed' when a copy failed (the push is to be refused), else 'taken'. A push the service sent
 * again is forwarded again: the listeners that took it answer at once from their duplicate windows.
 * Nothing is forwarded for a bot with one listener.
 */
export async function forwardToListeners(ctx: IWebhookFunctions, token: string, self: { webhookId: string; run: Run }): Promise<'taken' | 'failed'> {
	const query = ctx.getQueryData() as Record<string, unknown>;
	const others = listenersIn(query[LISTENERS_PARAMETER]).filter((listener) => !isListener(listener, self.webhookId, self.run));
	if (others.length === 0) return 'taken';
	const ownUrl = ctx.getNodeWebhookUrl('default');
	if (!ownUrl) return 'taken';
	const body = ctx.getBodyData();
	// Only to this n8n: the origin is n8n's own, whatever the registered URL says.
	const origin = new URL(ownUrl).origin;
	const sentAt = Date.now();
	let failed = false;
	const copies = others.map((listener) => {
		const copy = { listener, key: slowKey(token, listener), answered: false, answer: Promise.resolve() };
		copy.answer = new Promise<void>((resolve) => {
			void forwardTo(ctx, origin, token, listener, body, (result) => {
				copy.answered = true;
				if (Date.now() - sentAt < FORWARD_TIMING.waitMs) slowListeners.delete(copy.key);
				if (!result.done && !result.absent) failed = true;
				resolve();
			});
		});
		return copy;
	});
	// Waited for: the listeners that answered their last copy in time. One that did not is not waited for
	// again until it does (its copies go on in the background), so it costs the others one wait at most.
	const awaited = copies.filter((copy) => !slowListeners.has(copy.key));
	// The wait ends with the copies: its timer must not outlive them (one per push).
	const answered = new AbortController();
	await Promise.race([Promise.all(awaited.map(async (copy) => await copy.answer)).then(() => answered.abort()), pause(FORWARD_TIMING.waitMs, answered.signal)]);
	answered.abort();
	for (const copy of awaited) if (!copy.answered) markSlow(copy.key);
	return failed ? 'failed' : 'taken';
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
