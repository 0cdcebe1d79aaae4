/**
 * Markdown as chat models write it (CommonMark with GitHub's tables and strikethrough) → the
 * service's HTML, for the parse mode "Markdown (From AI)". Whatever the input, the result parses: it
 * uses only tags the service takes (b, i, s, code, pre, a, blockquote), every tag it opens it closes
 * in order, nothing is nested where the service's rules forbid it (no code inside a link), and every
 * other `<`, `>` and `&` is escaped. What has no HTML in the service becomes readable text: a heading
 * bold, a list item a bullet (nested ones indented), a table monospaced in aligned columns, a rule a
 * line. Markup that is not closed stays as the characters it was; a code block that is not closed
 * runs to the end of the text, as CommonMark says.
 *
 * The text may come from any chat user (an AI bot quotes the user) and is converted inside n8n's
 * process, so the time taken is linear in its length whatever it holds: lines are read by small
 * scanners (no regular expression with nested or ambiguous quantifiers), emphasis is matched with
 * CommonMark's delimiter stack, and every look-ahead (the backtick run closing a code span, the end of
 * a link) is answered from indexes built once per line.
 */

import type { IDataObject } from 'n8n-workflow';

import { failureOf } from '../../shared/transport';

/** The parse mode value of Markdown from a chat model: converted here, sent as HTML. */
export const MARKDOWN_FROM_AI = 'markdownFromAi';

const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeHtml(text: string): string {
	return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (char) => HTML_ESCAPES[char]) : text;
}

function escapeAttribute(text: string): string {
	return escapeHtml(text).replace(/"/g, '&quot;');
}

/** Whitespace; the start and the end of a line (undefined) count as whitespace for emphasis. */
function isWhitespace(char: string | undefined): boolean {
	return char === undefined || /\s/.test(char);
}

function isPunctuation(char: string | undefined): boolean {
	return char !== undefined && (ASCII_PUNCTUATION.includes(char) || /[\p{P}\p{S}]/u.test(char));
}

function isAsciiPunctuation(char: string | undefined): boolean {
	return char !== undefined && char.length === 1 && ASCII_PUNCTUATION.includes(char);
}

const SCHEMES = ['https://', 'http://', 'mailto:', 'tg://'];

/** Links the service opens: web, mail and its own scheme, without spaces, quotes or angle brackets; anything else stays text. */
function safeUrl(url: string): string | undefined {
	const trimmed = url.trim();
	const start = trimmed.slice(0, 8).toLowerCase();
	const scheme = SCHEMES.find((candidate) => start.startsWith(candidate));
	if (scheme === undefined || trimmed.length === scheme.length) return undefined;
	for (let index = scheme.length; index < trimmed.length; index++) {
		const char = trimmed[index];
		if (char === '<' || char === '>' || char === '"' || isWhitespace(char)) return undefined;
	}
	return trimmed;
}

/** The characters that may start markup inline; any other character is text. */
const INLINE_SPECIAL = new Set(['\\', '`', '<', '*', '_', '~', '[', ']']);

/** A piece of a line's inline output: its HTML, the text a reader sees, and its HTML inside a link's label. */
interface Piece {
	html: string;
	text: string;
	/** Code and autolinks: inside a link's label they become text, as the service nests nothing in a link. */
	inLink?: string;
	delimiter?: Delimiter;
}

/** A run of `*`, `_` or `~~` that may open or close emphasis (CommonMark's delimiter run). */
interface Delimiter {
	char: string;
	/** The run's length as written, for the rule of 3. */
	length: number;
	/** The characters not yet used by a match. */
	count: number;
	canOpen: boolean;
	canClose: boolean;
	prev?: Delimiter;
	next?: Delimiter;
	/** Tags this run opens after its remaining characters, innermost first. */
	opens?: string[];
	/** Tags this run closes before its remaining characters, innermost first. */
	closes?: string[];
}

/** A `[` that may start a link's label. */
interface Bracket {
	piece: number;
	/** The last delimiter before it: emphasis inside the label is matched above it. */
	below?: Delimiter;
	active: boolean;
}

/** Where a delimiter kind keeps its openers' search floors: per character, whether the closer can open, and its length mod 3. */
function floorKey(delimiter: Delimiter): number {
	if (delimiter.char === '~') return 12;
	return (delimiter.char === '*' ? 0 : 6) + (delimiter.canOpen ? 3 : 0) + (delimiter.length % 3);
}

/** Look-aheads of a link's destination and title, each answered in constant time from arrays built in one pass. */
interface LinkIndex {
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

function linkIndex(text: string): LinkIndex {
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
function inlineLink(text: string, start: number, index: LinkIndex): { url: string; end: number } | undefined {
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
class BacktickRuns {
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

/** One line's inline Markdown, parsed into pieces (CommonMark's inline algorithm, restricted to what the service shows). */
class InlineParser {
	private readonly pieces: Piece[] = [];
	private pending = '';
	private top: Delimiter | undefined;
	private readonly brackets: Bracket[] = [];
	private backticks: BacktickRuns | undefined;
	private links: LinkIndex | undefined;

	constructor(private readonly text: string) {}

	parse(): Piece[] {
		const { text } = this;
		let index = 0;
		while (index < text.length) {
			const char = text[index];
			if (!INLINE_SPECIAL.has(char)) {
				let end = index + 1;
				while (end < text.length && !INLINE_SPECIAL.has(text[end])) end++;
				this.pending += text.slice(index, end);
				index = end;
			} else if (char === '\\') {
				if (isAsciiPunctuation(text[index + 1])) {
					this.pending += text[index + 1];
					index += 2;
				} else {
					this.pending += char;
					index++;
				}
			} else if (char === '`') {
				index = this.codeSpan(index);
			} else if (char === '<') {
				index = this.autolink(index);
			} else if (char === '[') {
				this.push({ html: '[', text: '[' });
				this.brackets.push({ piece: this.pieces.length - 1, below: this.top, active: true });
				index++;
			} else if (char === ']') {
				index = this.closeBracket(index);
			} else {
				index = this.delimiterRun(index);
			}
		}
		this.flush();
		this.processEmphasis(undefined);
		return this.pieces;
	}

	private flush(): void {
		if (this.pending === '') return;
		this.pieces.push({ html: escapeHtml(this.pending), text: this.pending });
		this.pending = '';
	}

	private push(piece: Piece): void {
		this.flush();
		this.pieces.push(piece);
	}

	private codeSpan(index: number): number {
		const { text } = this;
		let end = index;
		while (text[end] === '`') end++;
		const length = end - index;
		this.backticks ??= new BacktickRuns(text);
		const close = this.backticks.closer(length, end);
		if (close < 0) {
			this.pending += text.slice(index, end);
			return end;
		}
		let code = text.slice(end, close);
		if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
		this.push({ html: `<code>${escapeHtml(code)}</code>`, text: code, inLink: escapeHtml(code) });
		return close + length;
	}

	/** `<https://…>`: up to the first `>`, with no whitespace or `<` before it. */
	private autolink(index: number): number {
		const { text } = this;
		let end = index + 1;
		while (end < text.length && text[end] !== '>' && text[end] !== '<' && !isWhitespace(text[end])) end++;
		const url = text[end] === '>' ? safeUrl(text.slice(index + 1, end)) : undefined;
		if (url === undefined) {
			this.pending += '<';
			return index + 1;
		}
		this.push({ html: `<a href="${escapeAttribute(url)}">${escapeHtml(url)}</a>`, text: url, inLink: escapeHtml(`<${url}>`) });
		return end + 1;
	}

	private delimiterRun(index: number): number {
		const { text } = this;
		const char = text[index];
		let end = index;
		while (text[end] === char) end++;
		const run = text.slice(index, end);
		// Strikethrough is exactly two tildes; other tilde runs are text.
		if (char === '~' && run.length !== 2) {
			this.pending += run;
			return end;
		}
		const before = text[index - 1];
		const after = text[end];
		const leftFlanking = !isWhitespace(after) && (!isPunctuation(after) || isWhitespace(before) || isPunctuation(before));
		const rightFlanking = !isWhitespace(before) && (!isPunctuation(before) || isWhitespace(after) || isPunctuation(after));
		const canOpen = char === '_' ? leftFlanking && (!rightFlanking || isPunctuation(before)) : leftFlanking;
		const canClose = char === '_' ? rightFlanking && (!leftFlanking || isPunctuation(after)) : rightFlanking;
		if (!canOpen && !canClose) {
			this.pending += run;
			return end;
		}
		const delimiter: Delimiter = { char, length: run.length, count: run.length, canOpen, canClose, prev: this.top };
		if (this.top) this.top.next = delimiter;
		this.top = delimiter;
		this.push({ html: run, text: run, delimiter });
		return end;
	}

	private closeBracket(index: number): number {
		const opener = this.brackets.at(-1);
		if (!opener) {
			this.pending += ']';
			return index + 1;
		}
		const link = opener.active && this.text[index + 1] === '(' ? inlineLink(this.text, index + 1, (this.links ??= linkIndex(this.text))) : undefined;
		const url = link && safeUrl(link.url);
		this.brackets.pop();
		if (!link || url === undefined) {
			this.pending += ']';
			return index + 1;
		}
		this.flush();
		this.processEmphasis(opener.below);
		const empty = opener.piece === this.pieces.length - 1;
		for (let piece = opener.piece + 1; piece < this.pieces.length; piece++) {
			const inLink = this.pieces[piece].inLink;
			if (inLink !== undefined) this.pieces[piece].html = inLink;
		}
		this.pieces[opener.piece] = { html: `<a href="${escapeAttribute(url)}">`, text: '' };
		if (empty) this.pieces.push({ html: escapeHtml(url), text: url });
		this.pieces.push({ html: '</a>', text: '' });
		// No link inside a link: every `[` before this one can no longer start one. Those below an inactive one already are.
		for (let below = this.brackets.length - 1; below >= 0 && this.brackets[below].active; below--) this.brackets[below].active = false;
		return link.end;
	}

	/** CommonMark's "process emphasis" over the delimiters above `bottom`, which are then removed. */
	private processEmphasis(bottom: Delimiter | undefined): void {
		const floors: Array<Delimiter | undefined> = new Array<Delimiter | undefined>(13).fill(bottom);
		let closer = bottom ? bottom.next : this.first(bottom);
		while (closer) {
			if (!closer.canClose) {
				closer = closer.next;
				continue;
			}
			const key = floorKey(closer);
			let opener = closer.prev;
			while (opener && opener !== bottom && opener !== floors[key] && !this.matches(opener, closer)) opener = opener.prev;
			const found = opener !== undefined && opener !== bottom && opener !== floors[key];
			if (found && opener) {
				const use = closer.char === '~' || (closer.count >= 2 && opener.count >= 2) ? 2 : 1;
				const tag = closer.char === '~' ? 's' : use === 2 ? 'b' : 'i';
				opener.count -= use;
				closer.count -= use;
				(opener.opens ??= []).push(`<${tag}>`);
				(closer.closes ??= []).push(`</${tag}>`);
				// The delimiters between them can no longer match anything.
				opener.next = closer;
				closer.prev = opener;
				if (opener.count === 0) this.remove(opener);
				if (closer.count === 0) {
					const next = closer.next;
					this.remove(closer);
					closer = next;
				}
			} else {
				floors[key] = closer.prev;
				const next = closer.next;
				if (!closer.canOpen) this.remove(closer);
				closer = next;
			}
		}
		// Everything above the bottom is done.
		if (bottom) bottom.next = undefined;
		this.top = bottom;
	}

	private matches(opener: Delimiter, closer: Delimiter): boolean {
		if (opener.char !== closer.char || !opener.canOpen) return false;
		if (closer.char === '~') return true;
		// The rule of 3: a run that can both open and close does not pair with one making a multiple of 3.
		const bothWays = closer.canOpen || opener.canClose;
		return !(bothWays && closer.length % 3 !== 0 && (opener.length + closer.length) % 3 === 0);
	}

	private first(bottom: Delimiter | undefined): Delimiter | undefined {
		let delimiter = this.top;
		while (delimiter?.prev && delimiter.prev !== bottom) delimiter = delimiter.prev;
		return delimiter;
	}

	private remove(delimiter: Delimiter): void {
		if (delimiter.prev) delimiter.prev.next = delimiter.next;
		if (delimiter.next) delimiter.next.prev = delimiter.prev;
		if (this.top === delimiter) this.top = delimiter.prev;
	}
}

function pieceHtml(piece: Piece): string {
	const { delimiter } = piece;
	if (!delimiter) return piece.html;
	const closes = delimiter.closes?.join('') ?? '';
	const opens = delimiter.opens ? [...delimiter.opens].reverse().join('') : '';
	return `${closes}${delimiter.char.repeat(delimiter.count)}${opens}`;
}

/** Inline Markdown → HTML. Openers without a closer stay text, so tags always balance. */
function inlineHtml(text: string): string {
	return new InlineParser(text)
		.parse()
		.map((piece) => pieceHtml(piece))
		.join('');
}

/** The visible text of inline Markdown (for table cells, which are shown monospaced). */
function inlineText(text: string): string {
	return new InlineParser(text)
		.parse()
		.map((piece) => (piece.delimiter ? piece.delimiter.char.repeat(piece.delimiter.count) : piece.text))
		.join('');
}

/** Where a line's content starts after up to 3 spaces of indentation. */
function indentEnd(line: string): number {
	let index = 0;
	while (index < 3 && line[index] === ' ') index++;
	return index;
}

function runEnd(line: string, from: number, char: string): number {
	let end = from;
	while (line[end] === char) end++;
	return end;
}

function isBlank(line: string, from = 0): boolean {
	for (let index = from; index < line.length; index++) if (!isWhitespace(line[index])) return false;
	return true;
}

function isLanguageChar(char: string): boolean {
	return /[\w+#.-]/.test(char);
}

/** A code fence: 3 or more backticks or tildes, an optional language, no backtick after them. */
function fenceOf(line: string): { char: string; length: number; language: string } | undefined {
	const start = indentEnd(line);
	const char = line[start];
	if (char !== '`' && char !== '~') return undefined;
	const end = runEnd(line, start, char);
	if (end - start < 3 || line.includes('`', end)) return undefined;
	let languageStart = end;
	while (languageStart < line.length && isWhitespace(line[languageStart])) languageStart++;
	let languageEnd = languageStart;
	while (languageEnd < line.length && isLanguageChar(line[languageEnd])) languageEnd++;
	return { char, length: end - start, language: line.slice(languageStart, languageEnd) };
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
	const start = indentEnd(line);
	const end = runEnd(line, start, fence.char);
	return end - start >= fence.length && isBlank(line, end);
}

/** An ATX heading's content (`## Title ##` → `Title`), or undefined when the line is not one. */
function headingOf(line: string): string | undefined {
	const start = indentEnd(line);
	const end = runEnd(line, start, '#');
	if (end === start || end - start > 6 || !isWhitespace(line[end])) return undefined;
	const content = line.slice(end).trim();
	// A closing sequence of # counts only after whitespace (or alone).
	let closing = content.length;
	while (closing > 0 && content[closing - 1] === '#') closing--;
	if (closing === 0) return '';
	return closing < content.length && isWhitespace(content[closing - 1]) ? content.slice(0, closing).trimEnd() : content;
}

/** A thematic break: 3 or more of the same `-`, `*` or `_`, with only whitespace between. */
function isRule(line: string): boolean {
	const start = indentEnd(line);
	const char = line[start];
	if (char !== '-' && char !== '*' && char !== '_') return false;
	let count = 0;
	for (let index = start; index < line.length; index++) {
		if (line[index] === char) count++;
		else if (!isWhitespace(line[index])) return false;
	}
	return count >= 3;
}

function quoteOf(line: string): string | undefined {
	const start = indentEnd(line);
	if (line[start] !== '>') return undefined;
	return line.slice(start + 1 + (line.length > start + 1 && isWhitespace(line[start + 1]) ? 1 : 0));
}

function isDigit(char: string | undefined): boolean {
	return char !== undefined && char >= '0' && char <= '9';
}

/** A list item: its indentation (tabs as 4), its marker and its content. */
function listItemOf(line: string): { indent: number; marker: string; content: string } | undefined {
	let start = 0;
	let indent = 0;
	while (start < line.length && isWhitespace(line[start])) indent += line[start++] === '\t' ? 4 : 1;
	let end = start;
	if ('-*+'.includes(line[start] ?? 'x')) end = start + 1;
	else {
		end = start;
		while (isDigit(line[end])) end++;
		if (end === start || end - start > 9 || (line[end] !== '.' && line[end] !== ')')) return undefined;
		end++;
	}
	if (end >= line.length || !isWhitespace(line[end])) return undefined;
	let content = end;
	while (content < line.length && isWhitespace(line[content])) content++;
	return { indent, marker: line.slice(start, end), content: line.slice(content) };
}

/** A table's delimiter row: cells of `:?-+:?` between pipes, the outer pipes optional. */
function isTableDelimiter(line: string): boolean {
	let row = line.trim();
	if (row.startsWith('|')) row = row.slice(1);
	if (row.endsWith('|')) row = row.slice(0, -1);
	for (const cell of row.split('|')) {
		const trimmed = cell.trim();
		const from = trimmed.startsWith(':') ? 1 : 0;
		const to = trimmed.length - (trimmed.length > from && trimmed.endsWith(':') ? 1 : 0);
		if (to <= from) return false;
		for (let index = from; index < to; index++) if (trimmed[index] !== '-') return false;
	}
	return true;
}

function tableCells(line: string): string[] {
	let row = line.trim();
	if (row.startsWith('|')) row = row.slice(1);
	if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
	const cells: string[] = [];
	let start = 0;
	for (let index = 0; index <= row.length; index++) {
		if (index < row.length && (row[index] !== '|' || row[index - 1] === '\\')) continue;
		cells.push(inlineText(row.slice(start, index).trim().replace(/\\\|/g, '|')));
		start = index + 1;
	}
	return cells;
}

/** Aligned columns may pad a table up to this many times its own length; beyond, cells are not padded. */
const TABLE_PADDING_FACTOR = 4;

/** A table in aligned columns, monospaced: the service has no table. */
function renderTable(header: string, rows: string[]): string {
	const lines = [tableCells(header), ...rows.map(tableCells)];
	const widths: number[] = [];
	let written = header.length;
	for (const row of rows) written += row.length;
	for (const cells of lines) {
		for (let column = 0; column < cells.length; column++) widths[column] = Math.max(widths[column] ?? 0, Array.from(cells[column]).length);
	}
	let lineWidth = 0;
	for (const width of widths) lineWidth += width + 3;
	// A few wide columns over many short rows would pad the text to the square of its length.
	const aligned = lineWidth * lines.length <= TABLE_PADDING_FACTOR * written + 1024;
	const format = (cells: string[]): string =>
		aligned
			? widths
					.map((width, column) => {
						const cell = cells[column] ?? '';
						return cell + ' '.repeat(width - Array.from(cell).length);
					})
					.join(' | ')
					.trimEnd()
			: cells.join(' | ');
	const rule = (aligned ? widths : lines[0].map((cell) => Array.from(cell).length)).map((width) => '-'.repeat(Math.max(width, 1))).join('-+-');
	return `<pre>${escapeHtml([format(lines[0]), rule, ...lines.slice(1).map(format)].join('\n'))}</pre>`;
}

/** Markdown → the service's HTML (see the top of this file). */
export function markdownToHtml(markdown: string): string {
	const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
	const out: string[] = [];
	for (let index = 0; index < lines.length; index++) {
		const line = lines[index];
		const fence = fenceOf(line);
		if (fence) {
			const body: string[] = [];
			index++;
			while (index < lines.length && !closesFence(lines[index], fence)) body.push(lines[index++]);
			const code = escapeHtml(body.join('\n'));
			out.push(fence.language ? `<pre><code class="language-${escapeAttribute(fence.language)}">${code}</code></pre>` : `<pre>${code}</pre>`);
			continue;
		}
		if (line.includes('|') && index + 1 < lines.length && isTableDelimiter(lines[index + 1])) {
			const rows: string[] = [];
			let next = index + 2;
			while (next < lines.length && lines[next].includes('|') && !isBlank(lines[next])) rows.push(lines[next++]);
			out.push(renderTable(line, rows));
			index = next - 1;
			continue;
		}
		const heading = headingOf(line);
		if (heading !== undefined) {
			out.push(heading ? `<b>${inlineHtml(heading)}</b>` : '');
			continue;
		}
		if (isRule(line)) {
			out.push('———');
			continue;
		}
		const quote = quoteOf(line);
		if (quote !== undefined) {
			const quoted = [quote];
			while (index + 1 < lines.length) {
				const next = quoteOf(lines[index + 1]);
				if (next === undefined) break;
				quoted.push(next);
				index++;
			}
			out.push(`<blockquote>${quoted.map((text) => inlineHtml(text)).join('\n')}</blockquote>`);
			continue;
		}
		const item = listItemOf(line);
		if (item) {
			const marker = isDigit(item.marker[0]) ? `${item.marker.slice(0, -1)}.` : '•';
			out.push(`${'  '.repeat(Math.floor(item.indent / 2))}${marker} ${inlineHtml(item.content)}`);
			continue;
		}
		out.push(inlineHtml(line));
	}
	return out.join('\n');
}

/**
 * A request body in the parse mode Markdown From AI: its text (or caption) converted, sent as HTML.
 * Any other body is returned as it is.
 */
export function withMarkdownConverted(body: IDataObject): IDataObject {
	if (body.parse_mode !== MARKDOWN_FROM_AI) return body;
	const converted: IDataObject = { ...body, parse_mode: 'HTML' };
	for (const field of ['text', 'caption']) {
		if (typeof body[field] === 'string') converted[field] = markdownToHtml(body[field]);
	}
	return converted;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** What a reader sees of the service's HTML: the tags gone, the entities as their characters. */
export function visibleText(html: string): string {
	return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot);/g, (_, name: string) => ENTITIES[name]);
}

/**
 * The same request without its formatting: its text (or caption) as a reader would have seen it, and
 * no parse mode. Sent when the service refuses the converted HTML after all (a service whose rules
 * differ from the spec's), so a model's answer is never lost to formatting.
 */
export function withoutFormatting(body: IDataObject): IDataObject {
	const plain: IDataObject = { ...body };
	delete plain.parse_mode;
	for (const field of ['text', 'caption']) {
		if (typeof body[field] === 'string') plain[field] = visibleText(body[field]);
	}
	return plain;
}

/** Whether the service refused a request for its formatting ("Bad Request: can't parse entities: …"). */
export function formattingRefused(error: unknown): boolean {
	const failure = failureOf(error);
	return failure?.kind === 'refused' && failure.status === 400 && /can't parse entities/i.test(failure.description);
}
