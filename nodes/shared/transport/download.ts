/**
 * A file's bytes, downloaded from where the service keeps it (what getFile answers) through the same
 * exchange as every call: the same failures, retries and redaction.
 */
import type { BinaryHelperFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Exchange, Reading, RetryPolicy } from './client';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, exchange, pause, transferTimeMs } from './client';
import { apiError, messageOf } from './failure';
import { redact, tokenOf, tokenPathSegment } from './token';
import type { FullResponse, ServiceBotContext } from './types';

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
