/**
 * An expression that read the input item (`$json.…`) and gave nothing for a field that needs a value:
 * the kind's "is required" becomes
 * what the user can act on: what the expression gave, whether the input item has the key it reads
 * (`$json.chat_id`), the keys it has, and a key of the same name in another spelling (`chatId`).
 */
import { NodeOperationError } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import { inputError } from './errors';
import { savedAt } from './fixed';
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
