/**
 * Several workflows on one bot. A bot has one webhook URL at the service, and n8n gives every trigger
 * its own webhook path, so the triggers of one bot in one n8n share the bot's webhook this way:
 *
 * - The registered URL is the first listener's own URL (the receiver) with the list of every
 *   listener in its query: `…/webhook/<id>/webhook?service-bot-listeners=p/webhook/<id>/webhook,t/…`
 *   (`p` production, `t` a test in the editor). A bot with one listener has its plain URL, as
 *   before. The list travels with every push, so every n8n process (a webhook process in queue mode
 *   too) knows it without storage of its own, and it survives restarts at the service.
 * - The receiver checks the push, forwards it to the other listeners' own webhook URLs on the same
 *   n8n with a secret each of them derives from the bot token, and handles it itself. Each listener
 *   applies its own filters and its own duplicate window.
 * - Listeners join and leave by registering the list again (`create`/`delete`). The service has no
 *   compare-and-set, so each writer reads the list back after a pause and writes again while it is
 *   not right (two workflows published at the same moment).
 *
 * Here, under shared/, because the action node reads it too: Send and Wait asks whether the bot's
 * receiver is still served before it asks in the chat (a bot whose receiver n8n no longer serves is
 * deaf). The writing (ServiceBotTrigger/webhook/lifecycle.ts) and the copies (forward.ts) stay with
 * the trigger.
 */
import type { RequestHelperFunctions } from 'n8n-workflow';

import { SECRET_HEADER } from '../spec';
import type { Run } from './identity';
import { keyed } from './identity';

/** One trigger listening to the bot: where this n8n serves it, and whether it is a test. */
export interface Listener {
	readonly run: Run;
	/** The path of its webhook URL on this n8n, e.g. `/webhook/<webhookId>/webhook`. */
	readonly path: string;
}

export const LISTENERS_PARAMETER = 'service-bot-listeners';

/**
 * The field of a probe's body: a push with the forward secret and this field set to true asks a
 * listener whether this n8n still serves it (forward.ts); it runs nothing.
 */
export const PROBE_FIELD = 'service_bot_probe';

/**
 * At most this many workflows (tests included) on one bot: every update is sent once more to each
 * listener but the receiver, and the list is part of the URL registered at the service.
 */
export const MAX_LISTENERS = 10;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/**
 * n8n's webhook path of a trigger with a webhook id: `<prefix…>/<webhookId>/webhook`. No segment may
 * start with a dot, so a list in a registered URL cannot point forwarding elsewhere (`/../`).
 */
const LISTENER_PATH = new RegExp(`^(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+/(${UUID})/webhook$`);

function trimmed(path: string): string {
	return path.replace(/\/+$/, '');
}

/** The listener a trigger is, from its own webhook URL (test or production). */
export function listenerOf(url: string, run: Run): Listener {
	return { run, path: trimmed(new URL(url).pathname) };
}

/** The node's webhook id, which the path carries; undefined for a path that is not a listener's. */
export function webhookIdOf(listener: Listener): string | undefined {
	return LISTENER_PATH.exec(listener.path)?.[2];
}

/**
 * Whether a listener is the trigger with this webhook id and run. A trigger's webhook() knows only
 * these (n8n gives it its production URL even in a test), so listeners are told apart by them.
 */
export function isListener(listener: Listener, webhookId: string, run: Run): boolean {
	return listener.run === run && webhookIdOf(listener)?.toLowerCase() === webhookId.toLowerCase();
}

/** The part of a path before `/<webhookId>/webhook`: n8n's production or test prefix. */
function prefixOf(path: string): string {
	return path.split('/').slice(0, -2).join('/');
}

function encode(listener: Listener): string {
	return `${listener.run === 'test' ? 't' : 'p'}${listener.path}`;
}

function decode(entry: string): Listener | undefined {
	const run = entry[0] === 't' ? 'test' : entry[0] === 'p' ? 'production' : undefined;
	const path = trimmed(entry.slice(1));
	return run !== undefined && LISTENER_PATH.test(path) ? { run, path } : undefined;
}

/** The listeners a `service-bot-listeners` value names, in order; what is not a listener is dropped. */
export function listenersIn(value: unknown): Listener[] {
	if (typeof value !== 'string') return [];
	return value
		.split(',')
		.map(decode)
		.filter((listener): listener is Listener => listener !== undefined);
}

/**
 * The listeners of the bot's current webhook, seen from `self` (a trigger of this n8n, at `origin`):
 * [] when the bot has no webhook; undefined when the webhook is not this n8n's triggers' (another
 * origin, or a path that is not a trigger's). A plain URL of a trigger (one listener) is read as a
 * listener of the same run as `self` when it has the same prefix, of the other run otherwise.
 */
export function listenersOf(current: string, origin: string, self: Listener): Listener[] | undefined {
	if (current === '') return [];
	let url: URL;
	try {
		url = new URL(current);
	} catch {
		return undefined;
	}
	if (url.origin !== origin) return undefined;
	const path = trimmed(url.pathname);
	if (!LISTENER_PATH.test(path)) return undefined;
	const listed = listenersIn(url.searchParams.get(LISTENERS_PARAMETER) ?? undefined);
	if (listed.length > 0 && listed[0].path === path) return listed;
	const otherRun: Run = self.run === 'test' ? 'production' : 'test';
	return [{ run: prefixOf(path) === prefixOf(self.path) ? self.run : otherRun, path }];
}

/**
 * The listeners in the order to register them: published workflows first, in the order they joined,
 * then tests. The first receives every push, so it is a published workflow whenever there is one: a
 * test's URL exists only while the editor listens (and not after a restart of n8n).
 */
export function inServingOrder(listeners: readonly Listener[]): Listener[] {
	return [...listeners.filter((listener) => listener.run === 'production'), ...listeners.filter((listener) => listener.run === 'test')];
}

/** The URL to register for these listeners: the first one's, with the list when there are several. */
export function registeredUrlOf(origin: string, listeners: readonly Listener[]): string {
	const url = new URL(`${origin}${listeners[0].path}`);
	if (listeners.length > 1) url.searchParams.set(LISTENERS_PARAMETER, listeners.map(encode).join(','));
	return url.toString();
}

/**
 * The listener that receives the bot's pushes, from a registered URL that lists several (the first);
 * undefined for a plain URL (one listener, whose run the URL alone does not say) or any other URL.
 */
export function receiverOf(registered: string): Listener | undefined {
	let url: URL;
	try {
		url = new URL(registered);
	} catch {
		return undefined;
	}
	const [first] = listenersIn(url.searchParams.get(LISTENERS_PARAMETER) ?? undefined);
	return first !== undefined && first.path === trimmed(url.pathname) ? first : undefined;
}

/** The secret a receiver sends with an update it forwards to one listener (and with a probe): only that listener accepts it. */
export function forwardSecret(token: string, webhookId: string, run: Run): string {
	return keyed(token, 'webhook-forward:v1', [webhookId.toLowerCase(), run]);
}

/** The HTTP client of a node's context: the probe needs nothing else. */
interface ListenerClient {
	readonly helpers: Pick<RequestHelperFunctions, 'httpRequest'>;
}

/** How long a probe waits for the listener's answer; tests never need to change it. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Whether this n8n (at `origin`) still serves a published listener: n8n answers 404 for a webhook
 * path that no published workflow has, and the listener itself answers its probe (a POST with its
 * forward secret and `PROBE_FIELD` true, which runs nothing) with 200. Anything else (no answer, a
 * 5xx, another refusal) is not proof of absence: the listener counts as served.
 */
export async function isServed(ctx: ListenerClient, origin: string, token: string, listener: Listener): Promise<boolean> {
	try {
		const response = await ctx.helpers.httpRequest({
			method: 'POST',
			url: `${origin}${listener.path}`,
			headers: { [SECRET_HEADER]: forwardSecret(token, webhookIdOf(listener) ?? '', listener.run) },
			body: { [PROBE_FIELD]: true },
			json: true,
			timeout: PROBE_TIMEOUT_MS,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		});
		const status = typeof response === 'object' && response !== null ? Number((response as { statusCode?: unknown }).statusCode) : 200;
		return status !== 404;
	} catch {
		return true;
	}
}
