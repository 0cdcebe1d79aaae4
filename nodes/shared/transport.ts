/**
 * The one place that talks HTTP to the service. Every method call of both nodes goes through
 * `callMethod`: it unwraps the `{ok, result}` envelope, turns `ok:false` into a `NodeApiError` with
 * the service's own description, waits out 429s, retries transient failures only where that cannot
 * act twice, and makes sure the bot token never leaves in an error. What went wrong is also kept as
 * a typed failure (`failureOf`), which callers decide on instead of parsing the error's texts. A
 * file's bytes (`downloadFile`) come the same way, with the same failures and retries.
 */
import type {
	BinaryHelperFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { withAdvice } from './advice';
import { tokenPathSegment } from './token';

export const CREDENTIAL_TYPE = 'serviceBotApi';

export type ServiceBotContext =
	| IExecuteFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions
	| ILoadOptionsFunctions;

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

/** What went wrong with a call, as callers decide on it. */
export type ServiceFailure =
	/** The caller aborted the call (its signal) before the service answered. */
	| { readonly kind: 'cancelled' }
	/** The service could not be reached; `nothingSent` when the request provably did not leave. */
	| { readonly kind: 'network'; readonly code?: string; readonly nothingSent: boolean }
	/** No answer in time: the service may have acted. */
	| { readonly kind: 'timeout' }
	/** The service refused (a 4xx, or ok:false) with its own description; 429 carries its retry_after. */
	| { readonly kind: 'refused'; readonly status: number; readonly description: string; readonly retryAfterSeconds?: number }
	/** A 5xx: the service (or a proxy before it) had a problem and may have acted. */
	| { readonly kind: 'serverError'; readonly status: number }
	/** The service answered, but not with its JSON envelope (a proxy's page, an empty body). */
	| { readonly kind: 'malformed'; readonly status: number };

const failures = new WeakMap<NodeApiError, ServiceFailure>();

/** The message of anything thrown, for log lines and errors of our own. */
export function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The typed failure of an error thrown by `callMethod`; undefined for any other error. */
export function failureOf(error: unknown): ServiceFailure | undefined {
	return error instanceof NodeApiError ? failures.get(error) : undefined;
}

/** The status of a refusal (`refused`), else undefined. */
export function refusalStatus(error: unknown): number | undefined {
	const failure = failureOf(error);
	return failure?.kind === 'refused' ? failure.status : undefined;
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

/**
 * A file a request uploads. A body with one goes out as `multipart/form-data` (the Telegram
 * convention the spec leaves to: the file in the method's media field, the other parameters as form
 * fields). Its bytes are read as the request goes out, from a fresh `read()` on each attempt.
 */
export class FileUpload {
	constructor(
		readonly fileName: string,
		readonly mimeType: string,
		/** Bytes, when known: the request then carries a Content-Length; otherwise it is sent chunked. */
		readonly size: number | undefined,
		readonly read: () => AsyncIterable<Uint8Array>,
	) {}
}

/** A file field as HTTP clients read a standard FormData's files (`name`, `type`, `size`, `stream()`). */
interface FormFile {
	readonly name: string;
	readonly type: string;
	readonly size: number | undefined;
	stream(): AsyncIterable<Uint8Array>;
}

/**
 * The body of an upload, in the shape of a standard FormData: n8n's HTTP client (axios) streams such
 * a form part by part, with a Content-Length when every size is known. The global FormData takes only
 * Blobs held in memory (or opened from a path), and a node may import no stream class; this form
 * takes a file that is read while it is sent, so a 50 MB upload never sits whole in memory.
 */
class MultipartBody {
	readonly [Symbol.toStringTag] = 'FormData';
	private readonly fields: Array<[string, string | FormFile]> = [];

	append(name: string, value: string | FormFile): void {
		this.fields.push([name, value]);
	}

	entries(): IterableIterator<[string, string | FormFile]> {
		return this.fields[Symbol.iterator]();
	}

	[Symbol.iterator](): IterableIterator<[string, string | FormFile]> {
		return this.entries();
	}
}

/** The upload in a body, if it has one. */
function uploadIn(body: IDataObject): FileUpload | undefined {
	return Object.values(body).find((value): value is FileUpload => value instanceof FileUpload);
}

/** A body with an upload as form fields: text as it is, other values as the JSON the service parses. */
function multipartBody(body: IDataObject): MultipartBody {
	const form = new MultipartBody();
	for (const [name, value] of Object.entries(body)) {
		if (value === undefined || value === null) continue;
		if (value instanceof FileUpload) {
			form.append(name, { name: value.fileName, type: value.mimeType, size: value.size, stream: value.read });
		} else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
	}
	return form;
}

/**
 * Time a file of `bytes` may take to go up or come down, beyond the usual timeout: one second per
 * 256 KiB (50 MB: about 3.5 minutes). A size n8n did not record: as long as the largest upload.
 */
function transferTimeMs(bytes: number | undefined): number {
	return bytes === undefined ? 300_000 : Math.ceil(bytes / 262_144) * 1000;
}

interface Envelope {
	ok?: unknown;
	result?: unknown;
	error_code?: unknown;
	description?: unknown;
	parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
}

interface FullResponse {
	body: unknown;
	statusCode: number;
	headers?: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const LONG_POLL_MARGIN_MS = 15_000;

/** Network error codes that prove nothing reached the service, so even a send may be repeated. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

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

/** The bot token of the node's credential ('' when it has none); read once per context. */
export async function tokenOf(ctx: ServiceBotContext): Promise<string> {
	let cached = tokenCache.get(ctx);
	if (!cached) {
		cached = ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) =>
			typeof credentials.accessToken === 'string' ? credentials.accessToken : '',
		);
		tokenCache.set(ctx, cached);
	}
	return await cached;
}

/**
 * Reads the bot token from the credential again at the next call: for a context that lives long (a
 * poller) and was refused its token, in case the token was changed in the credential meanwhile.
 */
export async function rereadToken(ctx: ServiceBotContext): Promise<string> {
	tokenCache.delete(ctx);
	return await tokenOf(ctx);
}

function describeUnknown(value: unknown, token: string): string {
	let text: string;
	if (typeof value === 'string') text = value;
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	text = text.replace(/\s+/g, ' ').trim();
	return redact(text.length > 300 ? `${text.slice(0, 300)}…` : text, token);
}

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

/** A network error's message with its cause's (Node puts the useful part, ECONNREFUSED …, there). */
function messageWithCause(error: unknown): string {
	if (error instanceof Error) {
		const cause = (error as { cause?: unknown }).cause;
		const causeMessage = cause instanceof Error ? cause.message : '';
		return causeMessage && causeMessage !== error.message ? `${error.message}: ${causeMessage}` : error.message;
	}
	return String(error);
}

function apiError(
	ctx: ServiceBotContext,
	token: string,
	failure: ServiceFailure,
	details: {
		method: string;
		message: string;
		/** The service's own words, when they differ from the message. */
		said?: string;
		description: string;
		httpCode: number;
		errorCode?: number;
		itemIndex?: number;
		retryAfter?: number;
	},
): NodeApiError {
	const response: JsonObject = {
		ok: false,
		method: details.method,
		error_code: details.errorCode ?? details.httpCode,
		description: redact(details.said ?? details.message, token),
	};
	if (details.retryAfter !== undefined) response.parameters = { retry_after: details.retryAfter };
	const error = new NodeApiError(ctx.getNode(), response, {
		message: redact(details.message, token),
		description: redact(details.description, token),
		httpCode: String(details.httpCode),
		itemIndex: details.itemIndex,
	});
	// The stack is built from the message above, which is already redacted; keep it that way.
	error.stack = redact(error.stack ?? '', token);
	failures.set(error, failure);
	return error;
}

/** Turns a non-2xx or unparseable response into the service's own words, or a plain explanation. */
function failureFromResponse(
	method: string,
	response: FullResponse,
	token: string,
): { message: string; description: string; errorCode?: number; retryAfter?: number; envelope: boolean } {
	const { body, statusCode } = response;
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const envelope = body as Envelope;
		const description = typeof envelope.description === 'string' ? envelope.description : '';
		const errorCode = typeof envelope.error_code === 'number' ? envelope.error_code : undefined;
		const retryAfter =
			typeof envelope.parameters?.retry_after === 'number' ? envelope.parameters.retry_after : undefined;
		return {
			message: description || `The service refused ${method} (HTTP ${statusCode})`,
			description: hintFor(statusCode, method),
			errorCode,
			retryAfter,
			envelope: true,
		};
	}
	const excerpt = describeUnknown(body, token);
	// A success status with an unreadable body: the service most likely did what was asked.
	const hint =
		statusCode >= 200 && statusCode < 300
			? 'The service answered with a success status, so it has probably acted: check before sending again.'
			: hintFor(statusCode, method);
	return {
		message: `The service sent an answer to ${method} that is not the expected JSON (HTTP ${statusCode})`,
		description: `${hint} Start of the answer: ${excerpt || '(empty)'}`.trim(),
		envelope: false,
	};
}

function hintFor(statusCode: number, method: string): string {
	if (statusCode === 401) return 'The access token was not accepted. Check the token in the Service Bot API credential.';
	if (statusCode === 404)
		return `Nothing answered ${method} at this address. Check the base URL and the token in the credential.`;
	if (statusCode === 403) return 'The bot may not do this here, for example because it is not a member of the chat.';
	if (statusCode === 409) return 'This conflicts with the bot\'s current state, for example polling while a webhook is set.';
	if (statusCode === 429) return 'The service is rate-limiting the bot. Lower the concurrency or try again later.';
	if (statusCode >= 500) return 'The service had a problem. It may have acted anyway, so check before sending again.';
	return `The service refused ${method} (HTTP ${statusCode}).`;
}

/** What an exchange with the service is, for its retries and its errors. */
interface Exchange {
	/** The method named in the error's response (`file` for a download). */
	readonly method: string;
	/** What the request does, in messages: the method's name, or "the download of file …". */
	readonly subject: string;
	/** Only reads: repeated after a network error or a 5xx. */
	readonly readOnly: boolean;
	readonly policy: RetryPolicy;
	readonly itemIndex?: number;
	readonly abortSignal?: AbortSignal;
}

/**
 * An answer read: its value, the response to judge as a refusal, or the error of a body that broke
 * while it was read (the connection dropped in the middle of a file), which counts as a network error.
 */
type Reading<T> = { readonly value: T } | { readonly refused: FullResponse } | { readonly broken: unknown };

/**
 * One request to the service with the retries its kind allows: 429s waited out, network errors and
 * 5xx repeated when the request only reads (or provably never left). `read` turns a response into
 * the value, a refusal or a broken body; what it throws ends the exchange as it is. Throws
 * `NodeApiError` with a typed failure (`failureOf`), never with the token in it.
 */
async function exchange<T>(
	ctx: ServiceBotContext,
	token: string,
	request: IHttpRequestOptions,
	call: Exchange,
	read: (response: FullResponse) => Promise<Reading<T>>,
): Promise<T> {
	const { method, subject, readOnly, policy } = call;
	let rateLimited = 0;
	let transient = 0;
	/** The call was aborted (its signal) before the service answered, or while it waited to retry. */
	const cancelled = (): NodeApiError =>
		apiError(ctx, token, { kind: 'cancelled' }, {
			method,
			httpCode: 499,
			message: `${subject} was cancelled`,
			description: 'The request was aborted before the service answered.',
			itemIndex: call.itemIndex,
		});
	/** Waits before a retry; an abort meanwhile ends the call. */
	const waitToRetry = async (ms: number): Promise<void> => {
		await pause(ms, call.abortSignal);
		if (call.abortSignal?.aborted) throw cancelled();
	};
	for (;;) {
		const sent = await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, { ...request }).then(
			(answer) => ({ answer: answer as FullResponse }),
			(error: unknown) => ({ error }),
		);
		const reading: Reading<T> = 'error' in sent ? { broken: sent.error } : await read(sent.answer);
		if ('broken' in reading) {
			const { broken } = reading;
			if (call.abortSignal?.aborted) throw cancelled();
			const code = networkCode(broken);
			const nothingSent = code !== undefined && NOT_SENT_CODES.has(code);
			if ((readOnly || nothingSent) && transient < policy.transientRetries) {
				await waitToRetry(policy.backoffBaseMs * 2 ** transient++);
				continue;
			}
			const timedOut = code === 'ETIMEDOUT' || code === 'ECONNABORTED';
			const failure: ServiceFailure = timedOut ? { kind: 'timeout' } : { kind: 'network', code, nothingSent };
			// The httpCode only labels the error in n8n's panel (no HTTP status came); callers use `failure`.
			throw apiError(ctx, token, failure, {
				method,
				httpCode: timedOut ? 504 : 503,
				message: timedOut
					? `The service did not answer ${subject} in time`
					: `Could not reach the service for ${subject}: ${messageWithCause(broken)}`,
				description: nothingSent
					? 'Check the base URL in the Service Bot API credential and that the service is reachable.'
					: readOnly
						? `Gave up after ${transient + 1} attempts.`
						: 'The request may have reached the service, so it was not repeated: check before sending again.',
				itemIndex: call.itemIndex,
			});
		}
		if ('value' in reading) return reading.value;

		const refused = reading.refused;
		const refusal = failureFromResponse(subject, refused, token);
		const status = refused.statusCode >= 200 && refused.statusCode < 300 ? (refusal.errorCode ?? 502) : refused.statusCode;

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
		const failure: ServiceFailure =
			refused.statusCode >= 500
				? { kind: 'serverError', status }
				: refusal.envelope
					? { kind: 'refused', status, description: refusal.message, retryAfterSeconds: refusal.retryAfter }
					: { kind: 'malformed', status: refused.statusCode };
		throw apiError(ctx, token, failure, {
			method,
			httpCode: status,
			errorCode: refusal.errorCode,
			said: refusal.message,
			// What to do, where the user can act: n8n's toast shows only the message (advice.ts).
			message: failure.kind === 'refused' ? withAdvice(refusal.message, status) : refusal.message,
			description: refusal.description,
			itemIndex: call.itemIndex,
			retryAfter: refusal.retryAfter,
		});
	}
}

/**
 * Calls one method of the service and returns its `result`.
 * Throws `NodeApiError` (service refused, unreachable, malformed answer); never with the token in it.
 */
export async function callMethod<T = unknown>(
	ctx: ServiceBotContext,
	method: string,
	body: IDataObject = {},
	options: CallOptions = {},
): Promise<T> {
	const token = await tokenOf(ctx);
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
	return await exchange<T>(ctx, token, request, call, async (response) => {
		const envelope = response.body as Envelope | undefined;
		if (response.statusCode >= 200 && response.statusCode < 300 && envelope?.ok === true) return { value: envelope.result as T };
		return { refused: response };
	});
}

/** A downloaded file's body as n8n's binary helpers take it: a stream (a buffer from an n8n that gives one). */
export type FileBody = Parameters<BinaryHelperFunctions['prepareBinaryData']>[0];

export interface FileResponse {
	readonly body: FileBody;
	/** The Content-Type the service sent, without parameters; undefined when none. */
	readonly contentType?: string;
}

export interface DownloadOptions<T> {
	/** What is downloaded, for messages: "file '…'" (its file_id). Never the path or the URL: the URL holds the token. */
	readonly subject: string;
	readonly itemIndex?: number;
	/** The file's size as the service stated it: a body of another length came incomplete; the time allowed grows with it. */
	readonly expectedBytes?: number;
	/** The bytes `store` took, to compare with `expectedBytes`. */
	readonly storedBytes: (stored: T) => number | undefined;
	/** The largest file there is to download (the service's limit): the time allowed when the size is unknown. */
	readonly largestBytes: number;
	readonly retry?: Partial<RetryPolicy>;
}

/** The network code of a body shorter than the service said (a connection closed as if the file had ended). */
export const INCOMPLETE_BODY = 'EINCOMPLETE';

/** Bytes of an error answer read to find the service's description (the rest is not read). */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The download's address relative to the credential's base, which is `{base URL}/bot{token}`
 * (credentials/ServiceBotApi.credentials.ts). Telegram's convention puts files at
 * `{base URL}/file/bot{token}/{file_path}`; n8n's HTTP client (axios) appends the url to baseURL and
 * resolves the `..` when it parses the result, so the download goes through
 * httpRequestWithAuthentication to the credential's own service, like every call, and the token is
 * written by the same function as the credential's. A `file_path` with `.` or `..` segments could
 * step out of the service's files: refused.
 */
function downloadUrl(token: string, filePath: string): string | undefined {
	const segments = filePath.split('/').filter((segment) => segment !== '');
	if (segments.length === 0 || segments.some((segment) => segment === '.' || segment === '..')) return undefined;
	return `../file/bot${tokenPathSegment(token)}/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

function isStream(body: FileBody): body is Exclude<FileBody, Buffer> {
	return !Buffer.isBuffer(body);
}

/**
 * The start of an error answer (the service's JSON, or a proxy's page) as a refusal, without reading
 * a large body whole; a body that breaks meanwhile is a broken one.
 */
async function errorAnswer(response: FullResponse): Promise<Reading<never>> {
	const { body } = response;
	let bytes: Buffer;
	if (Buffer.isBuffer(body)) bytes = body;
	else if (body !== null && typeof body === 'object' && Symbol.asyncIterator in body) {
		const chunks: Buffer[] = [];
		let size = 0;
		try {
			for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
				const part = Buffer.from(chunk);
				chunks.push(part);
				size += part.length;
				// Leaving the loop ends (destroys) the stream.
				if (size >= ERROR_BODY_BYTES) break;
			}
		} catch (error) {
			return { broken: error };
		}
		bytes = Buffer.concat(chunks);
	} else return { refused: response };
	const text = bytes.toString('utf8');
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text) as unknown;
	} catch {
		// Not JSON (a proxy's page): judged as it is.
	}
	return { refused: { statusCode: response.statusCode, body: parsed } };
}

function contentTypeOf(response: FullResponse): string | undefined {
	const value = response.headers?.['content-type'];
	const type = typeof value === 'string' ? value.split(';')[0].trim().toLowerCase() : '';
	return type === '' ? undefined : type;
}

/**
 * Downloads the file the service keeps at `filePath` (what getFile answers) and hands its body to
 * `store` as it arrives: n8n's binary helpers write a stream to n8n's binary data store without
 * holding the file whole. A download only reads, so a network error, a body cut off midway (or
 * shorter than the service said) and a 5xx are tried again (the policy of read-only calls), and 429s
 * waited out; `store` runs again on a retry. n8n not storing the file ends the download.
 * Failures are `NodeApiError`s with a typed failure and `subject` in their message, never the path
 * or the URL.
 */
export async function downloadFile<T>(
	ctx: ServiceBotContext,
	filePath: string,
	store: (file: FileResponse) => Promise<T>,
	options: DownloadOptions<T>,
): Promise<T> {
	const token = await tokenOf(ctx);
	const call: Exchange = {
		method: 'file',
		subject: `the download of ${options.subject}`,
		readOnly: true,
		policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
		itemIndex: options.itemIndex,
	};
	const url = downloadUrl(token, filePath);
	if (url === undefined) {
		throw apiError(ctx, token, { kind: 'malformed', status: 200 }, {
			method: call.method,
			httpCode: 502,
			message: `The service gave ${options.subject} a path that is not a file's`,
			description: 'getFile answered a file_path that is empty or leaves the service\'s files (. or .. in it).',
			itemIndex: options.itemIndex,
		});
	}
	// The whole file must have come by then: a body that stalls would otherwise hold the download forever.
	const allowedMs = DEFAULT_TIMEOUT_MS + transferTimeMs(options.expectedBytes ?? options.largestBytes);
	const request: IHttpRequestOptions = {
		method: 'GET',
		url,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: DEFAULT_TIMEOUT_MS,
		disableFollowRedirect: true,
	};
	return await exchange<T>(ctx, token, request, call, async (response) => {
		if (response.statusCode < 200 || response.statusCode >= 300) return await errorAnswer(response);
		const body = response.body as FileBody;
		let broke: unknown;
		const stopWatch = new AbortController();
		if (isStream(body)) {
			body.on('error', (error: unknown) => {
				broke ??= error;
			});
			void pause(allowedMs, stopWatch.signal).then(() => {
				if (stopWatch.signal.aborted) return;
				body.destroy(Object.assign(new Error(`the file had not come whole after ${Math.round(allowedMs / 1000)} s`), { code: 'ETIMEDOUT' }));
			});
		}
		try {
			return await store({ body, contentType: contentTypeOf(response) }).then(
				(value): Reading<T> => {
					const stored = options.storedBytes(value);
					const expected = options.expectedBytes;
					if (expected === undefined || stored === undefined || stored === expected) return { value };
					return { broken: Object.assign(new Error(`the file came incomplete (${stored} of ${expected} bytes)`), { code: INCOMPLETE_BODY }) };
				},
				(error: unknown): Reading<T> => {
					// The body broke: the service's failure, tried again.
					if (broke !== undefined) return { broken: broke };
					// n8n could not store the file (its disk, its database): that ends the download.
					throw new NodeOperationError(ctx.getNode(), redact(messageOf(error), token), { itemIndex: options.itemIndex });
				},
			);
		} finally {
			stopWatch.abort();
			// A body n8n did not read to its end (it could not store it) must not keep the connection open.
			if (isStream(body) && !body.destroyed) body.destroy();
		}
	});
}
