/**
 * A file's bytes, downloaded from where the service keeps it (what getFile answers) through the same
 * exchange as every call: the same failures, retries and redaction. The body is read no further than
 * the file may be (its stated size, else the service's limit), whatever the file server sends.
 */
import type { BinaryHelperFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Exchange, Reading, RetryPolicy } from './client';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, exchange, pause, transferTimeMs } from './client';
import { apiError, messageOf } from './failure';
import { readCredentialOf, redact, tokenPathSegment } from './token';
import type { FullResponse, ServiceBotContext } from './types';

/** A downloaded file's body as n8n's binary helpers take it: a stream (a buffer from an n8n that gives one). */
export type FileBody = Parameters<BinaryHelperFunctions['prepareBinaryData']>[0];

export interface FileResponse {
	readonly body: FileBody;
	/** The Content-Type the service sent, without parameters; undefined when none. */
	readonly contentType?: string;
}

export interface DownloadOptions {
	/** What is downloaded, for messages: "file '…'" (its file_id). Never the path or the URL: the URL holds the token. */
	readonly subject: string;
	readonly itemIndex?: number;
	/**
	 * The file's size as the service stated it: a shorter body came incomplete (asked again), a longer
	 * one is not the file (not read beyond it, not asked again); the time allowed grows with it.
	 */
	readonly expectedBytes?: number;
	/** The largest file there is to download (the service's limit): no body is read beyond it; the time allowed when the size is unknown. */
	readonly largestBytes: number;
	readonly retry?: Partial<RetryPolicy>;
}

/** The network code of a body shorter than the service said (a connection closed as if the file had ended). */
export const INCOMPLETE_BODY = 'EINCOMPLETE';

/**
 * A body that came larger than it may: more than the size the service stated (`stated`), or, with
 * none stated, more than the largest file there is (`limitBytes`, the service's limit).
 */
export interface Oversize {
	readonly limitBytes: number;
	readonly stated: boolean;
}

const oversizes = new WeakMap<object, Oversize>();

/** What an error of `downloadFile` says of a body that came too large; undefined for any other error. */
export function oversizeOf(error: unknown): Oversize | undefined {
	return error !== null && typeof error === 'object' ? oversizes.get(error) : undefined;
}

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

/** The Content-Length the file server announced; undefined when none (a chunked body) or unreadable. */
function announcedLength(response: FullResponse): number | undefined {
	const value = response.headers?.['content-length'];
	const length = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : typeof value === 'number' ? value : NaN;
	return Number.isSafeInteger(length) ? length : undefined;
}

/**
 * The body as `store` reads it, counted as it passes: it fails with `cut(received)` (so n8n keeps
 * none of it: its store removes what it was writing) as soon as more than `bound` bytes came, before
 * handing them on, and when it ends short of `expected`, before n8n sees it end. A buffer (an n8n
 * that gives one) is judged whole.
 *
 * A stream stays a stream, read only as n8n reads it: n8n's stores take a Readable (its filesystem
 * store iterates it, its buffering ones listen to its events), and the nodes may not import Node's
 * stream module, so the body's own `map` makes one: Readable's operators take any async iterable as
 * their source and pull from it only when read. (Its `compose` would not do: it reads ahead at once,
 * and an error then is thrown where nothing listens.)
 */
function bounded(body: FileBody, bound: number, expected: number | undefined, cut: (received: number) => Error): FileBody {
	if (!isStream(body)) {
		if (body.length > bound || (expected !== undefined && body.length < expected)) throw cut(body.length);
		return body;
	}
	async function* counted(): AsyncGenerator<Buffer> {
		let received = 0;
		for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
			const part = Buffer.from(chunk);
			received += part.length;
			// Leaving the loop ends (destroys) the response: nothing more is read.
			if (received > bound) throw cut(received);
			yield part;
		}
		if (expected !== undefined && received < expected) throw cut(received);
	}
	return body.map.call(counted(), (chunk: Buffer) => chunk) as Exclude<FileBody, Buffer>;
}

function contentTypeOf(response: FullResponse): string | undefined {
	const value = response.headers?.['content-type'];
	const type = typeof value === 'string' ? value.split(';')[0].trim().toLowerCase() : '';
	return type === '' ? undefined : type;
}

/**
 * Downloads the file the service keeps at `filePath` (what getFile answers) and hands its body to
 * `store` as it arrives: n8n's binary helpers write a stream to n8n's binary data store without
 * holding the file whole. The body `store` reads ends in an error as soon as it passes the stated
 * size (else the largest file there is), and when it ends short of the stated size, so n8n never
 * keeps a body that is not the file (its store removes what it was writing). A download only reads,
 * so a network error, a body cut off midway (or shorter than the service said) and a 5xx are tried
 * again (the policy of read-only calls), and 429s waited out; `store` runs again on a retry. A body
 * larger than it may be is not the file and will not become it: not asked again (`oversizeOf` tells
 * it). n8n not storing the file ends the download. Failures are `NodeApiError`s with a typed failure
 * and `subject` in their message, never the path or the URL.
 */
export async function downloadFile<T>(
	ctx: ServiceBotContext,
	filePath: string,
	store: (file: FileResponse) => Promise<T>,
	options: DownloadOptions,
): Promise<T> {
	const credential = await readCredentialOf(ctx);
	const { token } = credential;
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
	const expected = options.expectedBytes;
	const bound = Math.min(expected ?? options.largestBytes, options.largestBytes);
	/** A body too large, as the error that ends the download (not a transient failure: not asked again). */
	const tooLarge = (): never => {
		const stated = expected !== undefined && expected <= options.largestBytes;
		const error = apiError(ctx, token, { kind: 'malformed', status: 200 }, {
			method: call.method,
			httpCode: 502,
			message: stated
				? `The ${options.subject} came larger than the service said (${bound} bytes)`
				: `The ${options.subject} came larger than the largest file there is to download (${bound} bytes)`,
			description: 'The download was stopped there; nothing of it was kept, and it was not asked again.',
			itemIndex: options.itemIndex,
		});
		oversizes.set(error, { limitBytes: bound, stated });
		throw error;
	};
	return await exchange<T>(ctx, credential, request, call, async (response) => {
		if (response.statusCode < 200 || response.statusCode >= 300) return await errorAnswer(response);
		const body = response.body as FileBody;
		// Announced larger than it may be: not read at all.
		if ((announcedLength(response) ?? 0) > bound) {
			if (isStream(body)) body.destroy();
			tooLarge();
		}
		/** Where `bounded` cut the body: past the bound (too large), or short of the stated size (incomplete). */
		let cut: { readonly larger: boolean; readonly error: Error } | undefined;
		const cutAt = (received: number): Error => {
			const larger = received > bound;
			const error = larger
				? new Error(`the body passed ${bound} bytes`)
				: Object.assign(new Error(`the file came incomplete (${received} of ${expected} bytes)`), { code: INCOMPLETE_BODY });
			cut = { larger, error };
			return error;
		};
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
		let read: FileBody | undefined;
		try {
			read = bounded(body, bound, expected, cutAt);
			return { value: await store({ body: read, contentType: contentTypeOf(response) }) };
		} catch (error) {
			// The count decides first: a body cut here also closes its connection, which errs too.
			if (cut?.larger === true) return tooLarge();
			// Shorter than the service said: the connection closed as if the file had ended; tried again.
			if (cut !== undefined) return { broken: cut.error };
			// The body broke: the service's failure, tried again.
			if (broke !== undefined) return { broken: broke };
			// n8n could not store the file (its disk, its database): that ends the download.
			throw new NodeOperationError(ctx.getNode(), redact(messageOf(error), token), { itemIndex: options.itemIndex });
		} finally {
			stopWatch.abort();
			// A body n8n did not read to its end (it could not store it) must not keep the connection open.
			if (isStream(body) && !body.destroyed) body.destroy();
			if (read !== undefined && isStream(read) && !read.destroyed) read.destroy();
		}
	});
}
