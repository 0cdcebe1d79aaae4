import type { Problem } from './types';

type ParseResult = { ok: true; value: unknown } | { ok: false; problem: Problem };

/**
 * Finds where a JSON text goes wrong. JSON.parse's messages differ between Node versions and some carry
 * no position ("Unexpected token 'a', … is not valid JSON"), so this small scanner finds the offset and
 * a reason of its own. It only needs to agree with JSON.parse on texts JSON.parse rejects. Each step
 * returns false once an error is recorded.
 */
function locateJsonError(text: string): { offset: number; reason: string } | undefined {
	let pos = 0;
	let error: { offset: number; reason: string } | undefined;
	const fail = (reason: string, at = pos): false => {
		error ??= { offset: at, reason };
		return false;
	};
	const skipSpace = (): void => {
		while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
	};
	const describe = (char: string | undefined): string => {
		if (char === undefined) return 'the text ends too early';
		if (char === "'") return "unexpected ' (JSON strings and names use double quotes)";
		return `unexpected ${JSON.stringify(char)}`;
	};
	const literal = (word: string): boolean => {
		if (!text.startsWith(word, pos)) return fail(describe(text[pos]));
		pos += word.length;
		return true;
	};
	const string = (): boolean => {
		const start = pos;
		pos++;
		while (pos < text.length) {
			const char = text[pos];
			if (char === '"') {
				pos++;
				return true;
			}
			if (char === '\\') {
				const next = text[pos + 1];
				if (next === 'u') {
					if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) return fail('bad \\u escape in a string');
					pos += 6;
				} else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
					pos += 2;
				} else {
					return fail('bad escape in a string');
				}
				continue;
			}
			if (char < ' ') return fail('line break or control character inside a string');
			pos++;
		}
		return fail('a string is not closed', start);
	};
	const number = (): boolean => {
		const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos));
		if (match === null || match[0] === '-') return fail(describe(text[pos]));
		pos += match[0].length;
		return true;
	};
	const list = (close: string, item: () => boolean): boolean => {
		pos++;
		skipSpace();
		if (text[pos] === close) {
			pos++;
			return true;
		}
		for (;;) {
			if (!item()) return false;
			skipSpace();
			const char = text[pos];
			if (char === close) {
				pos++;
				return true;
			}
			if (char !== ',') {
				return fail(char === undefined ? describe(char) : `expected "," or "${close}", found ${JSON.stringify(char)}`);
			}
			pos++;
			skipSpace();
			if (text[pos] === close) return fail(`a comma before "${close}" (remove the trailing comma)`);
		}
	};
	const member = (): boolean => {
		skipSpace();
		if (text[pos] !== '"') return fail(`${describe(text[pos])} where a name in double quotes should be`);
		if (!string()) return false;
		skipSpace();
		if (text[pos] !== ':') return fail(`expected ":" after a name, found ${describe(text[pos])}`);
		pos++;
		return value();
	};
	const value = (): boolean => {
		skipSpace();
		const char = text[pos];
		if (char === '{') return list('}', member);
		if (char === '[') return list(']', value);
		if (char === '"') return string();
		if (char === 't') return literal('true');
		if (char === 'f') return literal('false');
		if (char === 'n') return literal('null');
		if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
		return fail(describe(char));
	};
	if (value()) {
		skipSpace();
		if (pos < text.length) fail(`${describe(text[pos])} after the end of the JSON value`);
	}
	return error;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
	const before = text.slice(0, offset).split('\n');
	return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * Reads the JSON field's value: an object or array (from an expression) as it is, a string as JSON.
 * A parse error says at which line and column and what was found there.
 */
export function parseJsonValue(raw: unknown): ParseResult {
	if (typeof raw !== 'string') return { ok: true, value: raw };
	const text = raw;
	if (text.trim() === '') {
		return {
			ok: false,
			problem: {
				path: 'JSON',
				message: 'empty; give the rows, e.g. [[{"text": "Yes", "callback_data": "yes"}]], or the whole markup',
			},
		};
	}
	try {
		return { ok: true, value: JSON.parse(text) as unknown };
	} catch (error) {
		const found = locateJsonError(text);
		const parserMessage = error instanceof Error ? error.message : String(error);
		const hint = text.includes('{{') ? ' (it contains {{ }}: switch the field to Expression to evaluate it)' : '';
		if (found === undefined) {
			return { ok: false, problem: { path: 'JSON', message: `not valid JSON: ${parserMessage}${hint}` } };
		}
		const { line, column } = lineAndColumn(text, found.offset);
		const before = text.slice(Math.max(0, found.offset - 15), found.offset);
		const after = text.slice(found.offset, found.offset + 15);
		const near = `${before}▸${after}`.replace(/\s+/g, ' ').trim();
		return {
			ok: false,
			problem: {
				path: `JSON line ${line}, column ${column}`,
				message: `not valid JSON: ${found.reason}${hint}; here: ${near}`,
			},
		};
	}
}
