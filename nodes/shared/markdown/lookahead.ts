/**
 * The look-aheads of the inline parser, each answered from indexes built once per line, so that a
 * line is read in time linear in its length whatever it holds: where a link's destination and title
 * end, and which backtick run closes a code span.
 */
import { isAsciiPunctuation, isWhitespace } from './chars';

/** Look-aheads of a link's destination and title, each answered in constant time from arrays built in one pass. */
export interface LinkIndex {
	/** Unescaped `(` minus `)` before each position. */
	depth: Int32Array;
	/** The first position after each where the depth falls below the depth there (just after an unbalanced `)`). */
	depthFalls: Int32Array;
	/** The first position at or after each where a destination must stop (whitespace or a control character). */
	stop: Int32Array;
	/** The first position at or after each that is not whitespace. */
	nonSpace: Int32Array;
	/** The next unescaped occurrence of `"`, `'`, `(`, `)`, `<`, `>` at or after each position. */
	next: Record<string, Int32Array>;
}

const INDEXED = ['"', "'", '(', ')', '<', '>'];

export function linkIndex(text: string): LinkIndex {
	const length = text.length;
	const escaped = new Uint8Array(length + 1);
	for (let index = 0; index < length; index++) {
		if (text[index] === '\\' && !escaped[index] && isAsciiPunctuation(text[index + 1])) escaped[index + 1] = 1;
	}
	const depth = new Int32Array(length + 1);
	for (let index = 0; index < length; index++) {
		const char = text[index];
		depth[index + 1] = depth[index] + (escaped[index] ? 0 : char === '(' ? 1 : char === ')' ? -1 : 0);
	}
	// The next strictly lower depth after each position: a monotonic stack from the right.
	const depthFalls = new Int32Array(length + 1);
	const stack: number[] = [];
	for (let index = length; index >= 0; index--) {
		while (stack.length > 0 && depth[stack[stack.length - 1]] >= depth[index]) stack.pop();
		depthFalls[index] = stack.length > 0 ? stack[stack.length - 1] : length + 1;
		stack.push(index);
	}
	const stop = new Int32Array(length + 1);
	const nonSpace = new Int32Array(length + 1);
	const next: Record<string, Int32Array> = {};
	for (const char of INDEXED) next[char] = new Int32Array(length + 1).fill(-1);
	stop[length] = length;
	nonSpace[length] = length;
	for (let index = length - 1; index >= 0; index--) {
		const char = text[index];
		const code = text.charCodeAt(index);
		stop[index] = code <= 0x20 || code === 0x7f || isWhitespace(char) ? index : stop[index + 1];
		nonSpace[index] = isWhitespace(char) ? nonSpace[index + 1] : index;
		for (const indexed of INDEXED) next[indexed][index] = char === indexed && !escaped[index] ? index : next[indexed][index + 1];
	}
	return { depth, depthFalls, stop, nonSpace, next };
}

/** Removes backslash escapes (a backslash before ASCII punctuation). */
function unescape(text: string): string {
	let out = '';
	for (let index = 0; index < text.length; index++) {
		if (text[index] === '\\' && isAsciiPunctuation(text[index + 1])) index++;
		out += text[index];
	}
	return out;
}

/**
 * The inline link after a label's `]` at `start` (CommonMark: `(destination "title")`): its URL and
 * where it ends, or undefined.
 */
export function inlineLink(text: string, start: number, index: LinkIndex): { url: string; end: number } | undefined {
	if (text[start] !== '(') return undefined;
	let at = index.nonSpace[start + 1];
	let destination: string;
	if (text[at] === '<') {
		const close = index.next['>'][at + 1];
		const open = index.next['<'][at + 1];
		if (close < 0 || (open >= 0 && open < close)) return undefined;
		destination = text.slice(at + 1, close);
		at = close + 1;
	} else {
		// Up to whitespace or an unbalanced `)`; parentheses inside only when balanced.
		const end = Math.min(index.stop[at], index.depthFalls[at] - 1);
		if (index.depth[end] !== index.depth[at]) return undefined;
		destination = text.slice(at, end);
		at = end;
	}
	const afterDestination = index.nonSpace[at];
	if (text[afterDestination] === ')') return { url: unescape(destination), end: afterDestination + 1 };
	// A title: separated by whitespace, in "…", '…' or (…).
	const quote = text[afterDestination];
	if (afterDestination === at || (quote !== '"' && quote !== "'" && quote !== '(')) return undefined;
	const close = index.next[quote === '(' ? ')' : quote][afterDestination + 1];
	if (close < 0) return undefined;
	if (quote === '(') {
		const nested = index.next['('][afterDestination + 1];
		if (nested >= 0 && nested < close) return undefined;
	}
	const end = index.nonSpace[close + 1];
	return text[end] === ')' ? { url: unescape(destination), end: end + 1 } : undefined;
}

/** Where each backtick run of a line starts, by its length: a code span's closer is the next run of the same length. */
export class BacktickRuns {
	private readonly starts = new Map<number, number[]>();
	private readonly cursors = new Map<number, number>();

	constructor(text: string) {
		for (let index = 0; index < text.length; index++) {
			if (text[index] !== '`') continue;
			let end = index;
			while (text[end] === '`') end++;
			const runs = this.starts.get(end - index);
			if (runs) runs.push(index);
			else this.starts.set(end - index, [index]);
			index = end - 1;
		}
	}

	/** The first run of exactly `length` backticks starting at or after `from`, or -1. Asked with growing `from`. */
	closer(length: number, from: number): number {
		const runs = this.starts.get(length);
		if (!runs) return -1;
		let cursor = this.cursors.get(length) ?? 0;
		while (cursor < runs.length && runs[cursor] < from) cursor++;
		this.cursors.set(length, cursor);
		return cursor < runs.length ? runs[cursor] : -1;
	}
}
