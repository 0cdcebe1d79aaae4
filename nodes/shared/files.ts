/**
 * A file kept by the service, as n8n binary data: what both nodes fetch (the action node's Get File,
 * the triggers' Download Files). The spec shows no download; Telegram's convention, which the
 * service follows: `getFile` with a `file_id` answers `{file_id, file_unique_id, file_size,
 * file_path}`, and the bytes are at the file path (the transport's `downloadFile`), for files up to
 * 20 MB. The bytes are streamed into n8n's binary data store as they come, and no further than the
 * file may be: getFile's size, else the limit (the transport's download stops there).
 *
 * A file gets the name and type the message gave it (a document's `file_name` and `mime_type`); a
 * photo has neither (Telegram's photos are JPEG), and Telegram's file server answers every file as
 * `application/octet-stream`, so what is missing is made up from what is known. The name is never
 * taken from the download's URL, which holds the bot token: n8n's helper would do that for a stream
 * given without a name.
 */
import type { IBinaryData, IExecuteFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';
import { z } from 'zod/v4';

import { LIMITS } from './spec';
import { apiRequest } from './transport/client';
import type { FileResponse } from './transport/download';
import { INCOMPLETE_BODY, downloadFile, oversizeOf } from './transport/download';
import { failureOf, messageOf } from './transport/failure';

/** The contexts that may store binary data: the action node, the webhook and the polling trigger. */
export type FileContext = IExecuteFunctions | IWebhookFunctions | ITriggerFunctions;

/** The kinds of file a message carries (Telegram's fields of the same names). */
export const MEDIA_KINDS = ['photo', 'document', 'voice', 'video'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** What is known of a file before it is fetched: from a message, or only its ID (Get File). */
export interface FileFacts {
	readonly fileId: string;
	readonly kind?: MediaKind;
	readonly fileUniqueId?: string;
	readonly fileName?: string;
	readonly mimeType?: string;
	readonly fileSize?: number;
}

const DOWNLOAD_LIMIT = LIMITS.downloadBytes.max;

/** Telegram's photos are JPEG: the type and extension of a photo no header or name describes. */
const PHOTO = { mimeType: 'image/jpeg', extension: 'jpg' } as const;

const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** "23.4 MB" (MB of 1,048,576 bytes, as file managers show sizes). */
export function megabytes(bytes: number): string {
	return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** The limit as users read it: "20 MB". */
const LIMIT_TEXT = `${DOWNLOAD_LIMIT / 1_048_576} MB`;

function quoted(fileId: string): string {
	return `'${fileId.length > 80 ? `${fileId.slice(0, 79)}…` : fileId}'`;
}

/** A file as a failure names it: by the name its sender gave it (what the user sees), else by its ID. */
export interface NamedFile {
	readonly fileId: string;
	readonly fileName?: string;
}

function named(file: NamedFile): string {
	return quoted(safeName(file.fileName) ?? file.fileId);
}

/** What getFile answers (Telegram's File); a field of an unexpected shape reads as absent. */
const ServiceFile = z.looseObject({
	file_id: z.string().optional().catch(undefined),
	file_unique_id: z.string().optional().catch(undefined),
	file_size: z.number().nonnegative().optional().catch(undefined),
	file_path: z.string().optional().catch(undefined),
});
export type ServiceFile = z.infer<typeof ServiceFile>;

/** A getFile result read tolerantly; anything that is not an object reads as a file without a path. */
export function serviceFileOf(result: unknown): ServiceFile {
	const parsed = ServiceFile.safeParse(result);
	return parsed.success ? parsed.data : {};
}

/**
 * Over the limit: what the file is (its size; or, `cameLarger`, that its bytes went past the limit
 * where nothing said its size), and `next`, what to do (the trigger: its metadata is on the item).
 */
export function tooBigText(file: NamedFile, bytes: number | undefined, next: string, cameLarger = false): string {
	const size = bytes !== undefined ? ` (the file is ${megabytes(bytes)})` : cameLarger ? ` (it came larger than ${LIMIT_TEXT})` : '';
	return `File ${named(file)} is over the service's ${LIMIT_TEXT} download limit for bots${size}: ${next}`;
}

/** The service does not know the ID (another bot's, mistyped, or no longer kept); `said` is its own words. */
export function unknownFileText(fileId: string, said: string): string {
	return `The service does not know file ID ${quoted(fileId)} (${said}): use the file_id of a file this bot received or sent (another bot's file IDs do not work), e.g. {{ $json.file_id }} after a Service Bot trigger`;
}

/** What to do about a file over the limit where nothing else is on hand (Get File). */
export const ASK_FOR_A_SMALLER_FILE = 'bots cannot download it; ask the sender for a smaller file, or for a link to it';

/** The refusals of getFile about the file itself, as the service words them (Telegram's). */
export const GET_FILE_REFUSALS = {
	tooBig: /too big/i,
	unknown: /file_id|file id|file not found|wrong file/i,
} as const;

/** A file the message says is over the limit: it is not asked for. */
export class FileTooBig extends Error {
	constructor(
		readonly fileId: string,
		readonly bytes: number,
	) {
		super(tooBigText({ fileId }, bytes, ASK_FOR_A_SMALLER_FILE));
	}
}

/**
 * What stands between a file and the workflow: its size (over the limit, stated or as it came: no use
 * asking again), the service not knowing its ID (neither), or a download that failed (it may work
 * later; a body larger than the service said too, which is the service's fault).
 */
export function problemOf(error: unknown): 'tooBig' | 'unknown' | 'failed' {
	if (error instanceof FileTooBig) return 'tooBig';
	const oversize = oversizeOf(error);
	if (oversize !== undefined) return oversize.stated ? 'failed' : 'tooBig';
	const failure = failureOf(error);
	if (failure?.kind !== 'refused' || failure.status !== 400) return 'failed';
	if (GET_FILE_REFUSALS.tooBig.test(failure.description)) return 'tooBig';
	return GET_FILE_REFUSALS.unknown.test(failure.description) ? 'unknown' : 'failed';
}

/**
 * Why a file could not be fetched, in one sentence that names the file (by its name when the message
 * gave one, else its ID; never its path or URL):
 * over the limit (with `tooBigNext`, what to do), unknown to the service, the typed failure of the
 * download, or n8n not storing it.
 */
export function failureText(error: unknown, file: NamedFile, tooBigNext: string): string {
	const failure = failureOf(error);
	const problem = problemOf(error);
	const oversize = oversizeOf(error);
	if (problem === 'tooBig') return tooBigText(file, error instanceof FileTooBig ? error.bytes : undefined, tooBigNext, oversize !== undefined);
	if (problem === 'unknown' && failure?.kind === 'refused') return unknownFileText(file.fileId, failure.description);
	const what = `Could not download file ${named(file)}`;
	if (oversize !== undefined) {
		return `${what}: the file came larger than the service said (getFile gave ${oversize.limitBytes.toLocaleString('en-US')} bytes); it was not kept nor asked again`;
	}
	switch (failure?.kind) {
		case undefined:
			return `${what}: n8n could not store it (${messageOf(error)})`;
		case 'refused':
			return `${what}: the service refused (${failure.description}, HTTP ${failure.status})`;
		case 'serverError':
			return `${what}: the service answered HTTP ${failure.status}, also when asked again`;
		case 'network':
			if (failure.code === INCOMPLETE_BODY) return `${what}: it came incomplete, also when asked again`;
			return `${what}: the service could not be reached${failure.code ? ` (${failure.code})` : ''}, also when asked again`;
		case 'timeout':
			return `${what}: the service did not send it in time, also when asked again`;
		case 'malformed':
			return `${what}: the service's answer was not the file (no usable file_path, or not the file's bytes)`;
		case 'cancelled':
			return `${what}: the download was cancelled`;
	}
}

/**
 * What a name shown as text must not hold: control characters (C0, DEL, C1), line and paragraph
 * separators, and the invisible format characters (Unicode's Cf): the bidi controls (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C) that reorder what is shown (`invoice\u202Efdp.exe` reads as
 * "invoiceexe.pdf"), zero-width spaces, joiners of words, byte order marks, soft hyphens, tags. The
 * zero-width joiner and non-joiner stay: they join letters (Persian, Indic scripts) and emoji, and
 * reorder nothing.
 */
const HIDDEN_CHARACTERS = /[\p{Cc}\p{Zl}\p{Zp}]|(?![\u200C\u200D])\p{Cf}/gu;

/**
 * A name for n8n's binary data: no folders (n8n would keep them as the file's directory), nothing
 * invisible that could disguise what the name says (HIDDEN_CHARACTERS).
 */
function safeName(name: string | undefined): string | undefined {
	const last = (name ?? '').split(/[\\/]/).pop() ?? '';
	const base = last.replace(HIDDEN_CHARACTERS, '').trim();
	if (base === '' || base === '.' || base === '..') return undefined;
	return base.length > 200 ? base.slice(base.length - 200) : base;
}

function extensionOf(name: string | undefined): string | undefined {
	return /\.([A-Za-z0-9]{1,10})$/.exec(name ?? '')?.[1].toLowerCase();
}

/**
 * The file's name: the message's (a document's, a video's), else the kind and the file's unique ID
 * with the extension of the service's file path (`photo_AgADx….jpg`); a photo without one is a JPEG.
 */
export function fileNameOf(facts: FileFacts, file: ServiceFile): string {
	const given = safeName(facts.fileName);
	if (given !== undefined) return given;
	const id = (facts.fileUniqueId ?? file.file_unique_id ?? facts.fileId).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'file';
	const extension = extensionOf(file.file_path) ?? (facts.kind === 'photo' ? PHOTO.extension : undefined);
	return `${facts.kind ?? 'file'}_${id}${extension ? `.${extension}` : ''}`;
}

/**
 * The file's MIME type: the message's, else the type the download was answered with (unless it is
 * the generic `application/octet-stream`), else a photo's JPEG. Left to n8n (which looks the name's
 * extension up) when the name has one; `application/octet-stream` when nothing says more.
 */
export function mimeTypeOf(facts: FileFacts, answered: string | undefined, fileName: string): string | undefined {
	if (facts.mimeType !== undefined && MIME_TYPE.test(facts.mimeType)) return facts.mimeType;
	if (answered !== undefined && answered !== 'application/octet-stream' && MIME_TYPE.test(answered)) return answered;
	if (facts.kind === 'photo') return PHOTO.mimeType;
	return extensionOf(fileName) === undefined ? 'application/octet-stream' : undefined;
}

/**
 * The bytes of a file getFile described, into n8n's binary data (streamed: not held whole), with its
 * name and type. A file over the limit is not asked for. Throws what `failureText` explains.
 */
export async function downloadInto(ctx: FileContext, file: ServiceFile, facts: FileFacts, itemIndex?: number): Promise<IBinaryData> {
	const size = file.file_size ?? facts.fileSize;
	if (size !== undefined && size > DOWNLOAD_LIMIT) throw new FileTooBig(facts.fileId, size);
	const fileName = fileNameOf(facts, file);
	return await downloadFile(
		ctx,
		file.file_path ?? '',
		async (answer: FileResponse) => await ctx.helpers.prepareBinaryData(answer.body, fileName, mimeTypeOf(facts, answer.contentType, fileName)),
		{
			subject: `file ${quoted(facts.fileId)}`,
			itemIndex,
			// getFile's size is the file's: a shorter body came incomplete, a longer one is not the file.
			expectedBytes: file.file_size,
			largestBytes: DOWNLOAD_LIMIT,
		},
	);
}

/**
 * A file a message described: getFile, then its bytes. A file the message says is over the limit is
 * not asked for at all. Throws what `failureText` explains.
 */
export async function fetchFile(ctx: FileContext, facts: FileFacts): Promise<IBinaryData> {
	if (facts.fileSize !== undefined && facts.fileSize > DOWNLOAD_LIMIT) throw new FileTooBig(facts.fileId, facts.fileSize);
	const file = serviceFileOf(await apiRequest(ctx, 'getFile', { file_id: facts.fileId }, { idempotent: true }));
	return await downloadInto(ctx, file, facts);
}
