/**
 * Text: the one way the node turns a value into text (every kind and the keyboard use it), and the
 * text kind, counted in UTF-16 code units as the service counts characters.
 */
import type { INodeProperties } from 'n8n-workflow';

import { inputError, show } from './errors';
import type { At } from './errors';
import type { ParamKindDefinition } from './kind';
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
		return !param.required && text === '' ? undefined : text;
	},
};
