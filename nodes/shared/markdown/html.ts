/**
 * The service's HTML as the converter writes it and as a reader sees it: escaping, the links the
 * service opens, and the visible text of HTML (what a refused conversion is sent as instead).
 */
import { isWhitespace } from './chars';

/** A part of a text to put something else in place of: from `start` up to (not including) `end`. */
interface Edit {
	start: number;
	end: number;
	by: string;
}

/**
 * `text` with each edit `next` finds in place, in one pass: `next(from)` gives the first edit at or
 * after `from`. No regex: `String.replace` with a function slows per match past some thousands of
 * matches in V8 (measured on `<` × n: 31 ns a character at 4,096, 146 at 8,192, 266 at 65,536; this
 * one about 20 ns at every size), and a model's answer may be such a text.
 */
function edited(text: string, next: (from: number) => Edit | undefined): string {
	let result = '';
	let copiedUpTo = 0;
	for (let edit = next(0); edit !== undefined; edit = next(edit.end)) {
		result += text.slice(copiedUpTo, edit.start) + edit.by;
		copiedUpTo = edit.end;
	}
	return copiedUpTo === 0 ? text : result + text.slice(copiedUpTo);
}

/** The entity for `&`, `<` and `>`; undefined for any other character. */
function entityFor(char: string): string | undefined {
	return char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : undefined;
}

export function escapeHtml(text: string): string {
	return edited(text, (from) => {
		for (let index = from; index < text.length; index++) {
			const entity = entityFor(text[index]);
			if (entity !== undefined) return { start: index, end: index + 1, by: entity };
		}
		return undefined;
	});
}

export function escapeAttribute(text: string): string {
	return escapeHtml(text).replace(/"/g, '&quot;');
}

const SCHEMES = ['https://', 'http://', 'mailto:', 'tg://'];

/** Links the service opens: web, mail and its own scheme, without spaces, quotes or angle brackets; anything else stays text. */
export function safeUrl(url: string): string | undefined {
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

const ENTITIES: ReadonlyArray<[string, string]> = [
	['&amp;', '&'],
	['&lt;', '<'],
	['&gt;', '>'],
	['&quot;', '"'],
];

/** `html` without its tags: each `<` up to the next `>`; an unclosed `<` stays (as `/<[^>]*>/g` would). */
function withoutTags(html: string): string {
	let close = html.indexOf('>');
	return edited(html, (from) => {
		const open = html.indexOf('<', from);
		if (open < 0 || close < 0) return undefined;
		// The next `>` after this `<`, searched forward only: linear in the text.
		if (close < open) close = html.indexOf('>', open);
		return close < 0 ? undefined : { start: open, end: close + 1, by: '' };
	});
}

/** `text` with the four entities the converter writes as their characters. */
function withEntitiesDecoded(text: string): string {
	return edited(text, (from) => {
		for (let amp = text.indexOf('&', from); amp >= 0; amp = text.indexOf('&', amp + 1)) {
			const entity = ENTITIES.find(([name]) => text.startsWith(name, amp));
			if (entity) return { start: amp, end: amp + entity[0].length, by: entity[1] };
		}
		return undefined;
	});
}

/** What a reader sees of the service's HTML: the tags gone, then the entities as their characters (one pass each: `edited`). */
export function visibleText(html: string): string {
	return withEntitiesDecoded(withoutTags(html));
}
