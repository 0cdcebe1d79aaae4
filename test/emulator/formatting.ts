/**
 * Formatted text: what the service does with a `parse_mode`. The spec lists the three modes and says
 * nothing more ("not shown"), so this follows the Telegram Bot API's documented rules and its error
 * texts: a text whose markup cannot be parsed is refused with
 * `Bad Request: can't parse entities: …` and a UTF-8 byte offset.
 *
 * - HTML: tags b, strong, i, em, u, ins, s, strike, del, span, tg-spoiler, a, tg-emoji, code, pre,
 *   blockquote; every start tag needs its end tag, properly nested; `<` and `>` outside tags must be
 *   written as entities (`&lt;`, `&gt;`, `&amp;`, `&quot;`, numeric). No other named entity exists
 *   (`&nbsp;` is refused); a bare `&` is text. Nesting follows Telegram's "Formatting options": code
 *   and pre contain no other entity (the one form allowed is a code block with its language,
 *   `<pre><code class="language-…">…</code></pre>`), a link contains no code, pre or link, and a
 *   blockquote is not nested. Telegram itself parses such a text and drops the entity it cannot keep
 *   (TDLib's fix_formatted_text); the emulator refuses it instead, in the style of the parser's
 *   errors, so a test sees formatting that would not arrive as written.
 * - Markdown (legacy): `*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ````, `[text](url)`; no
 *   nesting; `\` escapes `_ * ` [` outside an entity.
 * - MarkdownV2: `*bold*`, `_italic_`, `__underline__`, `~strike~`, `||spoiler||`, `` `code` ``,
 *   ```` ```pre``` ````, `[text](url)`, nesting allowed; every one of `_*[]()~`>#+-=|{}.!` that is not
 *   markup must be escaped with `\`.
 */
import { badRequest } from './util';

const HTML_TAGS = new Set([
	'b',
	'strong',
	'i',
	'em',
	'u',
	'ins',
	's',
	'strike',
	'del',
	'span',
	'tg-spoiler',
	'a',
	'tg-emoji',
	'code',
	'pre',
	'blockquote',
]);

/** The named HTML entities the service knows (Telegram's HTML style); numeric ones are all allowed. */
const HTML_ENTITIES = new Set(['lt', 'gt', 'amp', 'quot']);

const encoder = new TextEncoder();

function byteOffset(text: string, index: number): number {
	return encoder.encode(text.slice(0, index)).length;
}

function refuse(reason: string): never {
	throw badRequest(`can't parse entities: ${reason}`);
}

/** Tags that contain no other entity (Telegram: "pre and code" take no nested entities). */
const VERBATIM_TAGS = new Set(['code', 'pre']);

/** What a tag may not contain besides the verbatim rule: a link holds no code, pre or link; a blockquote no blockquote. */
const NOT_INSIDE: Record<string, ReadonlySet<string>> = {
	a: new Set(['a', 'code', 'pre']),
	blockquote: new Set(['blockquote']),
};

interface OpenTag {
	name: string;
	at: number;
	/** Where its content starts: just after its start tag. */
	contentAt: number;
	/** For a pre holding a code block: where that code's end tag ends. */
	codeEndsAt?: number;
}

function checkHtml(text: string): void {
	const open: OpenTag[] = [];
	let index = 0;
	while (index < text.length) {
		const char = text[index];
		if (char === '>') refuse(`Unexpected end of tag at byte offset ${byteOffset(text, index)}`);
		if (char === '&') {
			// Only four named entities exist for the service (and numeric ones); a bare "&" is text.
			const named = /^&([A-Za-z][A-Za-z0-9]*);/.exec(text.slice(index));
			if (named && !HTML_ENTITIES.has(named[1])) refuse(`Unsupported HTML entity "&${named[1]};" at byte offset ${byteOffset(text, index)}`);
			index++;
			continue;
		}
		if (char !== '<') {
			index++;
			continue;
		}
		const end = text.indexOf('>', index);
		if (end < 0) refuse(`Unclosed start tag at byte offset ${byteOffset(text, index)}`);
		const inner = text.slice(index + 1, end);
		const closing = inner.startsWith('/');
		const name = (closing ? inner.slice(1) : inner).trim().split(/\s/)[0].toLowerCase();
		if (!HTML_TAGS.has(name)) {
			refuse(`Unsupported ${closing ? 'end' : 'start'} tag "${name}" at byte offset ${byteOffset(text, index)}`);
		}
		if (closing) {
			const last = open.pop();
			if (!last) refuse(`Unexpected end tag at byte offset ${byteOffset(text, index)}`);
			if (last.name !== name) {
				refuse(`Unmatched end tag at byte offset ${byteOffset(text, index)}, expected "</${last.name}>", found "</${name}>"`);
			}
			const parent = open.at(-1);
			if (name === 'code' && parent?.name === 'pre') parent.codeEndsAt = end + 1;
			if (name === 'pre' && last.codeEndsAt !== undefined && last.codeEndsAt !== index) {
				refuse(`Text after the code block's "</code>" inside tag "pre" at byte offset ${byteOffset(text, last.codeEndsAt)}`);
			}
		} else {
			checkNesting(text, open, name, index);
			open.push({ name, at: index, contentAt: end + 1 });
		}
		index = end + 1;
	}
	const unclosed = open.pop();
	if (unclosed) refuse(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
}

/** Refuses a start tag that Telegram's nesting rules do not allow where it is. */
function checkNesting(text: string, open: readonly OpenTag[], name: string, index: number): void {
	const parent = open.at(-1);
	// A code block with its language: <pre><code class="language-…">, the code right at the start of the pre.
	const codeBlock = name === 'code' && parent?.name === 'pre' && parent.contentAt === index && parent.codeEndsAt === undefined;
	// The innermost tag that refuses it is named.
	for (const outer of [...open].reverse()) {
		const forbidden = VERBATIM_TAGS.has(outer.name) ? !(codeBlock && outer === parent) : (NOT_INSIDE[outer.name]?.has(name) ?? false);
		if (forbidden) refuse(`Tag "${name}" can't be nested in tag "${outer.name}" at byte offset ${byteOffset(text, index)}`);
	}
}

function checkMarkdown(text: string): void {
	let index = 0;
	while (index < text.length) {
		const char = text[index];
		if (char === '\\' && '_*`['.includes(text[index + 1] ?? '')) {
			index += 2;
			continue;
		}
		const delimiter = text.startsWith('```', index) ? '```' : '*_`'.includes(char) ? char : char === '[' ? ']' : '';
		if (delimiter === '') {
			index++;
			continue;
		}
		const start = index;
		const from = index + (delimiter === ']' ? 1 : delimiter.length);
		const end = text.indexOf(delimiter, from);
		if (end < 0) refuse(`Can't find end of the entity starting at byte offset ${byteOffset(text, start)}`);
		index = end + delimiter.length;
		if (delimiter === ']' && text[index] === '(') {
			const close = text.indexOf(')', index);
			if (close < 0) refuse(`Can't find end of a url at byte offset ${byteOffset(text, index)}`);
			index = close + 1;
		}
	}
}

const V2_RESERVED = '_*[]()~`>#+-=|{}.!';
const V2_TOGGLES = ['||', '__', '*', '_', '~'];

function checkMarkdownV2(text: string): void {
	const open: Array<{ delimiter: string; at: number }> = [];
	let index = 0;
	while (index < text.length) {
		const char = text[index];
		if (char === '\\') {
			index += 2;
			continue;
		}
		if (char === '`') {
			const delimiter = text.startsWith('```', index) ? '```' : '`';
			let close = index + delimiter.length;
			// Inside code only ` and \ are special.
			while (close < text.length && !text.startsWith(delimiter, close)) close += text[close] === '\\' ? 2 : 1;
			if (close >= text.length) refuse(`Can't find end of Pre entity at byte offset ${byteOffset(text, index)}`);
			index = close + delimiter.length;
			continue;
		}
		const toggle = V2_TOGGLES.find((candidate) => text.startsWith(candidate, index));
		if (toggle) {
			if (open.length > 0 && open[open.length - 1].delimiter === toggle) open.pop();
			else open.push({ delimiter: toggle, at: index });
			index += toggle.length;
			continue;
		}
		if (char === '[') {
			open.push({ delimiter: ']', at: index });
			index++;
			continue;
		}
		if (char === ']' && open.length > 0 && open[open.length - 1].delimiter === ']') {
			open.pop();
			index++;
			if (text[index] === '(') {
				const close = text.indexOf(')', index);
				if (close < 0) refuse(`Can't find end of a url at byte offset ${byteOffset(text, index)}`);
				index = close + 1;
			}
			continue;
		}
		if (V2_RESERVED.includes(char)) {
			refuse(`Character '${char}' is reserved and must be escaped with the preceding '\\'`);
		}
		index++;
	}
	const unclosed = open.pop();
	if (unclosed) refuse(`Can't find end of the entity starting at byte offset ${byteOffset(text, unclosed.at)}`);
}

/** Refuses a text whose markup the given parse mode cannot parse; no mode means plain text. */
export function checkFormatting(text: string | undefined, parseMode: string | undefined): void {
	if (text === undefined || parseMode === undefined) return;
	if (parseMode === 'HTML') checkHtml(text);
	else if (parseMode === 'Markdown') checkMarkdown(text);
	else if (parseMode === 'MarkdownV2') checkMarkdownV2(text);
}
