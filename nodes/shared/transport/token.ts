/**
 * The bot token of the node's credential: read from the credential and kept (one cache for every
 * node), written into the request path as the credential writes it, and taken out of every text that
 * leaves (`redact`). The credential is read once per context (`CREDENTIAL_MAX_AGE_MS`) and handed to
 * n8n's `httpRequestWithAuthentication` with each request, so the token redacted is the one sent.
 */
import type { IAdditionalCredentialOptions, ICredentialDataDecryptedObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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
 * A path segment with the least encoding RFC 3986 allows (`pchar`: unreserved characters, sub-delims,
 * `:` and `@` as they are): how a proxy or a service may write the path it quotes back.
 */
function minimalPathSegment(text: string): string {
	return [...text].map((char) => (/[A-Za-z0-9\-._~!$&'()*+,;=:@]/.test(char) ? char : encodeURIComponent(char))).join('');
}

/** The last token's spellings: every error of a call redacts with the same token. */
let spelled: { token: string; spellings: readonly string[] } | undefined;

/**
 * Every spelling of the token a text can hold, longest first: the token and its secret (what follows
 * the bot id; 8 characters or more), each raw, URL-encoded, as a path segment (as the credential
 * writes it, and with the least encoding), each of those encoded once more (a URL in a query, a
 * redirect's), with lower-case percent escapes too, and JSON-escaped (an answer quoted as JSON).
 */
function spellingsOf(token: string): readonly string[] {
	if (spelled?.token === token) return spelled.spellings;
	const secret = token.slice(token.indexOf(':') + 1);
	const forms = new Set<string>();
	for (const part of secret.length >= 8 && secret !== token ? [token, secret] : [token]) {
		for (const form of [part, encodeURIComponent(part), encodeURI(part), tokenPathSegment(part), minimalPathSegment(part)]) {
			for (const encoded of [form, encodeURIComponent(form)]) {
				for (const cased of [encoded, encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())]) {
					forms.add(cased);
					forms.add(JSON.stringify(cased).slice(1, -1));
				}
			}
		}
	}
	const spellings = [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
	spelled = { token, spellings };
	return spellings;
}

/**
 * Removes every spelling of the token from a text (`spellingsOf`): raw, URL-encoded, as written in
 * the request path (`/bot<token>/…`, `/file/bot<token>/…`), encoded again, JSON-escaped, and its
 * secret alone. Plain string splitting, not a RegExp, so tokens with metacharacters are matched
 * literally. Every failure's texts go through it where the failure is made (failure.ts `apiError`).
 */
export function redact(text: string, token: string): string {
	if (!token) return text;
	let out = text;
	for (const form of spellingsOf(token)) {
		if (out.includes(form)) out = out.split(form).join('***');
	}
	return out;
}

/**
 * How long a context keeps the credential it read. Every call of an execution, a bulk send's
 * thousands included, is made with one read (n8n's `httpRequestWithAuthentication` would read the
 * credential from n8n's database for each request, one more chance to fail under load); a context
 * that lives long (a poller, a published trigger) reads it again after this, so a changed credential
 * is used within it.
 */
export const CREDENTIAL_MAX_AGE_MS = 60_000;

/** The node's credential as a context read it; a first read that failed is not kept. */
const credentialCache = new WeakMap<object, { read: Promise<ICredentialDataDecryptedObject>; readAt: number }>();

/** The credential each context last read: what it goes on with when reading it again fails. */
const lastGood = new WeakMap<object, ICredentialDataDecryptedObject>();

/**
 * The last read of each credential (by its id) with a token, and when, whichever context read it: a
 * context that lives for one request may take it instead of reading the credential (`recentToken`,
 * `goOnWithRecent`). Bounded: one entry per credential served.
 */
const lastRead = new Map<string, { credential: ICredentialDataDecryptedObject; readAt: number }>();

function credentialIdOf(ctx: ServiceBotContext): string | undefined {
	return ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? undefined;
}

function lastReadOf(ctx: ServiceBotContext): { credential: ICredentialDataDecryptedObject; readAt: number } | undefined {
	const credentialId = credentialIdOf(ctx);
	return credentialId ? lastRead.get(credentialId) : undefined;
}

function tokenIn(credential: ICredentialDataDecryptedObject): string {
	return typeof credential.accessToken === 'string' ? credential.accessToken : '';
}

/**
 * n8n could not read the credential for a reason of its own (its database timing out under load):
 * said as that, not as the service being unreachable. n8n's own errors about the credential (none
 * selected, no access) are clear as they are and pass.
 */
function unreadable(ctx: ServiceBotContext, error: unknown): unknown {
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), `Could not read the Service Bot API credential: ${error instanceof Error ? error.message : String(error)}`, {
		description: 'n8n could not read this node\'s credential, so nothing was sent; its message says why (n8n\'s side, not the service). Under load it is n8n\'s database timing out: run it again, or give n8n a larger database pool (DB_POSTGRESDB_POOL_SIZE).',
	});
}

/**
 * Reads the credential, for this context and as the credential's last read token. A context that read
 * it before goes on with that when reading it again fails (n8n's database under load): a bulk send
 * longer than `CREDENTIAL_MAX_AGE_MS` must not fail messages it has sent on a read it did not need.
 */
function readCredential(ctx: ServiceBotContext): Promise<ICredentialDataDecryptedObject> {
	const readAt = Date.now();
	const previous = lastGood.get(ctx);
	const credentialId = credentialIdOf(ctx);
	const read: Promise<ICredentialDataDecryptedObject> = ctx.getCredentials(CREDENTIAL_TYPE).then(
		(credential) => {
			lastGood.set(ctx, credential);
			// No token is nothing to reuse: each reader says so in its own words.
			if (credentialId && tokenIn(credential) !== '') {
				if (lastRead.size >= 1000) lastRead.clear();
				lastRead.set(credentialId, { credential, readAt });
			}
			return credential;
		},
		async (error: unknown) => {
			if (previous !== undefined) return previous;
			// The next call reads again (n8n's database may be back).
			if (credentialCache.get(ctx)?.read === read) credentialCache.delete(ctx);
			return await Promise.reject(unreadable(ctx, error));
		},
	);
	credentialCache.set(ctx, { read, readAt });
	return read;
}

async function credentialOf(ctx: ServiceBotContext): Promise<ICredentialDataDecryptedObject> {
	const cached = credentialCache.get(ctx);
	// A clock set back makes an entry look younger than it is: only an age from 0 counts.
	const age = cached ? Date.now() - cached.readAt : -1;
	return await (cached && age >= 0 && age < CREDENTIAL_MAX_AGE_MS ? cached.read : readCredential(ctx));
}

/** The credential a request is made with, and its token, from one read: what is redacted is what was sent. */
export interface ReadCredential {
	readonly token: string;
	/** For `httpRequestWithAuthentication`: the credential already read, so n8n does not read it again. */
	readonly authentication: IAdditionalCredentialOptions;
}

export async function readCredentialOf(ctx: ServiceBotContext): Promise<ReadCredential> {
	const data = await credentialOf(ctx);
	const credentials = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		token: tokenIn(data),
		authentication: { credentialsDecrypted: { id: credentials?.id ?? '', name: credentials?.name ?? '', type: CREDENTIAL_TYPE, data } },
	};
}

/** The bot token of the node's credential ('' when it has none). */
export async function tokenOf(ctx: ServiceBotContext): Promise<string> {
	return tokenIn(await credentialOf(ctx));
}

/**
 * Reads the bot token from the credential again at the next call: for a context that lives long (a
 * poller) and was refused its token, in case the token was changed in the credential meanwhile.
 */
export async function rereadToken(ctx: ServiceBotContext): Promise<string> {
	return tokenIn(await readCredential(ctx));
}

/**
 * The token of the node's credential as some context of this process read it (the action node, a
 * trigger, an earlier push) less than `maxAgeMs` ago, without reading the credential; undefined when
 * none did. Only for a caller that recognises a token changed meanwhile and then reads it (`tokenOf`).
 */
export function recentToken(ctx: ServiceBotContext, maxAgeMs: number): string | undefined {
	const recent = lastReadOf(ctx);
	// A clock set back makes an entry look younger than it is: only an age from 0 counts.
	const age = recent ? Date.now() - recent.readAt : -1;
	return recent && age >= 0 && age < maxAgeMs ? tokenIn(recent.credential) : undefined;
}

/**
 * Makes the context go on with the credential whose token `recentToken` gave, for a caller that could
 * not read the credential and proved that token the one to go on with (a push signed with its
 * secret): the context's own requests (Show Typing, Download Files) then do not fail on the read n8n
 * cannot make. Nothing happens when the credential was read meanwhile with another token.
 */
export function goOnWithRecent(ctx: ServiceBotContext, token: string): void {
	const recent = lastReadOf(ctx);
	if (!recent || tokenIn(recent.credential) !== token) return;
	credentialCache.set(ctx, { read: Promise.resolve(recent.credential), readAt: Date.now() });
	lastGood.set(ctx, recent.credential);
}
