import { BUTTON_URL_SCHEMES, LIMITS } from '../../../shared/catalogue';
import type { KeyboardScope, Problem } from './types';
import { buttonPath, describeValue, isRecord, quote, rowPath } from './types';

/** The action fields of an inline button: exactly one must be present (spec part 2). */
export const INLINE_ACTIONS = ['callback_data', 'url', 'switch_inline_query'] as const;

const MARKUP_KINDS = ['inline_keyboard', 'keyboard', 'remove_keyboard', 'force_reply'] as const;
type MarkupKind = (typeof MARKUP_KINDS)[number];

const KIND_NAMES: Record<MarkupKind, string> = {
	inline_keyboard: 'an inline keyboard',
	keyboard: 'a reply keyboard',
	remove_keyboard: 'a keyboard removal',
	force_reply: 'a force reply',
};

const encoder = new TextEncoder();

/** Length in UTF-8 bytes, the unit of the callback_data limit. */
export function utf8Length(value: string): number {
	return encoder.encode(value).length;
}

function listWords(words: readonly string[], last = 'or'): string {
	if (words.length <= 1) return words.join('');
	return `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}

const ACTION_LIST = listWords(INLINE_ACTIONS);
const SCHEME_LIST = listWords(BUTTON_URL_SCHEMES);

/** camelCase spellings of the action fields, a frequent slip when the JSON is written by hand. */
const ACTION_MISSPELLINGS: Record<string, string> = {
	callbackData: 'callback_data',
	callback: 'callback_data',
	data: 'callback_data',
	URL: 'url',
	link: 'url',
	switchInlineQuery: 'switch_inline_query',
};

function checkText(text: unknown, path: string, max: number | undefined, problems: Problem[], at: Partial<Problem>): void {
	const add = (message: string): void => {
		problems.push({ ...at, path, message });
	};
	if (text === undefined || text === null) return add('text is missing');
	if (typeof text !== 'string') return add(`text must be a string, got ${describeValue(text)}`);
	if (text.length === 0) return add('text is empty');
	if (max !== undefined && text.length > max) add(`text is ${text.length} characters, the limit is ${max}`);
}

function checkCallbackData(value: string, add: (message: string) => void): void {
	const { min, max } = LIMITS.callbackDataBytes;
	const bytes = utf8Length(value);
	if (bytes === 0) return add(`callback_data is empty; it must be ${min} to ${max} bytes`);
	if (bytes < min) return add(`callback_data is ${bytes} bytes, the minimum is ${min}`);
	if (bytes > max) {
		const note = bytes === value.length ? '' : ` (UTF-8: its ${value.length} characters include multi-byte ones)`;
		add(`callback_data is ${bytes} bytes, the limit is ${max}${note}`);
	}
}

/** A problem with a button URL, or undefined when the URL is acceptable. Exported for the auto grid's template check. */
export function urlProblem(value: string): string | undefined {
	if (value.length === 0) return 'url is empty';
	if (value !== value.trim()) return `url ${quote(value)} has leading or trailing spaces`;
	let parsed: URL;
	try {
		parsed = new URL(value);
	} catch {
		const hint = /^[a-z][a-z0-9+.-]*:/i.test(value) ? '' : ' (it needs a scheme such as https://)';
		return `url ${quote(value)} is not a valid URL${hint}`;
	}
	const scheme = parsed.protocol.toLowerCase();
	if (!(BUTTON_URL_SCHEMES as readonly string[]).includes(scheme)) {
		return `url scheme "${scheme}" is not allowed; use ${SCHEME_LIST}`;
	}
	if (value.length <= scheme.length) return `url ${quote(value)} has nothing after the scheme`;
	return undefined;
}

function validateInlineButton(button: unknown, row: number, index: number, problems: Problem[]): void {
	const path = buttonPath(row, index);
	const at = { row, button: index };
	const add = (message: string): void => {
		problems.push({ ...at, path, message });
	};
	if (!isRecord(button)) {
		const hint = typeof button === 'string' ? ` such as {"text": ${quote(button)}, "callback_data": …}` : '';
		return add(`must be an object with text and one action (${ACTION_LIST})${hint}, got ${describeValue(button)}`);
	}
	checkText(button.text, path, LIMITS.inlineButtonText.max, problems, at);
	const present = INLINE_ACTIONS.filter((field) => button[field] !== undefined && button[field] !== null);
	if (present.length === 0) {
		const near = Object.keys(button)
			.filter((key) => ACTION_MISSPELLINGS[key] !== undefined)
			.map((key) => ` (found "${key}": did you mean "${ACTION_MISSPELLINGS[key]}"?)`);
		add(`no action: set exactly one of ${ACTION_LIST}${near.join('')}`);
	} else if (present.length > 1) {
		add(`${listWords(present, 'and')} are ${present.length > 2 ? 'all' : 'both'} set; a button takes exactly one action`);
	}
	for (const field of present) {
		const value = button[field];
		if (typeof value !== 'string') {
			add(`${field} must be a string, got ${describeValue(value)}`);
			continue;
		}
		if (field === 'callback_data') checkCallbackData(value, add);
		if (field === 'url') {
			const problem = urlProblem(value);
			if (problem !== undefined) add(problem);
		}
		// switch_inline_query: any string, the empty one included (it opens inline mode with no query).
	}
}

function checkRows(rows: unknown, field: string, problems: Problem[]): unknown[] | undefined {
	if (!Array.isArray(rows)) {
		problems.push({ path: field, message: `must be an array of rows, got ${describeValue(rows)}` });
		return undefined;
	}
	if (rows.length === 0) {
		problems.push({ path: 'keyboard', message: 'has no rows; add at least one row, or choose None for no keyboard' });
		return undefined;
	}
	return rows;
}

function checkRow(row: unknown, index: number, problems: Problem[]): unknown[] | undefined {
	const path = rowPath(index);
	if (!Array.isArray(row)) {
		const hint = isRecord(row) || typeof row === 'string' ? ' (wrap the buttons of each row in [ ])' : '';
		problems.push({ path, row: index, message: `must be an array of buttons, got ${describeValue(row)}${hint}` });
		return undefined;
	}
	if (row.length === 0) {
		const { min, max } = LIMITS.buttonsPerRow;
		problems.push({ path, row: index, message: `has no buttons; a row needs ${min} to ${max}` });
		return undefined;
	}
	return row;
}

function validateInlineKeyboard(markup: Record<string, unknown>, problems: Problem[]): void {
	const rows = checkRows(markup.inline_keyboard, 'inline_keyboard', problems);
	if (rows === undefined) return;
	if (rows.length > LIMITS.inlineKeyboardRows.max) {
		problems.push({ path: 'keyboard', message: `${rows.length} rows, the limit is ${LIMITS.inlineKeyboardRows.max}` });
	}
	rows.forEach((candidate, r) => {
		const row = checkRow(candidate, r, problems);
		if (row === undefined) return;
		if (row.length > LIMITS.buttonsPerRow.max) {
			problems.push({ path: rowPath(r), row: r, message: `${row.length} buttons, the limit is ${LIMITS.buttonsPerRow.max}` });
		}
		row.forEach((button, b) => validateInlineButton(button, r, b, problems));
	});
}

/**
 * Reply keyboards: the spec states the grid limits (100 rows, 8 buttons per row) and the 128-character
 * text limit for inline keyboards only, so they are deliberately not applied here; a reply keyboard
 * needs at least one row, rows with at least one button, and buttons with non-empty text, given as
 * `{"text": …}` or as a plain string.
 */
function validateReplyKeyboard(markup: Record<string, unknown>, problems: Problem[]): void {
	const rows = checkRows(markup.keyboard, 'keyboard', problems);
	if (rows !== undefined) {
		rows.forEach((candidate, r) => {
			const row = checkRow(candidate, r, problems);
			row?.forEach((button, b) => {
				const path = buttonPath(r, b);
				if (typeof button === 'string' || !isRecord(button)) {
					checkText(button, path, undefined, problems, { row: r, button: b });
				} else {
					checkText(button.text, path, undefined, problems, { row: r, button: b });
				}
			});
		});
	}
	for (const flag of ['resize_keyboard', 'one_time_keyboard', 'selective', 'is_persistent']) {
		checkBoolean(markup, flag, problems);
	}
}

function checkBoolean(markup: Record<string, unknown>, field: string, problems: Problem[]): void {
	const value = markup[field];
	if (value !== undefined && typeof value !== 'boolean') {
		problems.push({ path: field, message: `must be true or false, got ${describeValue(value)}` });
	}
}

function checkTrue(markup: Record<string, unknown>, field: string, problems: Problem[]): void {
	if (markup[field] !== true) {
		problems.push({ path: field, message: `must be true, got ${JSON.stringify(markup[field]) ?? 'nothing'}` });
	}
}

/**
 * Checks a reply_markup object against spec parts 2 and 8 and returns every problem found, each
 * with where it is. An empty list means the markup is valid for an operation of the given scope.
 */
export function findMarkupProblems(markup: unknown, scope: KeyboardScope): Problem[] {
	const problems: Problem[] = [];
	if (!isRecord(markup)) {
		const hint = Array.isArray(markup) ? ' (to give only the rows, wrap them: {"inline_keyboard": rows})' : '';
		return [{ path: '', message: `must be an object such as {"inline_keyboard": […]}, got ${describeValue(markup)}${hint}` }];
	}
	const kinds = MARKUP_KINDS.filter((kind) => markup[kind] !== undefined);
	if (kinds.length === 0) {
		const expected = scope === 'inline' ? '"inline_keyboard"' : listWords(MARKUP_KINDS.map((kind) => `"${kind}"`));
		const found = Object.keys(markup);
		const got = found.length === 0 ? 'an empty object' : `an object with ${listWords(found.map((key) => `"${key}"`), 'and')}`;
		return [{ path: '', message: `expected ${expected}, got ${got}` }];
	}
	if (kinds.length > 1) {
		return [{ path: '', message: `mixes ${listWords(kinds.map((kind) => KIND_NAMES[kind]), 'and')}; give one kind of markup` }];
	}
	const kind = kinds[0];
	if (scope === 'inline' && kind !== 'inline_keyboard') {
		return [{ path: '', message: `${KIND_NAMES[kind]} cannot be used here: this operation accepts only an inline keyboard` }];
	}
	switch (kind) {
		case 'inline_keyboard':
			validateInlineKeyboard(markup, problems);
			break;
		case 'keyboard':
			validateReplyKeyboard(markup, problems);
			break;
		case 'remove_keyboard':
			checkTrue(markup, 'remove_keyboard', problems);
			checkBoolean(markup, 'selective', problems);
			break;
		case 'force_reply':
			checkTrue(markup, 'force_reply', problems);
			checkBoolean(markup, 'selective', problems);
			if (markup.input_field_placeholder !== undefined && typeof markup.input_field_placeholder !== 'string') {
				problems.push({
					path: 'input_field_placeholder',
					message: `must be a string, got ${describeValue(markup.input_field_placeholder)}`,
				});
			}
			break;
	}
	return problems;
}
