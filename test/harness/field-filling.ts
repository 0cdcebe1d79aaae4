/**
 * The two ways users fill a field, for tests that run an operation both ways: its value typed in
 * (Fixed) or an expression reading the item (`={{ $json.key }}`), and what makes the two runs'
 * outputs and errors comparable (times left out, the quotes around a value).
 */
import type { IDataObject, NodeParameterValueType } from 'n8n-workflow';

/** A request as the emulator recorded it: the method and its body. */
export type Request = [method: string, body: IDataObject];

export type Mode = 'fixed' | 'expressions';

/** Where a row's fields take their values from: the item's values typed in, or expressions reading the item. */
export interface From {
	/** The item's `key` as the field holds it: the value itself, or `={{ $json.key }}`. */
	(key: string): NodeParameterValueType;
	/** A text field around the item's values (`{key}`): the text written out, or an expression. */
	text(template: string): string;
	/** A JSON field: the JSON as typed, or `={{ $json.key }}` (an expression returning the object). */
	json(key: string): string;
	/** A list field: the item's list as typed (comma-separated), or `={{ $json.key }}` (the array itself). */
	list(key: string): string;
}

export function from(item: IDataObject, mode: Mode): From {
	const value = (key: string): unknown => {
		if (!(key in item)) throw new Error(`the row's item has no "${key}"`);
		return item[key];
	};
	const read = (key: string): NodeParameterValueType => (mode === 'fixed' ? (value(key) as NodeParameterValueType) : `={{ $json.${key} }}`);
	return Object.assign(read, {
		text: (template: string): string => {
			if (mode === 'fixed') return template.replace(/\{(\w+)\}/g, (_match, key: string) => String(value(key)));
			const single = /^\{(\w+)\}$/.exec(template);
			if (single) return `={{ $json.${single[1]} }}`;
			return `=${template.replace(/\{(\w+)\}/g, (_match, key: string) => {
				value(key);
				return `{{ $json.${key} }}`;
			})}`;
		},
		json: (key: string): string => (mode === 'fixed' ? JSON.stringify(value(key)) : `={{ $json.${key} }}`),
		list: (key: string): string => (mode === 'fixed' ? (value(key) as string[]).join(', ') : `={{ $json.${key} }}`),
	});
}

const TIME_KEYS = new Set(['date', 'edit_date', 'forward_date', 'respondedAt']);

/** An output as it can be compared between two runs: times (of the service and of the answer) left out. */
export function comparable(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(comparable);
	if (value === null || typeof value !== 'object') return value;
	return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, TIME_KEYS.has(key) ? '<time>' : comparable(entry)]));
}

export const unquoted = (message: string | undefined): string | undefined => message?.replace(/'([^']*)'/g, '$1');

export function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
