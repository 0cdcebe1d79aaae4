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
 * This file reads the blocks, line by line, and is the converter's entry; inline.ts converts a
 * line's inline markup, table.ts a table, lookahead.ts answers the inline parser's look-aheads, and
 * html.ts keeps to what the service's HTML takes.
 */
import { isWhitespace } from './chars';
import { escapeAttribute, escapeHtml } from './html';
import { inlineHtml } from './inline';
import { isTableDelimiter, renderTable } from './table';

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

/**
 * Whether the last line of `markdown` is inside a code fence opened above it and not closed: code,
 * shown as written (a streamed answer holds nothing of it back).
 */
export function lastLineInFence(markdown: string): boolean {
	const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
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
