/**
 * The one reader of JSON fields (keyboards, entities, commands, the Call Method body). A value an
 * expression produced is taken as it is; text is parsed with JSON.parse, and a parse error says where
 * (from the position JSON.parse reports, as line and column) and what is wrong, in the node's style.
 */
import { messageOf } from '../../shared/transport/failure';

import type { At, Problem } from './errors';
import { inputError } from './errors';

type JsonResult = { ok: true; value: unknown } | { ok: false; problem: Problem };

function lineAndColumn(text: string, offset: number): string {
	const before = text.slice(0, offset).split('\n');
	return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

/** The parser's reason without its position or its copy of the text; plus a hint for common slips. */
function reasonOf(message: string, text: string, offset: number | undefined): string {
	const reason = message
		.replace(/ in JSON at position \d+.*$/s, '')
		.replace(/, ".*" is not valid JSON$/s, '')
		.replace(/^JSON\.parse: /, '');
	if (offset === undefined) return reason;
	const previous = text.slice(0, offset).trimEnd().slice(-1);
	if (previous === ',' && (text[offset] === '}' || text[offset] === ']')) return `${reason} (remove the trailing comma)`;
	if (text[offset] === "'") return `${reason} (JSON strings and names use double quotes)`;
	return reason;
}

/** Empty text (or nothing) reads as `undefined`: the field was left empty. */
export function parseJson(raw: unknown): JsonResult {
	if (typeof raw !== 'string') return { ok: true, value: raw };
	if (raw.trim() === '') return { ok: true, value: undefined };
	try {
		return { ok: true, value: JSON.parse(raw) as unknown };
	} catch (error) {
		const message = messageOf(error);
		const position = /at position (\d+)/.exec(message);
		const offset = position ? Number(position[1]) : undefined;
		const hint = raw.includes('{{') ? ' (it contains {{ }}: switch the field to Expression to evaluate it)' : '';
		let text = `not valid JSON: ${reasonOf(message, raw, offset)}${hint}`;
		if (offset === undefined) return { ok: false, problem: { at: 'JSON', message: text } };
		const near = `${raw.slice(Math.max(0, offset - 15), offset)}▸${raw.slice(offset, offset + 15)}`.replace(/\s+/g, ' ').trim();
		text += `; here: ${near}`;
		return { ok: false, problem: { at: `JSON ${lineAndColumn(raw, offset)}`, message: text } };
	}
}

/** Parses a JSON field of an item or throws the input error naming item and field. */
export function readJson(at: At, field: string, raw: unknown): unknown {
	const parsed = parseJson(raw);
	if (!parsed.ok) throw inputError(at, field, [parsed.problem]);
	return parsed.value;
}
