/**
 * The reply markup of an item, from the keyboard fields (fields.ts, by the names in names.ts): None, a force reply,
 * a keyboard removal, or an inline / reply keyboard defined with the field builder, as JSON or as an
 * auto grid of labels. Every markup is checked against spec parts 2 and 8 (schema.ts) before
 * anything is sent; its problems name the item and where they are.
 */
import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../../../shared/json';
import { LIMITS } from '../../../shared/spec';
import type { At, Problem } from '../errors';
import { describeValue, inputError, show } from '../errors';
import { parseJson } from '../json';
import type { ParamKindDefinition } from '../kind';
import type { ItemContext, MarkupScope } from '../param';
import { nodeParameter } from '../param';
import { textOf } from '../text';
import { KEYBOARD_DEFAULTS, keyboardProperties } from './fields';
import { buildGrid, withLabel } from './grid';
import type { GridSettings } from './grid';
import type { ButtonAction } from './names';
import { BUILDER, BUTTON_ACTIONS, FIELD, MARKUP, MODE, REPLY_OPTION } from './names';
import { markupProblems } from './schema';

/** Reads a keyboard field of the item; `text` gives a value as text (textOf) and notes what is not text as a problem of `where`. */
interface Read {
	(name: string, fallback: unknown): unknown;
	text: (value: unknown, where: string) => string;
}
type Keyboard = 'inline' | 'reply';

/** A markup read from the fields, not yet checked; `relabel` adds where a grid button came from. */
type Built =
	| { ok: true; markup: IDataObject | undefined; relabel?: (problem: Problem) => Problem }
	| { ok: false; problem: Problem };

const ROWS_FIELD: Record<Keyboard, 'inline_keyboard' | 'keyboard'> = { inline: 'inline_keyboard', reply: 'keyboard' };

/** The Button Type chosen (the default for an unknown one) and what it fills. */
function actionOf(value: unknown): (typeof BUTTON_ACTIONS)[ButtonAction] & { readonly type: ButtonAction } {
	const type = typeof value === 'string' && value in BUTTON_ACTIONS ? (value as ButtonAction) : KEYBOARD_DEFAULTS.buttonType;
	return { type, ...BUTTON_ACTIONS[type] };
}

/** A fixedCollection value `{ rows: [ { buttons: { button: [ {…} ] } } ] }` as rows of button values. */
function builderRows(value: unknown): Array<Array<Record<string, unknown>>> {
	const rows = isObject(value) && Array.isArray(value[BUILDER.rows]) ? (value[BUILDER.rows] as unknown[]) : [];
	return rows.map((row) => {
		const holder = isObject(row) ? row[BUILDER.buttons] : undefined;
		const buttons = isObject(holder) && Array.isArray(holder[BUILDER.button]) ? (holder[BUILDER.button] as unknown[]) : [];
		return buttons.map((button) => (isObject(button) ? button : {}));
	});
}

function fromBuilder(keyboard: Keyboard, read: Read): Built {
	const where = (row: number, column: number) => `row ${row + 1}, button ${column + 1}`;
	if (keyboard === 'reply') {
		const rows = builderRows(read(FIELD.replyRows, {})).map((row, r) =>
			row.map((button, c) => ({ text: read.text(button[BUILDER.text], `${where(r, c)}: Button Text`) })),
		);
		return { ok: true, markup: { keyboard: rows } };
	}
	const rows = builderRows(read(FIELD.inlineRows, {})).map((row, r) =>
		row.map((button, c) => {
			const action = actionOf(button[BUILDER.buttonType]);
			return {
				text: read.text(button[BUILDER.text], `${where(r, c)}: Button Text`),
				[action.field]: read.text(button[action.builder], `${where(r, c)}: ${action.fieldName}`),
			};
		}),
	);
	return { ok: true, markup: { inline_keyboard: rows } };
}

/** Nothing given: no markup for this item, so one node can send some items with buttons and some without. */
function isNothing(value: unknown): boolean {
	return value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
}

function fromJson(keyboard: Keyboard, read: Read): Built {
	const parsed = parseJson(read(FIELD.json, ''));
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
		labels: read(FIELD.gridLabels, ''),
		columns: read(FIELD.gridColumns, KEYBOARD_DEFAULTS.gridColumns),
		buttonText: read.text(read(FIELD.gridButtonText, KEYBOARD_DEFAULTS.gridButtonText), 'Button Text'),
	};
	if (keyboard === 'inline') {
		const action = actionOf(read(FIELD.gridButtonType, KEYBOARD_DEFAULTS.buttonType));
		const template = read.text(read(action.grid, KEYBOARD_DEFAULTS.gridTemplates[action.type]), action.fieldName);
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
	const options = read(FIELD.replyOptions, {});
	if (!isObject(options)) return;
	if (options[REPLY_OPTION.resize] !== undefined) markup.resize_keyboard = options[REPLY_OPTION.resize] as boolean;
	if (options[REPLY_OPTION.oneTime] !== undefined) markup.one_time_keyboard = options[REPLY_OPTION.oneTime] as boolean;
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
	const mode = read(FIELD.mode, KEYBOARD_DEFAULTS.mode);
	const keyboard = (kind: Keyboard): Built => {
		if (mode === MODE.builder) return fromBuilder(kind, read);
		if (mode === MODE.json) return fromJson(kind, read);
		if (mode === MODE.autoGrid) return fromGrid(kind, read);
		return { ok: false, problem: { at: 'Define Keyboard', message: `unknown choice ${JSON.stringify(mode)}` } };
	};
	switch (choice) {
		case MARKUP.inline:
			return keyboard('inline');
		case MARKUP.reply: {
			const built = keyboard('reply');
			if (built.ok && built.markup) applyReplyOptions(built.markup, read);
			return built;
		}
		case MARKUP.forceReply: {
			const placeholder = read.text(read(FIELD.forceReplyPlaceholder, ''), 'Input Field Placeholder');
			return { ok: true, markup: placeholder === '' ? { force_reply: true } : { force_reply: true, input_field_placeholder: placeholder } };
		}
		case MARKUP.removeKeyboard:
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
	const notText: Problem[] = [];
	const read: Read = Object.assign((name: string, fallback: unknown) => nodeParameter(item.ctx, name, item.itemIndex, fallback), {
		text(value: unknown, where: string): string {
			const text = textOf(value);
			if (text !== undefined) return text;
			notText.push({ at: where, message: `expected text, got ${show(value)}` });
			return '';
		},
	});
	const choice = read(FIELD.choice, MARKUP.none);
	if (choice === MARKUP.none) return undefined;
	const built = build(choice, read, scope);
	if (notText.length > 0) throw inputError(at, 'Reply Markup', notText);
	if (!built.ok) throw inputError(at, 'Reply Markup', [built.problem]);
	if (built.markup === undefined) return undefined;
	const markup = normalizeMarkup(built.markup) as IDataObject;
	const problems = markupProblems(markup, scope.kinds);
	if (problems.length === 0) return markup;
	throw inputError(at, 'Reply Markup', built.relabel ? problems.map(built.relabel) : problems);
}

/** The reply_markup kind: the keyboard fields, read into a checked markup. */
export const replyMarkupKind: ParamKindDefinition = {
	fields: (param) => keyboardProperties(param.markup ?? { kinds: 'any' }, param.description),
	read: (_value, param, item) => readReplyMarkup(item, item.at, param.markup ?? { kinds: 'any' }),
	ownFields: true,
};
