/**
 * Reply markup of the action node: the keyboard UI (`keyboardProperties`), reading it into a
 * `reply_markup` object (`buildReplyMarkup`) and checking any markup against spec parts 2 and 8
 * (`validateReplyMarkup`). Limits come from the catalogue's LIMITS and BUTTON_URL_SCHEMES.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { buildGrid, GRID_ACTION_FIELDS, withLabel } from './keyboard/grid';
import type { GridAction } from './keyboard/grid';
import { parseJsonValue } from './keyboard/json';
import { keyboardProperties as properties } from './keyboard/properties';
import type { BuildResult, InlineButton, KeyboardKind, KeyboardScope, Problem, ReplyButton } from './keyboard/types';
import { describeValue, formatProblem, isRecord } from './keyboard/types';
import { findMarkupProblems } from './keyboard/validate';

export type { KeyboardScope } from './keyboard/types';

/**
 * The node parameters of the keyboard UI, without the operation's displayOptions (wrap them with
 * updateDisplayOptions). Top parameter: `replyMarkup`. Scope 'inline' offers None and Inline Keyboard only.
 */
export function keyboardProperties(scope: KeyboardScope): INodeProperties[] {
	return properties(scope).map((property) => ({ ...property }));
}

/** Pure validator: the problems of a reply_markup value, each starting with where it is; empty when valid. */
export function validateReplyMarkup(markup: unknown, scope: KeyboardScope): string[] {
	return findMarkupProblems(markup, scope).map(formatProblem);
}

const WIRE_FIELD: Record<KeyboardKind, 'inline_keyboard' | 'keyboard'> = { inline: 'inline_keyboard', reply: 'keyboard' };

type Reader = (name: string, fallback: unknown) => unknown;

/** How many problems the error's description lists; the message names the first. */
const MAX_LISTED = 20;

function text(value: unknown): string {
	if (value === undefined || value === null) return '';
	return typeof value === 'string' ? value : String(value);
}

/** fixedCollection value `{ rows: [ { buttons: { button: [ {…} ] } } ] }` as arrays of button values. */
function builderRows(value: unknown): Array<Array<Record<string, unknown>>> {
	const rows = isRecord(value) && Array.isArray(value.rows) ? (value.rows as unknown[]) : [];
	return rows.map((row) => {
		const buttons = isRecord(row) && isRecord(row.buttons) && Array.isArray(row.buttons.button) ? (row.buttons.button as unknown[]) : [];
		return buttons.map((button) => (isRecord(button) ? button : {}));
	});
}

function inlineBuilderButton(button: Record<string, unknown>): InlineButton {
	const action = (typeof button.buttonType === 'string' ? button.buttonType : 'callbackData') as GridAction;
	const field = GRID_ACTION_FIELDS[action] ?? 'callback_data';
	const valueName = field === 'callback_data' ? 'callbackData' : field === 'url' ? 'url' : 'switchInlineQuery';
	return { text: text(button.text), [field]: text(button[valueName]) };
}

function fromBuilder(kind: KeyboardKind, read: Reader): BuildResult {
	if (kind === 'inline') {
		const rows = builderRows(read('inlineKeyboard', {})).map((row) => row.map(inlineBuilderButton));
		return { ok: true, markup: { inline_keyboard: rows } };
	}
	const rows = builderRows(read('replyKeyboard', {})).map((row) => row.map((button): ReplyButton => ({ text: text(button.text) })));
	return { ok: true, markup: { keyboard: rows } };
}

function fromJson(kind: KeyboardKind, read: Reader): BuildResult {
	const parsed = parseJsonValue(read('keyboardJson', ''));
	if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
	const { value } = parsed;
	const field = WIRE_FIELD[kind];
	if (Array.isArray(value)) {
		if (value.length > 0 && value.every((row) => !Array.isArray(row))) {
			const example = kind === 'inline' ? '[[{"text": "Yes", "callback_data": "yes"}]]' : '[["Yes", "No"]]';
			return {
				ok: false,
				problems: [{ path: 'JSON', message: `a list of buttons, not of rows; wrap each row in [ ], e.g. ${example}` }],
			};
		}
		return { ok: true, markup: { [field]: value } };
	}
	if (!isRecord(value)) {
		return { ok: false, problems: [{ path: 'JSON', message: `must be the rows (an array of arrays) or the whole markup, got ${describeValue(value)}` }] };
	}
	if (value[field] === undefined) {
		const other = kind === 'inline' ? 'keyboard' : 'inline_keyboard';
		const chosen = kind === 'inline' ? 'Inline Keyboard' : 'Reply Keyboard';
		const message =
			value[other] !== undefined
				? `holds ${kind === 'inline' ? 'a reply' : 'an inline'} keyboard ("${other}") but Reply Markup is ${chosen}; change one of them`
				: `must be the rows or an object with "${field}", got an object with ${Object.keys(value).map((key) => `"${key}"`).join(', ') || 'no fields'}`;
		return { ok: false, problems: [{ path: 'JSON', message }] };
	}
	return { ok: true, markup: { ...value } };
}

function fromGrid(kind: KeyboardKind, read: Reader): BuildResult {
	const action = (kind === 'inline' ? read('gridButtonType', 'callbackData') : 'callbackData') as GridAction;
	const templateParam: Record<GridAction, string> = {
		callbackData: 'gridCallbackData',
		url: 'gridUrl',
		switchInlineQuery: 'gridSwitchInlineQuery',
	};
	const grid = buildGrid(kind, {
		labels: read('gridLabels', ''),
		columns: read('gridColumns', 2),
		buttonText: text(read('gridButtonText', '{label}')),
		action,
		actionTemplate: kind === 'inline' ? text(read(templateParam[action] ?? 'gridCallbackData', action === 'url' ? '' : '{label}')) : undefined,
	});
	if (!grid.ok) return { ok: false, problems: [grid.problem] };
	return {
		ok: true,
		markup: { [WIRE_FIELD[kind]]: grid.rows },
		relabel: (problem) => withLabel(problem, grid.labels, grid.columns),
	};
}

/** Reply keyboard options from the UI; they override the same fields of a whole-markup JSON. */
function applyReplyOptions(markup: Record<string, unknown>, read: Reader): void {
	const options = read('replyKeyboardOptions', {});
	if (!isRecord(options)) return;
	if (options.resizeKeyboard !== undefined) markup.resize_keyboard = options.resizeKeyboard;
	if (options.oneTimeKeyboard !== undefined) markup.one_time_keyboard = options.oneTimeKeyboard;
}

/** Inline buttons from JSON lose action fields set to null, which the validator counts as absent. */
function normalizeInlineKeyboard(markup: Record<string, unknown>): void {
	const rows = markup.inline_keyboard;
	if (!Array.isArray(rows)) return;
	markup.inline_keyboard = rows.map((row: unknown) =>
		Array.isArray(row)
			? row.map((button: unknown) =>
					isRecord(button) ? Object.fromEntries(Object.entries(button).filter(([, value]) => value !== null)) : button,
				)
			: row,
	);
}

/** Reply keyboard buttons given as plain strings become `{text}` objects. */
function normalizeReplyKeyboard(markup: Record<string, unknown>): void {
	const rows = markup.keyboard;
	if (!Array.isArray(rows)) return;
	markup.keyboard = rows.map((row: unknown) =>
		Array.isArray(row) ? row.map((button: unknown) => (typeof button === 'string' ? { text: button } : button)) : row,
	);
}

function buildKeyboard(kind: KeyboardKind, read: Reader): BuildResult {
	const mode = read('keyboardMode', 'builder');
	if (mode === 'builder') return fromBuilder(kind, read);
	if (mode === 'json') return fromJson(kind, read);
	if (mode === 'autoGrid') return fromGrid(kind, read);
	return { ok: false, problems: [{ path: 'Define Keyboard', message: `unknown choice ${JSON.stringify(mode)}` }] };
}

function build(kind: unknown, scope: KeyboardScope, read: Reader): BuildResult {
	switch (kind) {
		case 'inlineKeyboard': {
			const result = buildKeyboard('inline', read);
			if (result.ok) normalizeInlineKeyboard(result.markup);
			return result;
		}
		case 'replyKeyboard': {
			const result = buildKeyboard('reply', read);
			if (result.ok) {
				applyReplyOptions(result.markup, read);
				normalizeReplyKeyboard(result.markup);
			}
			return result;
		}
		case 'forceReply': {
			const placeholder = text(read('forceReplyPlaceholder', ''));
			return { ok: true, markup: placeholder === '' ? { force_reply: true } : { force_reply: true, input_field_placeholder: placeholder } };
		}
		case 'removeKeyboard':
			return { ok: true, markup: { remove_keyboard: true } };
		default: {
			const allowed = scope === 'inline' ? 'None or Inline Keyboard' : 'None, Inline Keyboard, Reply Keyboard, Force Reply or Remove Keyboard';
			return { ok: false, problems: [{ path: '', message: `unknown choice ${JSON.stringify(kind)}; use ${allowed}` }] };
		}
	}
}

/**
 * Reads the keyboard parameters of item `itemIndex`, builds the reply_markup and checks it against every
 * part-8 limit. Returns undefined for None. Problems throw a NodeOperationError naming the item (counted
 * from 1, as people count; `itemIndex` on the error stays n8n's 0-based index) and where the problem is.
 */
export function buildReplyMarkup(ctx: IExecuteFunctions, itemIndex: number, scope: KeyboardScope): IDataObject | undefined {
	const read: Reader = (name, fallback) => ctx.getNodeParameter(name, itemIndex, fallback);
	const kind = read('replyMarkup', 'none');
	if (kind === 'none') return undefined;
	let problems: Problem[];
	const result = build(kind, scope, read);
	if (result.ok) {
		problems = findMarkupProblems(result.markup, scope);
		if (problems.length === 0) return result.markup as IDataObject;
		if (result.relabel !== undefined) problems = problems.map(result.relabel);
	} else {
		problems = result.problems;
	}
	const lines = problems.map(formatProblem);
	const more = lines.length > 1 ? ` (and ${lines.length - 1} more)` : '';
	const shown = lines.slice(0, MAX_LISTED).map((line) => `- ${line}`);
	if (lines.length > MAX_LISTED) shown.push(`- … ${lines.length - MAX_LISTED} more`);
	throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex + 1}: Reply Markup → ${lines[0]}${more}`, {
		itemIndex,
		description: `${lines.length > 1 ? `All problems:\n${shown.join('\n')}\n` : ''}Items are counted from 1 here; n8n's item index is ${itemIndex}.`,
	});
}

