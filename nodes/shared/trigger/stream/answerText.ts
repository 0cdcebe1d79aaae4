/**
 * A model's answer (Markdown, as far as it has been written) as the messages that show it: the same
 * conversion as Send Message with Parse Mode "Markdown From AI" and Split Long Text (the service's
 * HTML from ../../markdown/, split at the service's length limit by ../../splitText.ts), so the
 * streamed messages end exactly as the unstreamed answer would have been sent. Every prefix of an
 * answer converts (unclosed emphasis, a fence still open, a link half written): the converter closes
 * nothing it did not see opened and escapes the rest, so half-written Markdown never fails or shows
 * tags.
 */
import { markdownToHtml } from '../../markdown/blocks';
import { visibleText } from '../../markdown/html';
import { LIMITS } from '../../spec';
import { splitText } from '../../splitText';

/** One message of an answer: its text and the parse mode to send it with (none: plain text). */
export interface AnswerPart {
	readonly text: string;
	readonly parseMode: 'HTML' | undefined;
}

/**
 * The text without a last character cut in half: a chunk may end between the two UTF-16 halves of an
 * emoji, and a lone half is no character (the service would show a replacement mark, or refuse it).
 */
function withoutHalfCharacter(text: string): string {
	const last = text.charCodeAt(text.length - 1);
	return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** Whether a part shows nothing but whitespace: the service refuses it ("message text is empty"). */
function blank(part: AnswerPart): boolean {
	return (part.parseMode === 'HTML' ? visibleText(part.text) : part.text).trim() === '';
}

/**
 * The messages that show `markdown`, each at most `limit` UTF-16 code units (the service's). HTML
 * that cannot be split without breaking its formatting goes out as its visible text, split plain.
 * Parts that show nothing are left out: an answer that has shown nothing yet is no message.
 */
export function answerParts(markdown: string, limit: number = LIMITS.messageText.max): AnswerPart[] {
	const html = markdownToHtml(withoutHalfCharacter(markdown));
	const split = splitText(html, limit, 'HTML');
	const parts: AnswerPart[] = split.ok
		? split.parts.map((text) => ({ text, parseMode: 'HTML' }))
		: plainParts(visibleText(html), limit);
	return parts.filter((part) => !blank(part));
}

/** A part as plain text: what is sent when the service refuses its HTML after all (as Send Message does). */
export function plainPart(part: AnswerPart): AnswerPart {
	return part.parseMode === 'HTML' ? { text: visibleText(part.text), parseMode: undefined } : part;
}

function plainParts(text: string, limit: number): AnswerPart[] {
	const split = splitText(text, limit);
	// Plain text always splits (no formatting to keep whole).
	return (split.ok ? split.parts : [text.slice(0, limit)]).map((part) => ({ text: part, parseMode: undefined }));
}
