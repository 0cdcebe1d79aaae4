/**
 * Files users send, on the trigger's item: the handy fields that say what arrived (`file_summary`
 * in words, `file_kind`, `file_id`, `file_name`, `mime_type`, `file_size`, and for the size the fields describe
 * `file_width`, `file_height`, `file_duration`), and with Download Files the file itself as
 * binary data in `data`, so Trigger → AI Agent sees a photo and a voice note goes to a transcription
 * node with nothing to map. A file that cannot be downloaded never costs the message: the item runs
 * with `file_error` saying why and what to do, its file_id and metadata still on it.
 */
import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FileContext, FileFacts, MediaKind } from '../files';
import { failureText, fetchFile, megabytes, problemOf } from '../files';
import { redact, tokenOf } from '../transport/token';
import type { ReceivedFile, ReceivedUpdate } from './update';

/** Which size of a photo the fields describe and Download Files fetches (the service sends several). */
export const PHOTO_SIZES = ['largest', 'medium', 'smallest'] as const;
export type PhotoSize = (typeof PHOTO_SIZES)[number];

export interface FileSettings {
	/** Download Files: the file of a message on its item as binary data. */
	readonly downloadFiles: boolean;
	readonly photoSize: PhotoSize;
}

/** Where the file goes on the item, the name n8n's AI Agent and transcription nodes read by default. */
export const BINARY_FIELD = 'data';

/** The next step a trigger's item gives for a file over the limit. */
const METADATA_ON_THE_ITEM = 'it was not downloaded; its file_id and metadata are on the item';

/** Where a failed download leaves the user. */
const FAILED_NEXT = 'The message ran without it: its file_id is on the item, to fetch it later with Service Bot → File → Get File';

/** The size of a photo chosen; medium is the middle one (of an even number, the smaller of the two). */
function sizeOf(sizes: readonly ReceivedFile[], photoSize: PhotoSize): ReceivedFile {
	if (photoSize === 'smallest') return sizes[0];
	if (photoSize === 'medium') return sizes[Math.floor((sizes.length - 1) / 2)];
	return sizes[sizes.length - 1];
}

/** A file of a message: what fetching it needs, and what it shows (pixels, seconds) when the message says. */
export interface MessageFile extends FileFacts {
	readonly width?: number;
	readonly height?: number;
	readonly duration?: number;
}

/** The file the update's message carries, in the chosen size for a photo; undefined when none. */
export function fileOfUpdate(update: ReceivedUpdate, photoSize: PhotoSize): MessageFile | undefined {
	const { media } = update;
	if (!media) return undefined;
	const file = sizeOf(media.sizes, photoSize);
	return {
		kind: media.kind,
		fileId: file.fileId,
		fileUniqueId: file.fileUniqueId,
		fileName: file.fileName,
		mimeType: file.mimeType,
		fileSize: file.fileSize,
		width: file.width,
		height: file.height,
		duration: file.duration,
	};
}

/** How a file's kind reads in a sentence. */
const KIND_IN_WORDS: Record<MediaKind, string> = { photo: 'photo', document: 'document', voice: 'voice note', video: 'video' };

/** A size in bytes as people read it: `512 bytes`, `12.3 KB`, `2.1 MB` (1 KB = 1,024 bytes, as the files bot example divides). */
function bytesInWords(bytes: number): string {
	if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return megabytes(bytes);
}

/** Seconds as a clock reads them: `0:07`, `3:05`, `1:02:03`. */
function durationInWords(seconds: number): string {
	const whole = Math.round(seconds);
	const two = (value: number): string => String(value).padStart(2, '0');
	const hours = Math.floor(whole / 3600);
	const minutes = Math.floor((whole % 3600) / 60);
	return hours > 0 ? `${hours}:${two(minutes)}:${two(whole % 60)}` : `${minutes}:${two(whole % 60)}`;
}

/**
 * What arrived, in words, for a reply with one mapping (`Got your {{ $json.file_summary }}`): the kind
 * and name, then what the message says of it: pixels, length, size. `photo, 1600×1000, 745.2 KB`,
 * `document report.pdf, 12.3 KB`, `voice note, 0:07, 9.8 KB`, `video clip.mp4, 1280×720, 0:12, 2.1 MB`.
 */
function summaryOf(file: MessageFile): string {
	const kind = file.kind ? KIND_IN_WORDS[file.kind] : 'file';
	const parts = [file.fileName ? `${kind} ${file.fileName}` : kind];
	if (file.width !== undefined && file.height !== undefined) parts.push(`${file.width}×${file.height}`);
	if (file.duration !== undefined) parts.push(durationInWords(file.duration));
	if (file.fileSize !== undefined) parts.push(bytesInWords(file.fileSize));
	return parts.join(', ');
}

/**
 * The handy fields of a file (null each when the message has none), so every item has the same shape.
 * The dimensions are the described size's: a photo's `photo[2].width` dragged from the update names
 * a fixed index, which is another size (or none) for a photo sent smaller.
 */
export function fileFields(file: MessageFile | undefined): IDataObject {
	return {
		file_summary: file ? summaryOf(file) : null,
		file_kind: file?.kind ?? null,
		file_id: file?.fileId ?? null,
		file_name: file?.fileName ?? null,
		mime_type: file?.mimeType ?? null,
		file_size: file?.fileSize ?? null,
		file_width: file?.width ?? null,
		file_height: file?.height ?? null,
		file_duration: file?.duration ?? null,
	};
}

/** Whether an execution of these updates has a file to download. */
export function hasFilesToDownload(updates: readonly ReceivedUpdate[], settings: FileSettings): boolean {
	return settings.downloadFiles && updates.some((update) => update.media !== undefined);
}

/** The binary field of the `index`-th file of an execution: `data`, then `data_2`, `data_3`, … */
function binaryField(index: number): string {
	return index === 0 ? BINARY_FIELD : `${BINARY_FIELD}_${index + 1}`;
}

/**
 * The item of an execution with the files of its messages (one, or those Group Messages Within
 * gathered, in order): with Download Files each goes into binary data, `data` first, and
 * `file_error` (null on every item, output.ts) says, for each file that could not be fetched, why
 * and what to do. Without Download Files the item is as it was. Never throws.
 */
export async function withFiles(
	ctx: FileContext,
	updates: readonly ReceivedUpdate[],
	json: IDataObject,
	settings: FileSettings,
): Promise<INodeExecutionData> {
	if (!settings.downloadFiles) return { json };
	const files = updates.map((update) => fileOfUpdate(update, settings.photoSize)).filter((file): file is FileFacts => file !== undefined);
	const binary: IBinaryKeyData = {};
	const errors: string[] = [];
	// For the redaction of what is said about a failure (read already by the requests that failed).
	const token = await tokenOf(ctx).catch(() => '');
	// One after another: an execution's files are few, and each is streamed, not held.
	for (const [index, file] of files.entries()) {
		try {
			binary[binaryField(index)] = await fetchFile(ctx, file);
		} catch (error) {
			const text = failureText(error, file, METADATA_ON_THE_ITEM);
			// The item runs all the same; only a failed download is worth fetching again later.
			const said = redact(problemOf(error) === 'failed' ? `${text}. ${FAILED_NEXT}` : text, token);
			errors.push(said);
			ctx.logger.warn(`"${ctx.getNode().name}": ${said}`);
		}
	}
	const item: INodeExecutionData = { json: { ...json, file_error: errors.length > 0 ? errors.join('\n') : null } };
	if (Object.keys(binary).length > 0) item.binary = binary;
	return item;
}
