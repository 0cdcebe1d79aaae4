import { BUTTON_URL_SCHEMES, LIMITS } from '../spec';
import type {
	ForceReply,
	InlineKeyboardButton,
	InlineKeyboardMarkup,
	KeyboardButton,
	ReplyKeyboardMarkup,
	ReplyKeyboardRemove,
	ReplyMarkup,
} from './types';
import { badRequest, isRecord, utf8Bytes } from './util';

const INLINE_ACTIONS = ['callback_data', 'url', 'switch_inline_query'] as const;

export function isInlineKeyboard(m: ReplyMarkup | undefined): m is InlineKeyboardMarkup {
	return m !== undefined && 'inline_keyboard' in m;
}

/** One of the spec's button URL schemes; a web URL needs a host, the application scheme some text. */
export function validateButtonUrl(url: string): boolean {
	const scheme = BUTTON_URL_SCHEMES.find((candidate) => url.toLowerCase().startsWith(candidate));
	if (scheme === undefined) return false;
	if (scheme !== 'https:' && scheme !== 'http:') return url.length > scheme.length;
	try {
		return new URL(url).hostname !== '';
	} catch {
		return false;
	}
}

function parseInlineButton(b: unknown, r: number, c: number): InlineKeyboardButton {
	const where = `inline keyboard button ${r + 1}:${c + 1}`;
	if (!isRecord(b)) throw badRequest(`can't parse ${where}: expected an Object`);
	if (b.text === undefined || b.text === null) throw badRequest(`can't parse ${where}: field "text" is required`);
	if (typeof b.text !== 'string') throw badRequest(`can't parse ${where}: field "text" must be of type String`);
	if (b.text.length === 0) throw badRequest(`${where}: text must be non-empty`);
	if (b.text.length > LIMITS.inlineButtonText.max) throw badRequest(`${where}: text is too long (at most ${LIMITS.inlineButtonText.max} characters)`);
	const present = INLINE_ACTIONS.filter((k) => b[k] !== undefined && b[k] !== null);
	if (present.length === 0) throw badRequest(`${where}: text buttons are unallowed in the inline keyboard; exactly one of callback_data, url, switch_inline_query must be used`);
	if (present.length > 1) throw badRequest(`${where}: exactly one of the optional fields must be used, got ${present.join(', ')}`);
	const action = present[0];
	const value = b[action];
	if (typeof value !== 'string') throw badRequest(`can't parse ${where}: field "${action}" must be of type String`);
	const out: InlineKeyboardButton = { text: b.text };
	if (action === 'callback_data') {
		const n = utf8Bytes(value);
		const { min, max } = LIMITS.callbackDataBytes;
		if (n < min || n > max) throw badRequest(`BUTTON_DATA_INVALID: callback_data must be ${min} to ${max} bytes in UTF-8, got ${n}`);
		out.callback_data = value;
	} else if (action === 'url') {
		if (!validateButtonUrl(value)) throw badRequest(`${where}: URL '${value}' is invalid: unsupported URL protocol (use https://, http:// or service:)`);
		out.url = value;
	} else {
		out.switch_inline_query = value;
	}
	return out;
}

export function parseInlineKeyboard(m: Record<string, unknown>): InlineKeyboardMarkup {
	const rows = m.inline_keyboard;
	if (!Array.isArray(rows)) throw badRequest('field "inline_keyboard" must be an Array');
	if (rows.length > LIMITS.inlineKeyboardRows.max) throw badRequest(`reply markup is too long: at most ${LIMITS.inlineKeyboardRows.max} rows in an inline keyboard, got ${rows.length}`);
	const out: InlineKeyboardButton[][] = rows.map((row, r) => {
		if (!Array.isArray(row)) throw badRequest(`inline keyboard row ${r + 1} must be an Array`);
		const { min, max } = LIMITS.buttonsPerRow;
		if (row.length < min) throw badRequest(`inline keyboard row ${r + 1} is empty: ${min} to ${max} buttons per row`);
		if (row.length > max) throw badRequest(`too many buttons in inline keyboard row ${r + 1}: ${min} to ${max} buttons per row, got ${row.length}`);
		return row.map((b, c) => parseInlineButton(b, r, c));
	});
	return { inline_keyboard: out };
}

function parseReplyKeyboard(m: Record<string, unknown>): ReplyKeyboardMarkup {
	const rows = m.keyboard;
	if (!Array.isArray(rows)) throw badRequest('field "keyboard" must be an Array');
	if (rows.length === 0) throw badRequest('keyboard must be non-empty');
	const keyboard: KeyboardButton[][] = rows.map((row, r) => {
		if (!Array.isArray(row)) throw badRequest(`keyboard row ${r + 1} must be an Array`);
		if (row.length === 0) throw badRequest(`keyboard row ${r + 1} is empty`);
		return row.map((b, c): KeyboardButton => {
			const text = typeof b === 'string' ? b : isRecord(b) ? b.text : undefined;
			if (typeof text !== 'string' || text.length === 0) {
				throw badRequest(`can't parse keyboard button ${r + 1}:${c + 1}: field "text" must be a non-empty String`);
			}
			return { text };
		});
	});
	const out: ReplyKeyboardMarkup = { keyboard };
	for (const k of ['resize_keyboard', 'one_time_keyboard', 'selective', 'is_persistent'] as const) {
		if (m[k] === undefined || m[k] === null) continue;
		if (typeof m[k] !== 'boolean') throw badRequest(`field "${k}" must be of type Boolean`);
		out[k] = m[k];
	}
	if (m.input_field_placeholder !== undefined && m.input_field_placeholder !== null) {
		if (typeof m.input_field_placeholder !== 'string') throw badRequest('field "input_field_placeholder" must be of type String');
		out.input_field_placeholder = m.input_field_placeholder;
	}
	return out;
}

/**
 * Validates and normalizes a `reply_markup` value (object, or a JSON string holding one).
 * With `inlineOnly` (edit methods) only an inline keyboard is accepted.
 */
export function parseReplyMarkup(value: unknown, inlineOnly: boolean): ReplyMarkup {
	let m: unknown = value;
	if (typeof m === 'string') {
		try {
			m = JSON.parse(m) as unknown;
		} catch {
			throw badRequest("can't parse reply keyboard markup JSON object");
		}
	}
	if (!isRecord(m)) throw badRequest("can't parse reply keyboard markup JSON object");
	if (m.inline_keyboard !== undefined) return parseInlineKeyboard(m);
	if (inlineOnly) throw badRequest('inline keyboard expected: only an InlineKeyboardMarkup can be used when editing a message');
	if (m.keyboard !== undefined) return parseReplyKeyboard(m);
	if (m.remove_keyboard !== undefined) {
		if (m.remove_keyboard !== true) throw badRequest('field "remove_keyboard" must be true');
		const out: ReplyKeyboardRemove = { remove_keyboard: true };
		if (typeof m.selective === 'boolean') out.selective = m.selective;
		return out;
	}
	if (m.force_reply !== undefined) {
		if (m.force_reply !== true) throw badRequest('field "force_reply" must be true');
		const out: ForceReply = { force_reply: true };
		if (typeof m.selective === 'boolean') out.selective = m.selective;
		if (typeof m.input_field_placeholder === 'string') out.input_field_placeholder = m.input_field_placeholder;
		return out;
	}
	throw badRequest("can't parse reply keyboard markup JSON object: expected inline_keyboard, keyboard, remove_keyboard or force_reply");
}
