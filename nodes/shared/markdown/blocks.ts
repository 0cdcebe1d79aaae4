/**
 * Markdown as chat models write it (CommonMark with GitHub's tables and strikethrough) → the
 * service's HTML, for the parse mode "Markdown From AI" (parseMode.ts). Whatever the input, the result parses: it
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
 *
 * This file reads the lines into blocks and is the converter's entry; inline.ts converts the inline
 * markup of a paragraph (its lines as one text, so that emphasis, code spans and links cross its line
 * breaks as in CommonMark; likewise a list item with the lines that continue it, and each paragraph
 * of a quote), table.ts a table, lookahead.ts answers the inline parser's look-aheads, and html.ts
 * keeps to what the service's HTML takes. It is one file over 300 lines because the block reader and
 * the streamed answer's questions "which text does the last line belong to" (`lastTextStart`) and
 * "may the table at the end still change shape" (`unsettledTableFrom`) must group lines by the same
 * rules: one reader, `readBlocks`, answers all of them.
 */
import { isWhitespace } from './chars';
import { escapeAttribute, escapeHtml } from './html';
import { inlineHtml } from './inline';
import { isTableDelimiter, mayBecomeDelimiter, renderTable } from './table';

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

/** Whether lines[index] starts a table: a header row with its delimiter row below it. */
function startsTable(lines: readonly string[], index: number): boolean {
	return lines[index].includes('|') && index + 1 < lines.length && isTableDelimiter(lines[index + 1]);
}

/**
 * Whether a line goes on with the text of the paragraph, list item or quote line above it (CommonMark's
 * paragraph continuation): not blank, and starting no block of its own.
 */
function continuesText(lines: readonly string[], index: number): boolean {
	const line = lines[index];
	return (
		!isBlank(line) &&
		!fenceOf(line) &&
		!startsTable(lines, index) &&
		headingOf(line) === undefined &&
		!isRule(line) &&
		quoteOf(line) === undefined &&
		!listItemOf(line)
	);
}

/** The end (exclusive) of the lines that continue the text of lines[from - 1]. */
function continuationEnd(lines: readonly string[], from: number): number {
	let end = from;
	while (end < lines.length && continuesText(lines, end)) end++;
	return end;
}

/**
 * The blocks of a text, each a range of its lines. A paragraph (its lines up to a blank line or a
 * line that starts a block), a list item with the lines that continue it, and each paragraph of a
 * quote are one inline text: emphasis, code spans and links cross their line breaks as in CommonMark.
 * A quote ends at the first line without `>` (no lazy continuation: the line after it is shown apart).
 */
type Block =
	| { kind: 'fence'; from: number; to: number; language: string; closed: boolean }
	| { kind: 'table'; from: number; to: number }
	| { kind: 'heading'; from: number; to: number; content: string }
	| { kind: 'rule'; from: number; to: number }
	| { kind: 'quote'; from: number; to: number; contents: string[] }
	| { kind: 'item'; from: number; to: number; item: { indent: number; marker: string; content: string } }
	| { kind: 'paragraph'; from: number; to: number };

function readBlocks(lines: readonly string[]): Block[] {
	const blocks: Block[] = [];
	let index = 0;
	while (index < lines.length) {
		const from = index;
		const line = lines[index];
		const fence = fenceOf(line);
		if (fence) {
			index++;
			while (index < lines.length && !closesFence(lines[index], fence)) index++;
			const closed = index < lines.length;
			if (closed) index++;
			blocks.push({ kind: 'fence', from, to: index, language: fence.language, closed });
			continue;
		}
		if (startsTable(lines, index)) {
			index += 2;
			while (index < lines.length && lines[index].includes('|') && !isBlank(lines[index])) index++;
			blocks.push({ kind: 'table', from, to: index });
			continue;
		}
		const heading = headingOf(line);
		if (heading !== undefined) {
			blocks.push({ kind: 'heading', from, to: ++index, content: heading });
			continue;
		}
		if (isRule(line)) {
			blocks.push({ kind: 'rule', from, to: ++index });
			continue;
		}
		const quote = quoteOf(line);
		if (quote !== undefined) {
			const contents = [quote];
			for (index++; index < lines.length; index++) {
				const next = quoteOf(lines[index]);
				if (next === undefined) break;
				contents.push(next);
			}
			blocks.push({ kind: 'quote', from, to: index, contents });
			continue;
		}
		const item = listItemOf(line);
		if (item) {
			index = continuationEnd(lines, index + 1);
			blocks.push({ kind: 'item', from, to: index, item });
			continue;
		}
		index = isBlank(line) ? index + 1 : continuationEnd(lines, index + 1);
		blocks.push({ kind: 'paragraph', from, to: index });
	}
	return blocks;
}

/** A quote's lines as HTML: each of its paragraphs (up to a blank quote line or a block's marker) one inline text. */
function quoteHtml(contents: readonly string[]): string {
	const out: string[] = [];
	for (let index = 0; index < contents.length; ) {
		const end = isBlank(contents[index]) ? index + 1 : continuationEnd(contents, index + 1);
		out.push(inlineHtml(contents.slice(index, end).join('\n')));
		index = end;
	}
	return out.join('\n');
}

/** The lines of a text, its line endings as \n. */
function linesOf(markdown: string): string[] {
	return markdown.replace(/\r\n?/g, '\n').split('\n');
}

/**
 * Whether the last line of `markdown` is inside a code fence opened above it and not closed: code,
 * shown as written (a streamed answer holds nothing of it back).
 */
export function lastLineInFence(markdown: string): boolean {
	const lines = linesOf(markdown);
	let open: { char: string; length: number } | undefined;
	for (let index = 0; index < lines.length - 1; index++) {
		if (open) {
			if (closesFence(lines[index], open)) open = undefined;
		} else {
			open = fenceOf(lines[index]);
		}
	}
	return open !== undefined;
}

/**
 * Where the inline text that holds the last line of `markdown` (its line endings as \n) starts: the
 * first line of its paragraph, list item or quote paragraph, as an offset. Undefined when the last
 * line is in a heading, a table, a fence or a rule, or is blank after a blank line.
 * A streamed answer holds that text back from its first unfinished markup, which a later line may close.
 */
export function lastTextStart(markdown: string): number | undefined {
	const lines = linesOf(markdown);
	const blocks = readBlocks(lines);
	let last = blocks.at(-1);
	// A blank last line may still become a line that continues the text above it (the answer is still
	// being written): the text is the block above, the blank line with it. After two, the text ended.
	if (last?.kind === 'paragraph' && isBlank(lines[last.from]) && blocks.length > 1) {
		last = blocks[blocks.length - 2];
		if (last.kind === 'paragraph' && isBlank(lines[last.from])) return undefined;
	}
	if (!last || last.kind === 'fence' || last.kind === 'table' || last.kind === 'heading' || last.kind === 'rule') return undefined;
	let from = last.from;
	if (last.kind === 'quote') {
		// The last paragraph of the quote: after its last blank quote line or block marker.
		const { contents } = last;
		let start = contents.length - 1;
		// A blank last quote line may still become one that continues the paragraph above it.
		if (start > 0 && isBlank(contents[start]) && !isBlank(contents[start - 1])) start--;
		while (start > 0 && continuesText(contents, start)) start--;
		from += start;
	}
	let offset = 0;
	for (let index = 0; index < from; index++) offset += lines[index].length + 1;
	return offset;
}

/** Words that read the same as paragraph text and as a table's cell (no markup, no block marker). */
const PLAIN_WORDS = /^[\p{L}\p{N}\p{Zs},.:;!?'"()/%+=-]*$/u;
const HAS_WORD = /[\p{L}\p{N}]/u;

/**
 * Where a streamed answer holds back a table that may still change shape: a table whose rows may still
 * come (its last row is the last line, or the last line, not yet ended by a line break, comes right
 * after it and may still become a row: each row may widen a column already shown), or a last line with
 * `|` that may still become a table's header row (it is the last line, or the last line may still
 * become its delimiter row). Undefined when no table is unsettled: a table that ended (a blank line, a
 * whole line without `|`) is shown whole. The table is held from its header row's start, or, for a
 * header row without a leading pipe that would be paragraph text (`Name | Price`), from its first `|`:
 * those first words were already shown and read the same as the table's first cell. Linear in the
 * text (one reading of its blocks).
 */
export function unsettledTableFrom(markdown: string): number | undefined {
	const lines = linesOf(markdown);
	const last = lines.length - 1;
	let header: number | undefined;
	// The last table, if any, is one of the last two blocks (a partial line may follow it).
	for (const block of readBlocks(lines).slice(-2)) if (block.kind === 'table' && block.to >= last) header = block.from;
	if (header === undefined) {
		if (last > 0 && lines[last - 1].includes('|') && mayBecomeDelimiter(lines[last])) header = last - 1;
		else if (lines[last].includes('|')) header = last;
		else return undefined;
	}
	let offset = 0;
	for (let index = 0; index < header; index++) offset += lines[index].length + 1;
	const line = lines[header];
	const pipe = line.indexOf('|');
	const words = line.slice(0, pipe).trimEnd();
	const paragraphLine = !fenceOf(line) && headingOf(line) === undefined && !isRule(line) && quoteOf(line) === undefined && !listItemOf(line);
	if (!paragraphLine || !HAS_WORD.test(words) || !PLAIN_WORDS.test(words)) return offset;
	// One space after the words: the table's first cell is followed by its padding and ` | `.
	return offset + Math.min(pipe, words.length + 1);
}

/** Markdown → the service's HTML (see the top of this file). */
export function markdownToHtml(markdown: string): string {
	const lines = linesOf(markdown);
	const out: string[] = [];
	for (const block of readBlocks(lines)) {
		switch (block.kind) {
			case 'fence': {
				const code = escapeHtml(lines.slice(block.from + 1, block.closed ? block.to - 1 : block.to).join('\n'));
				out.push(block.language ? `<pre><code class="language-${escapeAttribute(block.language)}">${code}</code></pre>` : `<pre>${code}</pre>`);
				break;
			}
			case 'table':
				out.push(renderTable(lines[block.from], lines.slice(block.from + 2, block.to)));
				break;
			case 'heading':
				out.push(block.content ? `<b>${inlineHtml(block.content)}</b>` : '');
				break;
			case 'rule':
				out.push('———');
				break;
			case 'quote':
				out.push(`<blockquote>${quoteHtml(block.contents)}</blockquote>`);
				break;
			case 'item': {
				const { item } = block;
				const marker = isDigit(item.marker[0]) ? `${item.marker.slice(0, -1)}.` : '•';
				const text = [item.content, ...lines.slice(block.from + 1, block.to)].join('\n');
				out.push(`${'  '.repeat(Math.floor(item.indent / 2))}${marker} ${inlineHtml(text)}`);
				break;
			}
			case 'paragraph':
				out.push(inlineHtml(lines.slice(block.from, block.to).join('\n')));
				break;
		}
	}
	return out.join('\n');
}
