/**
 * What a trigger receives: one Update (spec parts 2 and 6), described as zod schemas.
 *
 * Only `update_id` decides whether a body is an update at all. Everything else is read tolerantly:
 * the spec leaves most fields "not shown" and a Telegram-compatible service may add more, so a field
 * of an unexpected shape reads as absent instead of refusing the update. The update is always output
 * exactly as received; the parsed fields only serve the filters and the handy fields.
 */
import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod/v4';

import type { MediaKind } from '../files';
import { MEDIA_KINDS } from '../files';
import { isObject } from '../json';

/** A chat or user id as text: UUID strings as given (spec), Telegram-style integers in decimal. */
const Id = z.union([z.string().trim().min(1), z.int()]).transform(String);
const Int = z.int();

/** A field that reads as absent when it is missing or not of the expected shape. */
function tolerant<T extends z.ZodType>(schema: T) {
	return schema.optional().catch(undefined);
}

const Chat = z.looseObject({ id: Id });
const User = z.looseObject({ id: Id });

/**
 * The object an update carries under its type's name. Messages and callback queries are the spec's
 * two types; any other type is read the same way when its payload has `chat`, `from` or a `message`.
 */
const Payload = z.looseObject({
	id: tolerant(Id),
	message_id: tolerant(Int),
	chat: tolerant(Chat),
	from: tolerant(User),
	text: tolerant(z.string()),
	caption: tolerant(z.string()),
	data: tolerant(z.string()),
	message: tolerant(z.looseObject({ message_id: tolerant(Int), chat: tolerant(Chat) })),
});

/**
 * One file a message carries: a size of a photo, or a document, voice note or video (Telegram's
 * fields; the spec shows none of them). Only `file_id` is needed to fetch it.
 */
const ServiceFile = z.looseObject({
	file_id: z.string().trim().min(1),
	file_unique_id: tolerant(z.string()),
	file_size: tolerant(z.number().nonnegative()),
	width: tolerant(z.number()),
	height: tolerant(z.number()),
	duration: tolerant(z.number().nonnegative()),
	file_name: tolerant(z.string()),
	mime_type: tolerant(z.string()),
});

const Update = z.looseObject({
	update_id: z.int({ error: 'update_id must be an integer' }),
});

/**
 * Only the `update_id` of an entry `getUpdates` returned, without reading the rest: what an offset
 * is made of (an id below 0 could never acknowledge anything, so it counts as none).
 */
export function updateIdOf(body: unknown): number | undefined {
	const id = isObject(body) ? body.update_id : undefined;
	return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
}

/** A file of a message as read. */
export interface ReceivedFile {
	readonly fileId: string;
	readonly fileUniqueId?: string;
	readonly fileSize?: number;
	readonly width?: number;
	readonly height?: number;
	/** A voice note's or video's length in seconds. */
	readonly duration?: number;
	readonly fileName?: string;
	readonly mimeType?: string;
}

/** What file a message carries: its kind, and its sizes smallest first (one for anything but a photo). */
export interface ReceivedMedia {
	readonly kind: MediaKind;
	readonly sizes: readonly ReceivedFile[];
}

/** An update as the trigger understands it, next to the body exactly as it arrived. */
export interface ReceivedUpdate {
	readonly updateId: number;
	/** The first field besides `update_id` that holds an object: `message`, `callback_query`, … */
	readonly type: string | undefined;
	readonly body: IDataObject;
	readonly chatId: string | undefined;
	readonly user: IDataObject | undefined;
	readonly userId: string | undefined;
	readonly messageId: number | undefined;
	/** A message's text, or its caption. */
	readonly text: string | undefined;
	readonly callbackData: string | undefined;
	readonly callbackQueryId: string | undefined;
	/** The file a message carries (a photo, document, voice note or video); never a click's. */
	readonly media: ReceivedMedia | undefined;
}

type ParsedUpdate = { ok: true; update: ReceivedUpdate } | { ok: false; reason: string };

function typeOf(body: IDataObject): string | undefined {
	for (const [key, value] of Object.entries(body)) {
		if (key !== 'update_id' && isObject(value)) return key;
	}
	return undefined;
}

function fileOf(value: unknown): ReceivedFile | undefined {
	const parsed = ServiceFile.safeParse(value);
	if (!parsed.success) return undefined;
	const file = parsed.data;
	return {
		fileId: file.file_id,
		fileUniqueId: file.file_unique_id,
		fileSize: file.file_size,
		width: file.width,
		height: file.height,
		duration: file.duration,
		fileName: file.file_name,
		mimeType: file.mime_type,
	};
}

/**
 * A photo's sizes, smallest first. Telegram sends them so; they are put in that order by their
 * pixels when every size states them, so a service listing them otherwise still gets the right one.
 */
function photoSizes(value: unknown): ReceivedFile[] {
	const sizes = (Array.isArray(value) ? value : []).map(fileOf).filter((size): size is ReceivedFile => size !== undefined);
	const pixels = (size: ReceivedFile): number | undefined =>
		size.width !== undefined && size.height !== undefined ? size.width * size.height : undefined;
	if (sizes.some((size) => pixels(size) === undefined)) return sizes;
	return sizes
		.map((size, index) => ({ size, index }))
		.sort((a, b) => (pixels(a.size) ?? 0) - (pixels(b.size) ?? 0) || (a.size.fileSize ?? 0) - (b.size.fileSize ?? 0) || a.index - b.index)
		.map(({ size }) => size);
}

/** The file of a message: the first of its media fields that holds one (a message carries one). */
function mediaOf(message: IDataObject): ReceivedMedia | undefined {
	for (const kind of MEDIA_KINDS) {
		const sizes = kind === 'photo' ? photoSizes(message.photo) : [fileOf(message[kind])].filter((file): file is ReceivedFile => file !== undefined);
		if (sizes.length > 0) return { kind, sizes };
	}
	return undefined;
}

/** Reads one received body. Never throws: a body that is not an update says why. */
export function parseUpdate(body: unknown): ParsedUpdate {
	if (!isObject(body)) return { ok: false, reason: 'the body is not a JSON object' };
	const update = Update.safeParse(body);
	if (!update.success) return { ok: false, reason: update.error.issues[0]?.message ?? 'update_id must be an integer' };

	const type = typeOf(body);
	const parsed = type === undefined ? undefined : Payload.safeParse(body[type]);
	const payload = parsed?.success === true ? parsed.data : undefined;
	const raw = type === undefined ? undefined : (body[type] as IDataObject);
	const isClick = type === 'callback_query';
	// A message names its chat; a click names the chat of the message holding the button.
	const chatId = payload?.chat?.id ?? payload?.message?.chat?.id;
	const messageId = isClick ? payload?.message?.message_id : payload?.message_id;
	return {
		ok: true,
		update: {
			updateId: update.data.update_id,
			type,
			body,
			chatId,
			// The user as received (the parsed id is text; the output keeps the service's own value).
			user: payload?.from ? (raw?.from as IDataObject) : undefined,
			userId: payload?.from?.id,
			messageId,
			text: isClick ? undefined : (payload?.text ?? payload?.caption),
			callbackData: isClick ? payload?.data : undefined,
			callbackQueryId: isClick ? payload?.id : undefined,
			media: !isClick && raw !== undefined && isObject(raw) ? mediaOf(raw) : undefined,
		},
	};
}
