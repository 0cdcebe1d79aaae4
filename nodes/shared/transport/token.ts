/**
 * The bot token of the node's credential: read from the credential and kept (one cache for every
 * node), written into the request path as the credential writes it, and taken out of every text that
 * leaves (`redact`). The token is read for the redaction and for a download's path: n8n's
 * `httpRequestWithAuthentication` reads the credential for the request itself.
 */
import type { ServiceBotContext } from './types';

export const CREDENTIAL_TYPE = 'serviceBotApi';

/**
 * The token as it appears in the request path `/bot<token>/<method>`. Characters that would end or
 * change the path (`?`, `#`, `/`, `%`, spaces…) are percent-encoded; `:` stays as it is, because
 * every token has one and a path segment may carry it unencoded.
 */
export function tokenPathSegment(token: string): string {
	return encodeURIComponent(token).replace(/%3A/gi, ':');
}

/**
 * Removes every form of the token from a text: raw, URL-encoded, and as written in the request path.
 * Plain string splitting, not a RegExp, so tokens with metacharacters are matched literally.
 */
export function redact(text: string, token: string): string {
	if (!token) return text;
	let out = text;
	for (const form of new Set([token, tokenPathSegment(token), encodeURIComponent(token), encodeURI(token)])) {
		if (form) out = out.split(form).join('***');
	}
	return out;
}

/** Token of the node's credential, read once per execution context: the redaction needs it. */
const tokenCache = new WeakMap<object, Promise<string>>();

/**
 * The last token read of each credential (by its id) and when, whichever context read it: a context
 * that lives for one request may take it instead of reading the credential (`recentToken`). Bounded:
 * one entry per credential served.
 */
const lastRead = new Map<string, { token: string; readAt: number }>();

function credentialIdOf(ctx: ServiceBotContext): string | undefined {
	return ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? undefined;
}

/** Reads the token from the credential, for this context and as the credential's last read. */
function readToken(ctx: ServiceBotContext): Promise<string> {
	const readAt = Date.now();
	const read = ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) =>
		typeof credentials.accessToken === 'string' ? credentials.accessToken : '',
	);
	tokenCache.set(ctx, read);
	const credentialId = credentialIdOf(ctx);
	if (credentialId) {
		void read.then(
			(token) => {
				// No token is nothing to reuse: each reader says so in its own words.
				if (token === '') return;
				if (lastRead.size >= 1000) lastRead.clear();
				lastRead.set(credentialId, { token, readAt });
			},
			// The reader gets the failure from `read` itself.
			() => undefined,
		);
	}
	return read;
}

/** The bot token of the node's credential ('' when it has none); read once per context. */
export async function tokenOf(ctx: ServiceBotContext): Promise<string> {
	return await (tokenCache.get(ctx) ?? readToken(ctx));
}

/**
 * Reads the bot token from the credential again at the next call: for a context that lives long (a
 * poller) and was refused its token, in case the token was changed in the credential meanwhile.
 */
export async function rereadToken(ctx: ServiceBotContext): Promise<string> {
	return await readToken(ctx);
}

/**
 * The token of the node's credential as some context of this process read it (the action node, a
 * trigger, an earlier push) less than `maxAgeMs` ago, without reading the credential; undefined when
 * none did. Only for a caller that recognises a token changed meanwhile and then reads it (`tokenOf`).
 */
export function recentToken(ctx: ServiceBotContext, maxAgeMs: number): string | undefined {
	const credentialId = credentialIdOf(ctx);
	const recent = credentialId ? lastRead.get(credentialId) : undefined;
	// A clock set back makes an entry look younger than it is: only an age from 0 counts.
	const age = recent ? Date.now() - recent.readAt : -1;
	return recent && age >= 0 && age < maxAgeMs ? recent.token : undefined;
}
