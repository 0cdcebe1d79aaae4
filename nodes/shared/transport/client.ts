/**
 * The one place that talks HTTP to the service. Every method call of both nodes goes through
 * `apiRequest`: it unwraps the `{ok, result}` envelope, turns `ok:false` into a `NodeApiError` with
 * the service's own description, waits out 429s, retries transient failures only where that cannot
 * act twice, and makes sure the bot token never leaves in an error. What went wrong is also kept as
 * a typed failure (`failureOf`, failure.ts), which callers decide on instead of parsing the error's
 * texts. A file's bytes (`downloadFile`, download.ts) come through the same exchange, with the same
 * failures and retries.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { FailedRequest } from './callErrors';
import { cancelledError, refusalOf, refusedError, unansweredError } from './callErrors';
import type { ReadCredential } from './token';
import { CREDENTIAL_TYPE, readCredentialOf } from './token';
import type { Envelope, FullResponse, ServiceBotContext } from './types';
import { multipartBody, uploadIn } from './upload';

export interface RetryPolicy {
	/** How many times a 429 is waited out before giving up. */
	readonly rateLimitRetries: number;
	/** A longer `retry_after` than this (seconds) fails at once instead of stalling the workflow. */
	readonly maxRetryAfterSeconds: number;
	/** Retries after a network error or 5xx, for methods where a repeat cannot act twice. */
	readonly transientRetries: number;
	/** First backoff step in milliseconds; doubles on each retry. */
	readonly backoffBaseMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	rateLimitRetries: 5,
	maxRetryAfterSeconds: 60,
	transientRetries: 3,
	backoffBaseMs: 300,
};

export interface CallOptions {
	itemIndex?: number;
	/**
	 * Whether repeating the call cannot act twice (it only reads, or sets a state to the same value).
	 * Only such calls are repeated after a network error or a 5xx, when the service may have acted.
	 */
	idempotent?: boolean;
	/** Seconds the service may hold the request open (a long poll); the timeout grows by as much. */
	longPollSeconds?: number;
	/** Request timeout in milliseconds; default 30 s plus any long-poll wait. */
	timeoutMs?: number;
	/** Aborts the request, e.g. an open long poll when the trigger is closed. */
	abortSignal?: AbortSignal;
	retry?: Partial<RetryPolicy>;
}

/** Waits `ms`, or less when the signal aborts; never rejects. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) return;
	let onAbort = (): void => {};
	await new Promise<void>((resolve) => {
		onAbort = resolve;
		signal.addEventListener('abort', onAbort, { once: true });
		// n8n's sleep stops its timer on abort (an older n8n ignores the signal; the listener resolves).
		sleep(ms, signal).then(resolve, resolve);
	});
	signal.removeEventListener('abort', onAbort);
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const LONG_POLL_MARGIN_MS = 15_000;

/**
 * Time a file of `bytes` may take to go up or come down, beyond the usual timeout: one second per
 * 256 KiB (50 MB: about 3.5 minutes). A size n8n did not record: as long as the largest upload.
 */
export function transferTimeMs(bytes: number | undefined): number {
	return bytes === undefined ? 300_000 : Math.ceil(bytes / 262_144) * 1000;
}

/** Network error codes that prove nothing reached the service, so even a send may be repeated. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Finds a Node network error code (ECONNREFUSED, ETIMEDOUT, …) anywhere in an error's cause chain. */
function networkCode(error: unknown, depth = 0): string | undefined {
	if (!error || typeof error !== 'object' || depth > 5) return undefined;
	const candidate = error as { code?: unknown; cause?: unknown; errorResponse?: unknown; message?: unknown };
	if (typeof candidate.code === 'string' && /^E[A-Z_]+$/.test(candidate.code)) return candidate.code;
	const nested = networkCode(candidate.cause, depth + 1) ?? networkCode(candidate.errorResponse, depth + 1);
	if (nested) return nested;
	if (typeof candidate.message === 'string') {
		const match = /\b(E[A-Z]{4,}[A-Z_]*)\b/.exec(candidate.message);
		if (match) return match[1];
		if (/timeout of \d+ms exceeded/i.test(candidate.message)) return 'ETIMEDOUT';
	}
	return undefined;
}

/** What an exchange with the service is, for its retries and its errors. */
export interface Exchange extends FailedRequest {
	/** Only reads: repeated after a network error or a 5xx. */
	readonly readOnly: boolean;
	readonly policy: RetryPolicy;
	readonly abortSignal?: AbortSignal;
}

/**
 * An answer read: its value, the response to judge as a refusal, or the error of a body that broke
 * while it was read (the connection dropped in the middle of a file), which counts as a network error.
 */
export type Reading<T> = { readonly value: T } | { readonly refused: FullResponse } | { readonly broken: unknown };

/**
 * One request to the service with the retries its kind allows: 429s waited out, network errors and
 * 5xx repeated when the request only reads (or provably never left). `read` turns a response into
 * the value, a refusal or a broken body; what it throws ends the exchange as it is. Throws
 * `NodeApiError` with a typed failure (`failureOf`), never with the token in it.
 */
export async function exchange<T>(
	ctx: ServiceBotContext,
	credential: ReadCredential,
	request: IHttpRequestOptions,
	call: Exchange,
	read: (response: FullResponse) => Promise<Reading<T>>,
): Promise<T> {
	const { readOnly, policy } = call;
	const { token, authentication } = credential;
	let rateLimited = 0;
	let transient = 0;
	/** Waits before a retry; an abort meanwhile ends the call. */
	const waitToRetry = async (ms: number): Promise<void> => {
		await pause(ms, call.abortSignal);
		if (call.abortSignal?.aborted) throw cancelledError(ctx, token, call);
	};
	for (;;) {
		const sent = await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, { ...request }, authentication).then(
			(answer) => ({ answer: answer as FullResponse }),
			(error: unknown) => ({ error }),
		);
		const reading: Reading<T> = 'error' in sent ? { broken: sent.error } : await read(sent.answer);
		if ('broken' in reading) {
			const { broken } = reading;
			if (call.abortSignal?.aborted) throw cancelledError(ctx, token, call);
			const code = networkCode(broken);
			const nothingSent = code !== undefined && NOT_SENT_CODES.has(code);
			if ((readOnly || nothingSent) && transient < policy.transientRetries) {
				await waitToRetry(policy.backoffBaseMs * 2 ** transient++);
				continue;
			}
			throw unansweredError(ctx, token, call, broken, { code, nothingSent }, transient + 1);
		}
		if ('value' in reading) return reading.value;

		const refused = reading.refused;
		const refusal = refusalOf(call.subject, refused, token);
		const { status } = refusal;

		if (status === 429 && rateLimited < policy.rateLimitRetries) {
			const waitSeconds = refusal.retryAfter ?? 1;
			if (waitSeconds <= policy.maxRetryAfterSeconds) {
				rateLimited++;
				// Wait at least what the service asked; a little more so the retry lands after the window.
				await waitToRetry(Math.ceil(waitSeconds * 1000) + 50);
				continue;
			}
		}
		if (status >= 500 && readOnly && transient < policy.transientRetries) {
			await waitToRetry(policy.backoffBaseMs * 2 ** transient++);
			continue;
		}
		throw refusedError(ctx, token, call, refused, refusal);
	}
}

/**
 * Calls one method of the service and returns its `result`.
 * Throws `NodeApiError` (service refused, unreachable, malformed answer); never with the token in it.
 */
export async function apiRequest<T = unknown>(
	ctx: ServiceBotContext,
	method: string,
	body: IDataObject = {},
	options: CallOptions = {},
): Promise<T> {
	const credential = await readCredentialOf(ctx);
	const longPollMs = (options.longPollSeconds ?? 0) * 1000;
	const upload = uploadIn(body);
	const request: IHttpRequestOptions = {
		method: 'POST',
		url: `/${method}`,
		// Read again on each attempt: its file is opened anew.
		body: upload ? (multipartBody(body) as unknown as IDataObject) : body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: options.timeoutMs ?? (longPollMs > 0 ? longPollMs + LONG_POLL_MARGIN_MS : DEFAULT_TIMEOUT_MS + (upload ? transferTimeMs(upload.size) : 0)),
		// The Bot API never redirects. Without this, axios sends every request through follow-redirects.
		disableFollowRedirect: true,
		...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
	};
	const call: Exchange = {
		method,
		subject: method,
		readOnly: options.idempotent === true,
		policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
		itemIndex: options.itemIndex,
		abortSignal: options.abortSignal,
	};
	return await exchange<T>(ctx, credential, request, call, async (response) => {
		const envelope = response.body as Envelope | undefined;
		if (response.statusCode >= 200 && response.statusCode < 300 && envelope?.ok === true) return { value: envelope.result as T };
		return { refused: response };
	});
}
