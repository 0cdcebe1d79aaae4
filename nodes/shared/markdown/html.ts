/**
 * The service's HTML as the converter writes it and as a reader sees it: escaping, the links the
 * service opens, and the visible text of HTML (what a refused conversion is sent as instead).
 */
import { isWhitespace } from './chars';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeHtml(text: string): string {
	return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (char) => HTML_ESCAPES[char]) : text;
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

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** What a reader sees of the service's HTML: the tags gone, the entities as their characters. */
export function visibleText(html: string): string {
	return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot);/g, (_, name: string) => ENTITIES[name]);
}
