/**
 * The error of bad input, in one style everywhere: the field, the place inside it, what is wrong,
 * and the item the way n8n counts items (from 0, as in n8n's own "[item 2]"):
 *   `Chat: 'abc' is not a chat UUID or @username [item 2]`
 *   `Reply Markup → row 3, button 2: callback_data is 70 bytes, the limit is 64 [item 4]`
 * Several problems stay on one line (n8n's toast and error panel drop line breaks), numbered:
 *   `Reply Markup has 3 problems [item 0]: (1) row 1, button 1: text is empty; (2) …`
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** The item being read: for the error's message and n8n's `itemIndex`. */
export interface At {
	readonly node: INode;
	readonly itemIndex: number;
}

/** One thing wrong inside a field; `at` says where ("row 3, button 2", "command 2", "JSON line 1, column 4"). */
export interface Problem {
	readonly at?: string;
	readonly message: string;
	/** Where inside the value, as keys and indexes (a markup's `['inline_keyboard', row, button]`). */
	readonly path?: readonly PropertyKey[];
}

/** How many problems one message lists; the rest are counted. */
const LISTED = 10;

function placed(problem: Problem): string {
	return problem.at ? `${problem.at}: ${problem.message}` : problem.message;
}

export function inputError(
	at: At,
	field: string,
	problems: string | readonly Problem[],
	description?: string,
): NodeOperationError {
	const list = typeof problems === 'string' ? [{ message: problems }] : problems;
	const item = `[item ${at.itemIndex}]`;
	let message: string;
	if (list.length === 1) {
		const [only] = list;
		message = `${field}${only.at ? ` → ${only.at}` : ''}: ${only.message} ${item}`;
	} else {
		const shown = list.slice(0, LISTED).map((problem, index) => `(${index + 1}) ${placed(problem)}`);
		if (list.length > LISTED) shown.push(`… and ${list.length - LISTED} more`);
		message = `${field} has ${list.length} problems ${item}: ${shown.join('; ')}`;
	}
	return new NodeOperationError(at.node, message, { itemIndex: at.itemIndex, ...(description ? { description } : {}) });
}

/** A short, printable rendering of a bad value for error messages. */
export function show(value: unknown): string {
	let text: string;
	if (typeof value === 'string') text = `'${value}'`;
	// JSON would print NaN and Infinity as "null".
	else if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** "a string", "a number", "an array", "null"…: what was found instead. */
export function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	const type = typeof value;
	return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

/** Quotes a value for a message, shortened so a huge label or URL cannot flood the error. */
export function quote(value: string, max = 40): string {
	return JSON.stringify(value.length > max ? `${value.slice(0, max - 1)}…` : value);
}

/** "a", "a or b", "a, b or c". */
export function listWords(words: readonly string[], last = 'or'): string {
	if (words.length <= 1) return words.join('');
	return `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}
