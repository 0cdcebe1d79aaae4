/**
 * The service's HTML as the converter writes it and as a reader sees it: escaping, the links the
 * service opens, and the visible text of HTML (what a refused conversion is sent as instead).
 */
import { isWhitespace } from './chars';

/** The entity for `&`, `<` and `>`; undefined for any other character. */
function entityFor(char: string): string | undefined {
	return char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : undefined;
}

/**
 * One pass without a regex: `String.replace` with a function slows per match past some thousands of
 * matches in V8 (measured on `<` × n: 31 ns a character at 4,096, 146 at 8,192, 266 at 65,536; this
 * loop 13–16 ns at every size), and a model's answer may be such a text.
 */
export function escapeHtml(text: string): string {
	let escaped = '';
	let copiedUpTo = 0;
	for (let index = 0; index < text.length; index++) {
		const entity = entityFor(text[index]);
		if (entity === undefined) continue;
		escaped += text.slice(copiedUpTo, index) + entity;
		copiedUpTo = index + 1;
	}
	return copiedUpTo === 0 ? text : escaped + text.slice(copiedUpTo);
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
	let kept = '';
	let copiedUpTo = 0;
	let close = html.indexOf('>');
	for (let open = html.indexOf('<'); open >= 0 && close >= 0; open = html.indexOf('<', copiedUpTo)) {
		// The next `>` after this `<`, searched forward only: linear in the text.
		if (close < open) close = html.indexOf('>', open);
		if (close < 0) break;
		kept += html.slice(copiedUpTo, open);
		copiedUpTo = close + 1;
	}
	return copiedUpTo === 0 ? html : kept + html.slice(copiedUpTo);
}

/** `text` with the four entities the converter writes as their characters. */
function withEntitiesDecoded(text: string): string {
	let decoded = '';
	let copiedUpTo = 0;
	for (let amp = text.indexOf('&'); amp >= 0; amp = text.indexOf('&', amp + 1)) {
		const entity = ENTITIES.find(([name]) => text.startsWith(name, amp));
		if (entity === undefined) continue;
		decoded += text.slice(copiedUpTo, amp) + entity[1];
		copiedUpTo = amp + entity[0].length;
	}
	return copiedUpTo === 0 ? text : decoded + text.slice(copiedUpTo);
}

/** What a reader sees of the service's HTML: the tags gone, then the entities as their characters (no regex: escapeHtml says why). */
export function visibleText(html: string): string {
	return withEntitiesDecoded(withoutTags(html));
}
