/**
 * What the trigger reads out of an update: its type, chat and user, for the filters and for the
 * optional handy fields. Resolution covers messages and callback queries (the spec's two types)
 * and, generically, any other type whose payload carries `chat` / `from` / `message.chat`.
 */
import type { IDataObject } from 'n8n-workflow';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An identifier as text: UUID strings as given, Telegram-style integers as decimal strings. */
function idOf(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/** Normalised for comparison: UUIDs may arrive in either case. */
export function normaliseId(value: string): string {
	return value.trim().toLowerCase();
}

/** `"a, b\nc"` → `['a', 'b', 'c']` (normalised); empty text → empty list (no restriction). */
export function parseIdList(text: unknown): string[] {
	if (typeof text !== 'string') return [];
	return text
		.split(/[\s,;]+/)
		.map(normaliseId)
		.filter((id) => id !== '');
}

/** A well-formed update: a JSON object with an integer `update_id`. */
export function isUpdate(body: unknown): body is Json & { update_id: number } {
	return isObject(body) && typeof body.update_id === 'number' && Number.isInteger(body.update_id);
}

/** The update's type: the first field besides `update_id` that holds an object. */
export function updateTypeOf(update: Json): string | undefined {
	for (const [key, value] of Object.entries(update)) {
		if (key !== 'update_id' && isObject(value)) return key;
	}
	return undefined;
}

function payloadOf(update: Json, type: string | undefined): Json | undefined {
	if (type === undefined) return undefined;
	const payload = update[type];
	return isObject(payload) ? payload : undefined;
}

/** The chat of a message (`message.chat.id`) or of a click (`callback_query.message.chat.id`). */
export function chatIdOf(update: Json, type = updateTypeOf(update)): string | undefined {
	const payload = payloadOf(update, type);
	if (!payload) return undefined;
	if (isObject(payload.chat)) return idOf(payload.chat.id);
	if (isObject(payload.message) && isObject(payload.message.chat)) return idOf(payload.message.chat.id);
	return undefined;
}

/** The acting user: the sender of a message, the clicking user of a callback query. */
export function userOf(update: Json, type = updateTypeOf(update)): Json | undefined {
	const payload = payloadOf(update, type);
	return payload && isObject(payload.from) ? payload.from : undefined;
}

export function userIdOf(update: Json, type = updateTypeOf(update)): string | undefined {
	const user = userOf(update, type);
	return user ? idOf(user.id) : undefined;
}

export interface Filters {
	/** Update types to run for; empty = all. */
	types: readonly string[];
	/** Normalised chat IDs; empty = any chat. */
	chatIds: readonly string[];
	/** Normalised user IDs; empty = any user. */
	userIds: readonly string[];
}

export type FilterVerdict =
	| { pass: true; type: string | undefined }
	| { pass: false; reason: string };

/**
 * Applies the type filter and the allow-lists. Fails closed: when an allow-list is set, an update
 * whose chat (or user) cannot be resolved is dropped rather than let through.
 */
export function applyFilters(update: Json, filters: Filters): FilterVerdict {
	const type = updateTypeOf(update);
	if (filters.types.length > 0 && (type === undefined || !filters.types.includes(type))) {
		return { pass: false, reason: `update type ${type ?? '(unknown)'} is not selected in Trigger On` };
	}
	if (filters.chatIds.length > 0) {
		const chatId = chatIdOf(update, type);
		if (chatId === undefined) return { pass: false, reason: 'the chat of the update cannot be resolved' };
		if (!filters.chatIds.includes(normaliseId(chatId))) {
			return { pass: false, reason: 'the chat is not in the chat allow-list' };
		}
	}
	if (filters.userIds.length > 0) {
		const userId = userIdOf(update, type);
		if (userId === undefined) return { pass: false, reason: 'the user of the update cannot be resolved' };
		if (!filters.userIds.includes(normaliseId(userId))) {
			return { pass: false, reason: 'the user is not in the user allow-list' };
		}
	}
	return { pass: true, type };
}

/**
 * The update as received plus top-level shortcuts, so later nodes need no long expressions:
 * `update_type`, `chat_id`, `message_id`, `user_id`, `user`, `text`, `callback_data`,
 * `callback_query_id`. A field the update does not have is set to null, so the shape is stable.
 */
export function withHandyFields(update: Json): IDataObject {
	const type = updateTypeOf(update);
	const payload = payloadOf(update, type);
	const user = userOf(update, type);
	const message =
		type === 'callback_query' ? (payload && isObject(payload.message) ? payload.message : undefined) : payload;
	const messageId = message && typeof message.message_id === 'number' ? message.message_id : null;
	const text =
		payload && typeof payload.text === 'string'
			? payload.text
			: payload && typeof payload.caption === 'string'
				? payload.caption
				: null;
	return {
		...(update as IDataObject),
		update_type: type ?? null,
		chat_id: chatIdOf(update, type) ?? null,
		message_id: messageId,
		user_id: userIdOf(update, type) ?? null,
		user: (user as IDataObject | undefined) ?? null,
		text: type === 'callback_query' ? null : text,
		callback_data: type === 'callback_query' && payload && typeof payload.data === 'string' ? payload.data : null,
		callback_query_id: type === 'callback_query' && payload ? (idOf(payload.id) ?? null) : null,
	};
}
