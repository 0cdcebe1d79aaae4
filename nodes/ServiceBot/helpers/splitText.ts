/**
 * Splits a text longer than the service's limit into parts that each fit, in order, for Split Long
 * Text. Each cut is made at the last paragraph break (`\n\n`) that leaves a non-empty part, else at the
 * last line break, else at the last space, else as late as possible; the separator at a cut is
 * dropped. A cut never falls inside a surrogate pair, and with a parse mode never inside formatting
 * (an HTML element or entity, a Markdown entity, an escape), so the service can parse every part on
 * its own. When formatting is longer than a whole part, there is no such cut: that is reported
 * instead, before anything is sent. Lengths are UTF-16 code units, the way the service counts them,
 * of the text as written (markup included), which the parsed text can only be shorter than.
 */

const SEPARATORS = ['\n\n', '\n', ' '] as const;

/**
 * Where a cut may go: `cuttable[i]` says whether the text may end a part just before character i.
 * Formatting rules follow the service's parse modes (Telegram's): HTML tags and entities, legacy
 * Markdown's unnested `*_`[` entities, MarkdownV2's nested ones with `\` escapes.
 */
function cuttablePositions(text: string, parseMode: string | undefined): Uint8Array {
	/** How deep in formatting each position is; -1 inside a tag, an entity name, an escape or a code span. */
	const depth = new Int32Array(text.length + 1);
	/** Open formatting: HTML elements, or MarkdownV2's nested entities (their delimiters). */
	const openers: string[] = [];
	/** Marks the positions strictly inside [from, to) as not cuttable and returns `to`. */
	const skip = (from: number, to: number): number => {
		for (let position = from + 1; position < to && position <= text.length; position++) depth[position] = -1;
		if (to <= text.length) depth[to] = openers.length;
		return to;
	};
	let index = 0;
	let closed = true;
	while (index < text.length) {
		const char = text[index];
		if (parseMode === 'HTML' && (char === '<' || (char === '&' && isEntityAt(text, index)))) {
			const end = text.indexOf(char === '<' ? '>' : ';', index);
			if (end < 0) break;
			if (char === '<' && text[index + 1] === '/') openers.pop();
			else if (char === '<') openers.push('<');
			index = skip(index, end + 1);
		} else if (parseMode === 'Markdown' && (char === '\\' || '*_`['.includes(char))) {
			// Legacy Markdown does not nest: an entity runs to its closer.
			const closer = char === '\\' ? '' : text.startsWith('```', index) ? '```' : char === '[' ? ']' : char;
			let end = closer === '' ? index + 2 : text.indexOf(closer, index + closer.length);
			if (end < 0) break;
			end += closer.length;
			if (closer === ']' && text[end] === '(') {
				const close = text.indexOf(')', end);
				if (close < 0) break;
				end = close + 1;
			}
			index = skip(index, end);
		} else if (parseMode === 'MarkdownV2' && char === '\\') {
			index = skip(index, index + 2);
		} else if (parseMode === 'MarkdownV2' && char === '`') {
			const fence = text.startsWith('```', index) ? '```' : '`';
			let close = index + fence.length;
			while (close < text.length && !text.startsWith(fence, close)) close += text[close] === '\\' ? 2 : 1;
			if (close >= text.length) break;
			index = skip(index, close + fence.length);
		} else if (parseMode === 'MarkdownV2' && char === ']' && openers.at(-1) === '[') {
			openers.pop();
			let end = index + 1;
			if (text[end] === '(') {
				const close = text.indexOf(')', end);
				if (close < 0) break;
				end = close + 1;
			}
			index = skip(index, end);
		} else {
			const toggle = parseMode === 'MarkdownV2' ? ['||', '__', '*', '_', '~', '['].find((candidate) => text.startsWith(candidate, index)) : undefined;
			if (toggle === undefined) {
				index++;
				depth[index] = openers.length;
				continue;
			}
			if (openers.at(-1) === toggle && toggle !== '[') openers.pop();
			else openers.push(toggle);
			index = skip(index, index + toggle.length);
		}
	}
	// After formatting that never closes nothing is cuttable: the service refuses the text whole anyway.
	if (index < text.length) closed = false;
	const cuttable = new Uint8Array(text.length + 1);
	for (let position = 0; position <= text.length; position++) {
		const insidePair = position > 0 && position < text.length && isHigh(text.charCodeAt(position - 1)) && isLow(text.charCodeAt(position));
		const scanned = closed || position <= index;
		cuttable[position] = scanned && depth[position] === 0 && !insidePair ? 1 : 0;
	}
	return cuttable;
}

const ENTITY = /&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/iy;

/** An HTML entity (`&amp;`, `&#38;`, `&#x26;`) starts at `index`; a bare `&` is text, as the service reads it. */
function isEntityAt(text: string, index: number): boolean {
	ENTITY.lastIndex = index;
	return ENTITY.test(text);
}

function isHigh(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

type SplitResult = { ok: true; parts: string[] } | { ok: false; problem: string };

export function splitText(text: string, max: number, parseMode?: string): SplitResult {
	const cuttable = cuttablePositions(text, parseMode);
	const parts: string[] = [];
	let start = 0;
	while (text.length - start > max) {
		const end = start + max;
		let cut = -1;
		let skip = 0;
		for (const separator of SEPARATORS) {
			// The separator starts within the window, leaves a non-empty part, and both of its ends are cuttable.
			let at = text.lastIndexOf(separator, end);
			while (at > start && !(cuttable[at] && cuttable[at + separator.length])) at = text.lastIndexOf(separator, at - 1);
			if (at > start) {
				cut = at;
				skip = separator.length;
				break;
			}
		}
		if (cut < 0) {
			cut = end;
			while (cut > start && !cuttable[cut]) cut--;
			if (cut === start) {
				let from = start;
				while (cuttable[from + 1]) from++;
				return {
					ok: false,
					problem: `formatting that starts at character ${(from + 1).toLocaleString('en-US')} runs over ${max.toLocaleString('en-US')} characters`,
				};
			}
		}
		parts.push(text.slice(start, cut));
		start = cut + skip;
	}
	if (start < text.length || parts.length === 0) parts.push(text.slice(start));
	return { ok: true, parts };
}
