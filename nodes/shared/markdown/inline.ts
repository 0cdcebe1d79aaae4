/**
 * One text's inline Markdown → the service's HTML: code spans, autolinks, links, and emphasis matched
 * with CommonMark's delimiter stack (linear in the text: every look-ahead comes from lookahead.ts). A
 * text is a line, or the lines of a paragraph joined by \n (blocks.ts): a line break is whitespace to
 * emphasis, a space in a code span, and may stand in a link's label.
 */
import { isAsciiPunctuation, isPunctuation, isWhitespace } from './chars';
import { escapeAttribute, escapeHtml, safeUrl } from './html';
import type { LinkIndex } from './lookahead';
import { BacktickRuns, inlineLink, linkIndex } from './lookahead';

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
	/** Where the run starts in the line. */
	at: number;
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
	/** Where the `[` is in the line. */
	at: number;
	/** The last delimiter before it: emphasis inside the label is matched above it. */
	below?: Delimiter;
	active: boolean;
}

/** Where a delimiter kind keeps its openers' search floors: per character, whether the closer can open, and its length mod 3. */
function floorKey(delimiter: Delimiter): number {
	if (delimiter.char === '~') return 12;
	return (delimiter.char === '*' ? 0 : 6) + (delimiter.canOpen ? 3 : 0) + (delimiter.length % 3);
}

/** One text's inline Markdown, parsed into pieces (CommonMark's inline algorithm, restricted to what the service shows). */
class InlineParser {
	private readonly pieces: Piece[] = [];
	private pending = '';
	private top: Delimiter | undefined;
	private readonly brackets: Bracket[] = [];
	private backticks: BacktickRuns | undefined;
	private links: LinkIndex | undefined;
	/** The first markup that stayed text only because the line ends before it is complete (`unfinishedFrom`). */
	private unfinished: number | undefined;

	constructor(private readonly text: string) {}

	/** Where the line's first unfinished markup starts: an opener with no closer yet, a code span, link or autolink not closed, a last backslash. */
	unfinishedFrom(): number | undefined {
		this.parse();
		let first = this.unfinished;
		for (const piece of this.pieces) {
			const delimiter = piece.delimiter;
			if (!delimiter) continue;
			// An opener still waiting for its closer, or a run at the text's end that closed nothing or has
			// characters left: the next character may make it (or what is left of it) an opener (`*` then
			// `*b`; `***` closing `**` then `c*`).
			const open = delimiter.canOpen && delimiter.count > 0;
			const last = delimiter.at + delimiter.length === this.text.length && (!delimiter.closes || delimiter.count > 0);
			if (open || last) first = Math.min(first ?? delimiter.at, delimiter.at);
		}
		for (const bracket of this.brackets) first = Math.min(first ?? bracket.at, bracket.at);
		return first;
	}

	private markUnfinished(at: number): void {
		this.unfinished = Math.min(this.unfinished ?? at, at);
	}

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
					if (index === text.length - 1) this.markUnfinished(index);
					this.pending += char;
					index++;
				}
			} else if (char === '`') {
				index = this.codeSpan(index);
			} else if (char === '<') {
				index = this.autolink(index);
			} else if (char === '[') {
				this.push({ html: '[', text: '[' });
				this.brackets.push({ piece: this.pieces.length - 1, at: index, below: this.top, active: true });
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
			this.markUnfinished(index);
			this.pending += text.slice(index, end);
			return end;
		}
		// A line ending inside a code span is a space, the next line's indentation gone (CommonMark 6.1 and 4.8).
		let code = text.slice(end, close);
		if (code.includes('\n')) code = code.replace(/\n[ \t]*/g, ' ');
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
			if (end === text.length) this.markUnfinished(index);
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
		// Strikethrough is exactly two tildes; other tilde runs are text (at the line's end, the next
		// character may still make one: `~` then `~~`).
		if (char === '~' && run.length !== 2) {
			if (end === text.length) this.markUnfinished(index);
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
			if (end === text.length) this.markUnfinished(index);
			this.pending += run;
			return end;
		}
		const delimiter: Delimiter = { char, at: index, length: run.length, count: run.length, canOpen, canClose, prev: this.top };
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
			// `[label](…` with its `)` still to come, or `[label]` at the line's end: a link being written.
			if (opener.active && (this.text[index + 1] === '(' || index + 1 === this.text.length)) this.markUnfinished(opener.at);
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
export function inlineHtml(text: string): string {
	return new InlineParser(text)
		.parse()
		.map((piece) => pieceHtml(piece))
		.join('');
}

/** The visible text of inline Markdown (for table cells, which are shown monospaced). */
export function inlineText(text: string): string {
	return new InlineParser(text)
		.parse()
		.map((piece) => (piece.delimiter ? piece.delimiter.char.repeat(piece.delimiter.count) : piece.text))
		.join('');
}

/**
 * Where a text's first unfinished markup starts (undefined: none), for an answer still being written:
 * an emphasis opener with no closer yet, a code span, link or autolink not closed, a last backslash.
 * The converter shows those as text, and the next words (maybe on the paragraph's next line) could
 * make them markup, so a streamed answer holds the paragraph back from there until it is complete.
 */
export function unfinishedFrom(text: string): number | undefined {
	return new InlineParser(text).unfinishedFrom();
}
