/**
 * Markdown as chat models write it (CommonMark with GitHub's tables and strikethrough) → the
 * service's HTML, for the parse mode "Markdown (From AI)". Whatever the input, the result parses: it
 * uses only tags the service takes (b, i, s, code, pre, a, blockquote), every tag it opens it closes
 * in order, and every other `<`, `>` and `&` is escaped. What has no HTML in the service becomes
 * readable text: a heading bold, a list item a bullet (nested ones indented), a table monospaced in
 * aligned columns, a rule a line. Markup that is not closed stays as the characters it was.
 */

import type { IDataObject } from 'n8n-workflow';

import { failureOf } from '../../shared/transport';

/** The parse mode value of Markdown from a chat model: converted here, sent as HTML. */
export const MARKDOWN_FROM_AI = 'markdownFromAi';

const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

export function escapeHtml(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
	return escapeHtml(text).replace(/"/g, '&quot;');
}

function isWordChar(char: string | undefined): boolean {
	return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

function isSpace(char: string | undefined): boolean {
	return char === undefined || /\s/.test(char);
}

/** Links the service opens: web, mail and its own scheme; anything else stays text. */
function safeUrl(url: string): string | undefined {
	const trimmed = url.trim();
	return /^(https?:\/\/|mailto:|tg:\/\/)[^\s<>"]+$/i.test(trimmed) ? trimmed : undefined;
}

/** The emphasis delimiters, longest first, and the tag each becomes. */
const EMPHASIS: ReadonlyArray<{ delimiter: string; tag: 'b' | 'i' | 's' }> = [
	{ delimiter: '**', tag: 'b' },
	{ delimiter: '__', tag: 'b' },
	{ delimiter: '~~', tag: 's' },
	{ delimiter: '*', tag: 'i' },
	{ delimiter: '_', tag: 'i' },
];

/** Whether a delimiter at `index` may open (followed by a non-space; `_` not inside a word). */
function canOpen(text: string, index: number, delimiter: string): boolean {
	const after = text[index + delimiter.length];
	if (isSpace(after)) return false;
	return !(delimiter[0] === '_' && isWordChar(text[index - 1]));
}

/** Whether a delimiter at `index` may close (preceded by a non-space; `_` not inside a word). */
function canClose(text: string, index: number, delimiter: string): boolean {
	if (isSpace(text[index - 1])) return false;
	return !(delimiter[0] === '_' && isWordChar(text[index + delimiter.length]));
}

/** Where a code span opened by `run` backticks at `index` closes, or -1. */
function codeSpanEnd(text: string, index: number, run: number): number {
	let at = index + run;
	while (at < text.length) {
		const next = text.indexOf('`'.repeat(run), at);
		if (next < 0) return -1;
		let length = 0;
		while (text[next + length] === '`') length++;
		if (length === run) return next;
		at = next + length;
	}
	return -1;
}

function backtickRun(text: string, index: number): number {
	let run = 0;
	while (text[index + run] === '`') run++;
	return run;
}

/** The closing `]` of a link text opened at `index`, skipping escapes and code spans, or -1. */
function linkTextEnd(text: string, index: number): number {
	let depth = 0;
	for (let at = index; at < text.length; at++) {
		const char = text[at];
		if (char === '\\') at++;
		else if (char === '`') {
			const run = backtickRun(text, at);
			const end = codeSpanEnd(text, at, run);
			if (end < 0) at += run - 1;
			else at = end + run - 1;
		} else if (char === '[') depth++;
		else if (char === ']' && --depth === 0) return at;
	}
	return -1;
}

/**
 * Inline Markdown → HTML. `stop` ends the run at a closing delimiter (for emphasis contents); the
 * result says where it stopped. Openers without a closer stay text, so tags always balance.
 */
function inline(text: string, from = 0, stop?: string, links = true): { html: string; end: number; closed: boolean } {
	let html = '';
	let index = from;
	while (index < text.length) {
		const char = text[index];
		if (stop !== undefined && text.startsWith(stop, index) && canClose(text, index, stop) && index > from) {
			return { html, end: index + stop.length, closed: true };
		}
		if (char === '\\' && index + 1 < text.length && PUNCTUATION.includes(text[index + 1])) {
			html += escapeHtml(text[index + 1]);
			index += 2;
			continue;
		}
		if (char === '`') {
			const run = backtickRun(text, index);
			const end = codeSpanEnd(text, index, run);
			if (end < 0) {
				html += '`'.repeat(run);
				index += run;
				continue;
			}
			let code = text.slice(index + run, end);
			if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
			html += `<code>${escapeHtml(code)}</code>`;
			index = end + run;
			continue;
		}
		if (char === '<') {
			const close = text.indexOf('>', index);
			const url = close < 0 ? undefined : safeUrl(text.slice(index + 1, close));
			if (links && url !== undefined) {
				html += `<a href="${escapeAttribute(url)}">${escapeHtml(url)}</a>`;
				index = close + 1;
				continue;
			}
		}
		if (char === '[' && links) {
			const textEnd = linkTextEnd(text, index);
			if (textEnd > index && text[textEnd + 1] === '(') {
				const urlEnd = text.indexOf(')', textEnd + 2);
				const url = urlEnd < 0 ? undefined : safeUrl(text.slice(textEnd + 2, urlEnd).split(/\s+"/)[0]);
				if (url !== undefined) {
					const label = inline(text.slice(index + 1, textEnd), 0, undefined, false).html;
					html += `<a href="${escapeAttribute(url)}">${label === '' ? escapeHtml(url) : label}</a>`;
					index = urlEnd + 1;
					continue;
				}
			}
		}
		const emphasis = EMPHASIS.find(({ delimiter }) => text.startsWith(delimiter, index));
		if (emphasis && canOpen(text, index, emphasis.delimiter)) {
			const inner = inline(text, index + emphasis.delimiter.length, emphasis.delimiter, links);
			if (inner.closed) {
				html += `<${emphasis.tag}>${inner.html}</${emphasis.tag}>`;
				index = inner.end;
				continue;
			}
			html += escapeHtml(emphasis.delimiter);
			index += emphasis.delimiter.length;
			continue;
		}
		html += escapeHtml(char);
		index++;
	}
	return { html, end: index, closed: false };
}

function inlineHtml(text: string): string {
	return inline(text).html;
}

/** The visible text of inline Markdown (for table cells, which are shown monospaced). */
function inlineText(text: string): string {
	return inlineHtml(text)
		.replace(/<[^>]*>/g, '')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&amp;/g, '&');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function tableCells(line: string): string[] {
	let row = line.trim();
	if (row.startsWith('|')) row = row.slice(1);
	if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
	return row.split(/(?<!\\)\|/).map((cell) => inlineText(cell.trim().replace(/\\\|/g, '|')));
}

/** A table in aligned columns, monospaced: the service has no table. */
function renderTable(header: string, rows: string[]): string {
	const lines = [tableCells(header), ...rows.map(tableCells)];
	const columns = Math.max(...lines.map((cells) => cells.length));
	const widths = Array.from({ length: columns }, (_, column) => Math.max(...lines.map((cells) => Array.from(cells[column] ?? '').length)));
	const format = (cells: string[]): string =>
		widths
			.map((width, column) => {
				const cell = cells[column] ?? '';
				return cell + ' '.repeat(width - Array.from(cell).length);
			})
			.join(' | ')
			.trimEnd();
	const rule = widths.map((width) => '-'.repeat(Math.max(width, 1))).join('-+-');
	return `<pre>${escapeHtml([format(lines[0]), rule, ...lines.slice(1).map(format)].join('\n'))}</pre>`;
}

/** Markdown → the service's HTML (see the top of this file). */
export function markdownToHtml(markdown: string): string {
	const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
	const out: string[] = [];
	for (let index = 0; index < lines.length; index++) {
		const line = lines[index];
		const fence = FENCE.exec(line);
		if (fence) {
			const marker = fence[1];
			const body: string[] = [];
			index++;
			while (index < lines.length && !new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[index])) {
				body.push(lines[index]);
				index++;
			}
			const language = fence[2] ? ` class="language-${escapeAttribute(fence[2])}"` : '';
			out.push(language ? `<pre><code${language}>${escapeHtml(body.join('\n'))}</code></pre>` : `<pre>${escapeHtml(body.join('\n'))}</pre>`);
			continue;
		}
		if (line.includes('|') && index + 1 < lines.length && TABLE_DELIMITER.test(lines[index + 1]) && lines[index + 1].includes('-')) {
			const rows: string[] = [];
			let next = index + 2;
			while (next < lines.length && lines[next].includes('|') && lines[next].trim() !== '') rows.push(lines[next++]);
			out.push(renderTable(line, rows));
			index = next - 1;
			continue;
		}
		const heading = HEADING.exec(line);
		if (heading) {
			out.push(heading[2] ? `<b>${inlineHtml(heading[2])}</b>` : '');
			continue;
		}
		if (RULE.test(line)) {
			out.push('———');
			continue;
		}
		if (QUOTE.test(line)) {
			const quoted = [(QUOTE.exec(line) as RegExpExecArray)[1]];
			while (index + 1 < lines.length && QUOTE.test(lines[index + 1])) quoted.push((QUOTE.exec(lines[++index]) as RegExpExecArray)[1]);
			out.push(`<blockquote>${quoted.map((text) => inlineHtml(text)).join('\n')}</blockquote>`);
			continue;
		}
		const item = LIST_ITEM.exec(line);
		if (item) {
			const depth = Math.floor(item[1].replace(/\t/g, '    ').length / 2);
			const marker = /\d/.test(item[2]) ? `${item[2].slice(0, -1)}.` : '•';
			out.push(`${'  '.repeat(depth)}${marker} ${inlineHtml(item[3])}`);
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
