/**
 * The reply markup of an item, from the keyboard fields (describe/keyboard.ts): None, a force reply,
 * a keyboard removal, or an inline / reply keyboard defined with the field builder, as JSON or as an
 * auto grid of labels. Every markup is checked against spec parts 2 and 8 (schemas.ts) before
 * anything is sent; its problems name the item and where they are.
 */
import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import { LIMITS } from '../../shared/spec';
import type { ItemContext, MarkupScope } from '../methods/method';
import type { At, Problem } from './errors';
import { describeValue, inputError } from './errors';
import { buildGrid, withLabel } from './grid';
import type { GridSettings } from './grid';
import { parseJson } from './json';
import { nodeParameter } from './parameters';
import { markupProblems } from './schemas';

type Read = (name: string, fallback: unknown) => unknown;
type Keyboard = 'inline' | 'reply';

/** A markup read from the fields, not yet checked; `relabel` adds where a grid button came from. */
type Built =
	| { ok: true; markup: IDataObject | undefined; relabel?: (problem: Problem) => Problem }
	| { ok: false; problem: Problem };

const ROWS_FIELD: Record<Keyboard, 'inline_keyboard' | 'keyboard'> = { inline: 'inline_keyboard', reply: 'keyboard' };

/** Button Type choices and the button field each fills. */
const ACTION_FIELDS = {
	callbackData: { field: 'callback_data', fieldName: 'Callback Data', builder: 'callbackData', grid: 'gridCallbackData' },
	url: { field: 'url', fieldName: 'URL', builder: 'url', grid: 'gridUrl' },
	switchInlineQuery: { field: 'switch_inline_query', fieldName: 'Switch Inline Query', builder: 'switchInlineQuery', grid: 'gridSwitchInlineQuery' },
} as const;

function actionOf(value: unknown): (typeof ACTION_FIELDS)[keyof typeof ACTION_FIELDS] {
	return ACTION_FIELDS[value as keyof typeof ACTION_FIELDS] ?? ACTION_FIELDS.callbackData;
}

function text(value: unknown): string {
	if (value === undefined || value === null) return '';
	return typeof value === 'string' ? value : String(value);
}

/** A fixedCollection value `{ rows: [ { buttons: { button: [ {…} ] } } ] }` as rows of button values. */
function builderRows(value: unknown): Array<Array<Record<string, unknown>>> {
	const rows = isObject(value) && Array.isArray(value.rows) ? (value.rows as unknown[]) : [];
	return rows.map((row) => {
		const buttons = isObject(row) && isObject(row.buttons) && Array.isArray(row.buttons.button) ? (row.buttons.button as unknown[]) : [];
		return buttons.map((button) => (isObject(button) ? button : {}));
	});
}

function fromBuilder(keyboard: Keyboard, read: Read): Built {
	if (keyboard === 'reply') {
		const rows = builderRows(read('replyKeyboard', {})).map((row) => row.map((button) => ({ text: text(button.text) })));
		return { ok: true, markup: { keyboard: rows } };
	}
	const rows = builderRows(read('inlineKeyboard', {})).map((row) =>
		row.map((button) => {
			const action = actionOf(button.buttonType);
			return { text: text(button.text), [action.field]: text(button[action.builder]) };
		}),
	);
	return { ok: true, markup: { inline_keyboard: rows } };
}

/** Nothing given: no markup for this item, so one node can send some items with buttons and some without. */
function isNothing(value: unknown): boolean {
	return value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
}

function fromJson(keyboard: Keyboard, read: Read): Built {
	const parsed = parseJson(read('keyboardJson', ''));
	if (!parsed.ok) return parsed;
	const { value } = parsed;
	if (isNothing(value)) return { ok: true, markup: undefined };
	const field = ROWS_FIELD[keyboard];
	if (Array.isArray(value)) {
		if (value.every((row) => !Array.isArray(row))) {
			const example = keyboard === 'inline' ? '[[{"text": "Yes", "callback_data": "yes"}]]' : '[["Yes", "No"]]';
			return { ok: false, problem: { at: 'JSON', message: `a list of buttons, not of rows; wrap each row in [ ], e.g. ${example}` } };
		}
		return { ok: true, markup: { [field]: value as IDataObject[] } };
	}
	if (!isObject(value)) {
		return { ok: false, problem: { at: 'JSON', message: `must be the rows (an array of arrays) or the whole markup, got ${describeValue(value)}` } };
	}
	if (value[field] === undefined) {
		const other = keyboard === 'inline' ? 'keyboard' : 'inline_keyboard';
		const chosen = keyboard === 'inline' ? 'Inline Keyboard' : 'Reply Keyboard';
		const message =
			value[other] !== undefined
				? `holds ${keyboard === 'inline' ? 'a reply' : 'an inline'} keyboard ("${other}") but Reply Markup is ${chosen}; change one of them`
				: `must be the rows or an object with "${field}", got an object with ${Object.keys(value).map((key) => `"${key}"`).join(', ')}`;
		return { ok: false, problem: { at: 'JSON', message } };
	}
	return { ok: true, markup: { ...(value as IDataObject) } };
}

function fromGrid(keyboard: Keyboard, read: Read): Built {
	const settings: GridSettings = {
		labels: read('gridLabels', ''),
		columns: read('gridColumns', 2),
		buttonText: text(read('gridButtonText', '{label}')),
	};
	if (keyboard === 'inline') {
		const action = actionOf(read('gridButtonType', 'callbackData'));
		const template = text(read(action.grid, action.field === 'url' ? '' : '{label}'));
		settings.action = { field: action.field, template, fieldName: action.fieldName };
	}
	const grid = buildGrid(settings, keyboard === 'inline' ? LIMITS.inlineKeyboardRows.max : undefined);
	if (!grid.ok) return grid;
	return {
		ok: true,
		markup: { [ROWS_FIELD[keyboard]]: grid.rows },
		relabel: (problem) => withLabel(problem, grid.labels, grid.columns),
	};
}

/** Reply keyboard options from the fields; they override the same fields of a whole-markup JSON. */
function applyReplyOptions(markup: IDataObject, read: Read): void {
	const options = read('replyKeyboardOptions', {});
	if (!isObject(options)) return;
	if (options.resizeKeyboard !== undefined) markup.resize_keyboard = options.resizeKeyboard as boolean;
	if (options.oneTimeKeyboard !== undefined) markup.one_time_keyboard = options.oneTimeKeyboard as boolean;
}

/**
 * Inline buttons lose action fields set to null (absent, as far as the checks go); reply keyboard
 * buttons given as plain strings become `{text}` objects.
 */
export function normalizeMarkup(markup: unknown): unknown {
	if (!isObject(markup)) return markup;
	const mapButtons = (rows: unknown, button: (value: unknown) => unknown): unknown =>
		Array.isArray(rows) ? rows.map((row: unknown) => (Array.isArray(row) ? row.map(button) : row)) : rows;
	if (markup.inline_keyboard !== undefined) {
		const dropNulls = (value: unknown) =>
			isObject(value) ? Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null)) : value;
		return { ...markup, inline_keyboard: mapButtons(markup.inline_keyboard, dropNulls) };
	}
	if (markup.keyboard !== undefined) {
		return { ...markup, keyboard: mapButtons(markup.keyboard, (value) => (typeof value === 'string' ? { text: value } : value)) };
	}
	return markup;
}

function build(choice: unknown, read: Read, scope: MarkupScope): Built {
	const mode = read('keyboardMode', 'builder');
	const keyboard = (kind: Keyboard): Built => {
		if (mode === 'builder') return fromBuilder(kind, read);
		if (mode === 'json') return fromJson(kind, read);
		if (mode === 'autoGrid') return fromGrid(kind, read);
		return { ok: false, problem: { at: 'Define Keyboard', message: `unknown choice ${JSON.stringify(mode)}` } };
	};
	switch (choice) {
		case 'inlineKeyboard':
			return keyboard('inline');
		case 'replyKeyboard': {
			const built = keyboard('reply');
			if (built.ok && built.markup) applyReplyOptions(built.markup, read);
			return built;
		}
		case 'forceReply': {
			const placeholder = text(read('forceReplyPlaceholder', ''));
			return { ok: true, markup: placeholder === '' ? { force_reply: true } : { force_reply: true, input_field_placeholder: placeholder } };
		}
		case 'removeKeyboard':
			return { ok: true, markup: { remove_keyboard: true } };
		default: {
			const allowed =
				scope.kinds === 'inline' ? 'None or Inline Keyboard' : 'None, Inline Keyboard, Reply Keyboard, Force Reply or Remove Keyboard';
			return { ok: false, problem: { message: `unknown choice ${JSON.stringify(choice)}; use ${allowed}` } };
		}
	}
}

/** The reply_markup of an item, checked; undefined for None (or a JSON keyboard that gives nothing). */
export function readReplyMarkup(item: ItemContext, at: At, scope: MarkupScope): IDataObject | undefined {
	const read: Read = (name, fallback) => nodeParameter(item.ctx, name, item.itemIndex, fallback);
	const choice = read('replyMarkup', 'none');
	if (choice === 'none') return undefined;
	const built = build(choice, read, scope);
	if (!built.ok) throw inputError(at, 'Reply Markup', [built.problem]);
	if (built.markup === undefined) return undefined;
	const markup = normalizeMarkup(built.markup) as IDataObject;
	const problems = markupProblems(markup, scope.kinds);
	if (problems.length === 0) return markup;
	throw inputError(at, 'Reply Markup', built.relabel ? problems.map(built.relabel) : problems);
}
