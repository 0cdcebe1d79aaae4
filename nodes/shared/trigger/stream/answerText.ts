/**
 * A model's answer (Markdown, as far as it has been written) as the messages that show it: the same
 * conversion as Send Message with Parse Mode "Markdown From AI" and Split Long Text (the service's
 * HTML from ../../markdown/, split at the service's length limit by ../../splitText.ts), so the
 * streamed messages end exactly as the unstreamed answer would have been sent. Every prefix of an
 * answer converts (unclosed emphasis, a fence still open, a link half written): the converter closes
 * nothing it did not see opened and escapes the rest, so half-written Markdown never fails or shows
 * tags.
 */
import { lastLineInFence, lastTextStart, markdownToHtml, unsettledTableFrom } from '../../markdown/blocks';
import { unfinishedFrom } from '../../markdown/inline';
import { mayBecomeDelimiter } from '../../markdown/table';
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

/**
 * What of an answer still being written to show now: all of it but the unfinished markup of its last
 * paragraph (an emphasis, code span or link opened and not yet closed; in a paragraph, a list item and
 * a quote's lines, markup crosses line breaks, as the converter reads them), which the converter would
 * show as its raw characters (`*emphasis`) until the model closes it, maybe lines later. The paragraph
 * is held back from there until the next words complete it, it ends (a blank line, a block: its
 * unclosed markup is then text for good), or the answer ends (then all of it is shown, `answerParts`
 * of the whole). A line inside an open code fence is code: nothing is held back. A table is held
 * back whole while it may still change shape (a header row whose delimiter row may still come, rows
 * that may still widen a column already shown) and shown whole once it has ended; a line that may
 * still become a rule (`- -`) until it has. So every text shown is a beginning of the whole answer's.
 */
export function shownSoFar(written: string): string {
	const markdown = written.includes('\r') ? written.replace(/\r\n?/g, '\n') : written;
	const lineStart = markdown.lastIndexOf('\n') + 1;
	const line = markdown.slice(lineStart);
	if (lastLineInFence(markdown)) {
		// Code as written, but for a closing fence being typed (`` ` `` before ```), which shows nothing at the end.
		const fenceSoFar = line.trim();
		const closing = fenceSoFar !== '' && (/^`+$/.test(fenceSoFar) || /^~+$/.test(fenceSoFar));
		return closing ? markdown.slice(0, lineStart) : markdown;
	}
	// A table that may still change shape (a header row whose delimiter row may still come, rows that
	// may still widen a column) is shown whole once it has ended: held back as if the answer ended
	// before it.
	const tableFrom = unsettledTableFrom(markdown);
	if (tableFrom !== undefined) return endedBefore(markdown, tableFrom);
	// A block's marker with nothing after it yet (`-`, `1.`, `#`, `>`): shown as written until its text
	// comes, then as a list item, a heading or a quote. Until then it may still continue the paragraph
	// above (`-b**`), which is held back as if the answer ended before the marker's line. Likewise a
	// line of only `-`, `*`, `_` that may still become a rule (`- -` is a list item until its third `-`).
	if (BARE_BLOCK_MARKER.test(line.trimStart()) || MAY_BECOME_RULE.test(line)) return endedBefore(markdown, lineStart);
	return withoutUnfinished(markdown, lastTextStart(markdown) ?? lineStart);
}

/** What is shown of `markdown` as if the answer ended at `end`: its last text without unfinished markup. */
function endedBefore(markdown: string, end: number): string {
	const before = markdown.slice(0, end);
	return withoutUnfinished(before, lastTextStart(before) ?? before.lastIndexOf('\n') + 1);
}

/** `markdown` cut before the first unfinished markup of its text from `textStart` on. */
function withoutUnfinished(markdown: string, textStart: number): string {
	// Cut before its unfinished markup, the rest may lose the closer of a pair that opened before the
	// cut (`**a *b**` → `**a `): cut again, a few times, then hold the whole text back.
	let text = markdown.slice(textStart);
	for (let cuts = 0; cuts < UNFINISHED_CUTS; cuts++) {
		const from = unfinishedFrom(text);
		if (from === undefined) return markdown.slice(0, textStart) + text;
		text = withoutBareLastLine(text.slice(0, from));
	}
	return unfinishedFrom(text) === undefined ? markdown.slice(0, textStart) + text : markdown.slice(0, textStart);
}

/**
 * A text cut before its unfinished markup, without a last line the cut turned into a block of its own
 * (`*** **a` cut to `*** `, a rule; `- **a` to `- `; `--- | --- **a` below a row with `|` to a
 * delimiter row, which makes that row a table): that line is held back too.
 */
function withoutBareLastLine(text: string): string {
	const start = text.lastIndexOf('\n') + 1;
	const line = text.slice(start);
	const above = start > 0 ? text.slice(text.lastIndexOf('\n', start - 2) + 1, start - 1) : '';
	const cutToBlock = BARE_BLOCK_MARKER.test(line.trim()) || MAY_BECOME_RULE.test(line) || (above.includes('|') && mayBecomeDelimiter(line));
	return cutToBlock ? text.slice(0, start) : text;
}

/** A list item's, heading's or quote's marker alone on its line (linear: no nested repetition). */
const BARE_BLOCK_MARKER = /^(?:[-*+>]|#{1,6}|\d{1,9}[.)]?)$/;

/** A line of only `-`, `*`, `_` and spaces (linear: one mandatory character between two classes). */
const MAY_BECOME_RULE = /^[ \t]*[-*_][-*_ \t]*$/;

/** How many times a streamed line is cut before its unfinished markup before it is held back whole. */
const UNFINISHED_CUTS = 4;

/** A part as plain text: what is sent when the service refuses its HTML after all (as Send Message does). */
export function plainPart(part: AnswerPart): AnswerPart {
	return part.parseMode === 'HTML' ? { text: visibleText(part.text), parseMode: undefined } : part;
}

function plainParts(text: string, limit: number): AnswerPart[] {
	const split = splitText(text, limit);
	// Plain text always splits (no formatting to keep whole).
	return (split.ok ? split.parts : [text.slice(0, limit)]).map((part) => ({ text: part, parseMode: undefined }));
}
