/**
 * Text: the one way the node turns a value into text (every kind and the keyboard use it), and the
 * text kind, counted in UTF-16 code units as the service counts characters.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { inputError, show } from './errors';
import type { At } from './errors';
import type { ParamKindDefinition, ReadItem } from './kind';
import { baseField } from './kind';
import type { Param } from './param';
import { isEmpty } from './param';

/**
 * The text of a value: strings as they are, numbers and booleans (from expressions) as their text,
 * nothing for an empty value; `undefined` for anything else (objects, arrays, NaN, Infinity), which
 * must never be sent as "[object Object]" or "NaN".
 */
export function textOf(value: unknown): string | undefined {
	if (isEmpty(value)) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
	return undefined;
}

/** `textOf`, or the input error naming the field. */
export function readText(at: At, field: string, value: unknown): string {
	const text = textOf(value);
	if (text === undefined) throw inputError(at, field, `expected text, got ${typeof value === 'number' ? String(value) : show(value)}`);
	return text;
}

function checkText(at: At, param: Param, value: unknown, splitting: boolean): string {
	const field = param.displayName;
	const text = readText(at, field, value);
	if (param.min !== undefined && text.length < param.min) {
		throw inputError(at, field, text.length === 0 ? 'is required and may not be empty' : `is ${text.length} characters, the minimum is ${param.min}`);
	}
	if (param.max !== undefined && !splitting && text.length > param.max) {
		const hint = param.splitBy ? `Turn on Options > ${param.splitBy.optionName} to send it as several messages.` : undefined;
		throw inputError(at, field, `is ${text.length} characters, the limit is ${param.max}`, hint);
	}
	return text;
}

/** The text fields of a node run that have warned of a boolean (a run's context is new for every run). */
const warnedOfBooleans = new WeakMap<IExecuteFunctions, Set<string>>();

/**
 * A boolean in a text field is sent as its text, as n8n's own nodes do (n8n's `ensureType: 'string'`
 * makes `String(value)` of it, and its Telegram node sends it as it is); but only an expression gives
 * one, most likely a comparison left in it, so the run warns on the node's output, once per field,
 * naming the field and the first item.
 */
function warnOfBoolean(item: ReadItem, param: Param, value: boolean): void {
	let warned = warnedOfBooleans.get(item.ctx);
	if (!warned) {
		warned = new Set();
		warnedOfBooleans.set(item.ctx, warned);
	}
	if (warned.has(param.name)) return;
	warned.add(param.name);
	item.ctx.addExecutionHints({
		message: `${param.displayName}: the expression of item ${item.itemIndex} gave the boolean ${String(value)}, sent as the text "${String(value)}" (so does any other item whose expression gives a boolean). If a text was meant, check the expression: a comparison such as {{ $json.status === 'paid' }} gives true or false`,
		type: 'warning',
		location: 'outputPane',
	});
}

export const textKind: ParamKindDefinition = {
	fields(param) {
		const limit = param.max !== undefined ? ` (up to ${param.max.toLocaleString('en-US')} characters)` : '';
		// A required text without a minimum may be empty (version 1's "empty removes it"), so the editor does not insist.
		const field: INodeProperties = {
			...baseField(param, param.required && Boolean(param.min)),
			description: `${param.description}${limit}`,
			type: 'string',
			default: '',
			...((param.max ?? 0) > 256 ? { typeOptions: { rows: 4 } } : {}),
		};
		return [field];
	},
	read(value, param, item) {
		const splitting = param.splitBy !== undefined && item.options[param.splitBy.option] === true;
		const text = checkText(item.at, param, value, splitting);
		if (typeof value === 'boolean') warnOfBoolean(item, param, value);
		return !param.required && text === '' ? undefined : text;
	},
};
