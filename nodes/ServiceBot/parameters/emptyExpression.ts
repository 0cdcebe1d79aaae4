/**
 * Expressions that read the input item (`$json.…`) and gave nothing:
 * - for a field that needs a value, the kind's "is required" becomes what the user can act on: what
 *   the expression gave, whether the input item has the key it reads (`$json.chat_id`), the keys it
 *   has, and a key of the same name in another spelling (`chatId`);
 * - in a free text whose every `{{ }}` gave nothing ("A photo of {{ … }} × {{ … }}" sent as "A photo
 *   of  × "), the message still goes out as n8n made it (saved workflows keep their behaviour), and
 *   the run warns on the node once, naming the field, the item, the first expression and where the
 *   item's path ends. One text with some expressions empty ("Hello {{ first }} {{ last }}") is
 *   normal and gets nothing.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import { inputError, show } from './errors';
import { savedAt, savedParametersOf, takesFreeText } from './fixed';
import type { ReadItem } from './kind';
import type { Param } from './param';
import { isEmpty } from './param';

/** How many of the item's keys the error lists. */
const KEYS_LISTED = 10;

/** The first `$json.key` or `$json["key"]` an expression reads. */
const JSON_KEY = /\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*["']([^"']+)["']\s*\])/;

/** The value a resource locator holds (From Trigger holds none that could be empty). */
function givenValue(value: unknown): { value: unknown } | undefined {
	if (!isObject(value) || !('__rl' in value)) return { value };
	return value.mode === 'trigger' ? undefined : { value: value.value };
}

const spelled = (key: string): string => key.replace(/[_\s-]/g, '').toLowerCase();

function gave(value: unknown): string {
	if (value === undefined) return 'undefined';
	if (value === null) return 'null';
	return "''";
}

/**
 * The error to throw for `error`, the kind's refusal of `value` read from the field at `path`: when the
 * field is an expression that gave nothing, an error saying so; otherwise `error` itself.
 */
export function explainEmptyExpression(item: ReadItem, param: Param, path: string, value: unknown, error: unknown): unknown {
	const given = givenValue(value);
	if (!(error instanceof NodeOperationError) || given === undefined || !isEmpty(given.value)) return error;
	const saved = savedAt(item.ctx.getNode().parameters, path);
	if (typeof saved !== 'string' || !saved.startsWith('=')) return error;
	const expression = saved.slice(1).trim();
	const json = item.ctx.getInputData()[item.itemIndex]?.json ?? {};
	const keys = Object.keys(json);
	const listed = `${keys.slice(0, KEYS_LISTED).join(', ')}${keys.length > KEYS_LISTED ? ', …' : ''}`;
	const match = JSON_KEY.exec(expression);
	const key = match?.[1] ?? match?.[2];
	// An expression that reads no key of the item ({{ "" }}) gave what it says: the kind's words stand.
	if (key === undefined) return error;
	let about: string;
	if (key in json) about = `the item's ${key} is empty`;
	else {
		const close = keys.find((other) => spelled(other) === spelled(key));
		about = `the item has no ${key}; ${keys.length > 0 ? `it has: ${listed}` : 'it is empty'}${close ? `. Did you mean {{ $json.${close} }}?` : ''}`;
	}
	return inputError(item.at, param.displayName, `is empty: ${expression.length > 60 ? `${expression.slice(0, 59)}…` : expression} gave ${gave(given.value)}; ${about}`);
}

/**
 * A text's parts as n8n splits an expression (a `{{` opens unless escaped as `\{{`, the first `}}`
 * after it closes; an unclosed `{{` is text): the text around its expressions, and its first
 * expression. One pass of index scans: linear in the text.
 */
export function withoutExpressions(template: string): { text: string; first: string | undefined } {
	let text = '';
	let first: string | undefined;
	let at = 0;
	for (;;) {
		let open = template.indexOf('{{', at);
		while (open > 0 && template[open - 1] === '\\') open = template.indexOf('{{', open + 2);
		const close = open === -1 ? -1 : template.indexOf('}}', open + 2);
		if (close === -1) return { text: text + template.slice(at), first };
		text += template.slice(at, open);
		first ??= template.slice(open, close + 2);
		at = close + 2;
	}
}

/** The keys of a `$json` path an expression starts with (`{{ $json.a["b"][0] }}` → a, b, 0); undefined for any other start. */
function jsonPathOf(expression: string): string[] | undefined {
	const body = expression.slice(2, -2).trim();
	if (!body.startsWith('$json')) return undefined;
	const keys: string[] = [];
	let at = '$json'.length;
	while (at < body.length) {
		if (body[at] === '.') {
			let end = at + 1;
			while (end < body.length && /[\w$]/.test(body[end])) end++;
			if (end === at + 1) return undefined;
			keys.push(body.slice(at + 1, end));
			at = end;
		} else if (body[at] === '[') {
			const close = body.indexOf(']', at);
			if (close === -1) return undefined;
			keys.push(body.slice(at + 1, close).trim().replace(/^["'](.*)["']$/, '$1'));
			at = close + 1;
		} else break;
	}
	return keys.length > 0 ? keys : undefined;
}

/** Where the item's value at an expression's `$json` path ends: "the item has no size (it has: …)". */
function whereItEnds(expression: string, json: IDataObject): string | undefined {
	const keys = jsonPathOf(expression);
	if (!keys) return undefined;
	let value: unknown = json;
	for (let index = 0; index < keys.length; index++) {
		const owner = index === 0 ? 'the item' : `the item's ${keys.slice(0, index).join('.')}`;
		const key = keys[index];
		if (Array.isArray(value) && !/^\d+$/.test(key)) return `${owner} is a list of ${value.length}, which has no ${key}`;
		if (!isObject(value) && !Array.isArray(value)) return `${owner} is ${value === undefined ? 'not there' : show(value)}, which has no ${key}`;
		const container = value as Record<string, unknown>;
		if (!(key in container)) {
			const has = Object.keys(container);
			return `${owner} has no ${key} (${has.length > 0 ? `it has: ${has.slice(0, KEYS_LISTED).join(', ')}${has.length > KEYS_LISTED ? ', …' : ''}` : 'it is empty'})`;
		}
		value = container[key];
	}
	return `the item's ${keys.join('.')} is ${value === undefined || value === null ? String(value) : 'empty'}`;
}

/** Per node run (its context, new for every run): per field path, its text without expressions and its first expression; null when there is nothing to check, or it warned. */
const templates = new WeakMap<IExecuteFunctions, Map<string, { readonly text: string; readonly first: string } | null>>();

/**
 * Warns on the run, once per field, when every `{{ }}` of the free text at `path` gave nothing for
 * this item (`value`, the text n8n made, is the saved text without its expressions). Costs a string
 * comparison per item: the saved text is split once per run.
 */
export function warnIfEveryExpressionEmpty(item: ReadItem, param: Param, path: string, value: unknown): void {
	if (typeof value !== 'string' || !takesFreeText(param)) return;
	let fields = templates.get(item.ctx);
	if (!fields) {
		fields = new Map();
		templates.set(item.ctx, fields);
	}
	let field = fields.get(path);
	if (field === undefined) {
		const saved = savedAt(savedParametersOf(item.ctx), path);
		const parts = typeof saved === 'string' && saved.startsWith('=') ? withoutExpressions(saved.slice(1)) : undefined;
		// A text that is one expression alone may well be empty (an optional caption): only text around expressions shows blanks.
		field = parts?.first !== undefined && parts.text.trim() !== '' ? { text: parts.text.trim(), first: parts.first } : null;
		fields.set(path, field);
	}
	if (field === null || value.trim() !== field.text) return;
	fields.set(path, null);
	const json = item.ctx.getInputData()[item.itemIndex]?.json ?? {};
	const where = whereItEnds(field.first, json);
	item.ctx.addExecutionHints({
		message: `${param.displayName}: every expression in it gave nothing for item ${item.itemIndex}, so it was sent as ${show(value)}. ${field.first} gave nothing${where ? `: ${where}` : ''}. Check the names in the input panel, or drag the field from there`,
		type: 'warning',
		location: 'outputPane',
	});
}
