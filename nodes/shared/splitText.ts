/**
 * Splits a text longer than the service's limit into parts that each fit, in order, for Split Long
 * Text. Each cut is made at the last paragraph break (`\n\n`) that leaves a non-empty part, else at the
 * last line break, else at the last space, else as late as possible; the separator at a cut is
 * dropped. A cut never falls inside a surrogate pair, and with a parse mode never inside formatting
 * (an HTML element or entity, a Markdown entity, an escape), so the service can parse every part on
 * its own. With HTML, formatting longer than a part (a long code block) is cut inside, by the same
 * rules, when no cut outside it fits: the part ends by closing the elements open there and the next
 * part starts by opening them again as written, so each part still parses on its own and shows the
 * same formatting. What is left is reported instead, before anything is sent: a cut that cannot be
 * made (the tags to close and reopen leave no room, a custom emoji, Markdown entities, which the
 * service does not nest). Lengths are UTF-16 code units, the way the service counts them, of the text
 * as written (markup included, the closing and reopening tags too), which the parsed text can only be
 * shorter than.
 */

const SEPARATORS = ['\n\n', '\n', ' '] as const;

/** An HTML element open at a position, and those around it (each position points at its innermost). */
interface OpenElement {
	/** Its start tag as written, opened again at the start of the next part. */
	startTag: string;
	name: string;
	outer: OpenElement | undefined;
	/** Where its start tag begins. */
	at: number;
	/** The length of its end tag and those of every element around it. */
	closeLength: number;
	/** Whether a part may end inside it: not inside a custom emoji, which holds exactly one emoji. */
	divisible: boolean;
	/** Just after its end tag, once found. */
	endsAt?: number;
}

interface Layout {
	/** `cuttable[i]`: the text may end a part just before character i, outside any formatting. */
	cuttable: Uint8Array;
	/** `boundary[i]`: i is not inside a tag, an entity, an escape or a surrogate pair (HTML; formatting may be open). */
	boundary: Uint8Array;
	/** HTML: the innermost element open at each position. */
	elements: Array<OpenElement | undefined>;
	/** HTML: how many characters a reader sees, other than whitespace, come before each position. */
	shownBefore: Int32Array;
}

/**
 * Where a cut may go. Formatting rules follow the service's parse modes (Telegram's): HTML tags and
 * entities, legacy Markdown's unnested `*_`[` entities, MarkdownV2's nested ones with `\` escapes.
 */
function layoutOf(text: string, parseMode: string | undefined): Layout {
	/** How deep in formatting each position is; -1 inside a tag, an entity name, an escape or a code span. */
	const depth = new Int32Array(text.length + 1);
	const html = parseMode === 'HTML';
	const elements: Array<OpenElement | undefined> = html ? new Array<OpenElement | undefined>(text.length + 1) : [];
	/** HTML: the characters of tags, which a reader does not see. */
	const inTag = new Uint8Array(html ? text.length : 0);
	/** Open formatting: HTML elements, or MarkdownV2's nested entities (their delimiters). */
	const openers: string[] = [];
	let element: OpenElement | undefined;
	const mark = (position: number): void => {
		depth[position] = openers.length;
		if (html) elements[position] = element;
	};
	/** Marks the positions strictly inside [from, to) as not cuttable and returns `to`. */
	const skip = (from: number, to: number): number => {
		for (let position = from + 1; position < to && position <= text.length; position++) depth[position] = -1;
		if (to <= text.length) mark(to);
		return to;
	};
	let index = 0;
	while (index < text.length) {
		const char = text[index];
		if (html && (char === '<' || (char === '&' && isEntityAt(text, index)))) {
			const end = text.indexOf(char === '<' ? '>' : ';', index);
			if (end < 0) break;
			if (char === '<') {
				inTag.fill(1, index, end + 1);
				if (text[index + 1] === '/') {
					openers.pop();
					if (element) element.endsAt = end + 1;
					element = element?.outer;
				} else {
					openers.push('<');
					element = openElement(text.slice(index, end + 1), index, element);
				}
			}
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
				mark(index);
				continue;
			}
			if (openers.at(-1) === toggle && toggle !== '[') openers.pop();
			else openers.push(toggle);
			index = skip(index, index + toggle.length);
		}
	}
	// After formatting that never closes nothing is cuttable: the service refuses the text whole anyway.
	const scanned = index;
	const cuttable = new Uint8Array(text.length + 1);
	const boundary = new Uint8Array(text.length + 1);
	for (let position = 0; position <= text.length; position++) {
		const insidePair = position > 0 && position < text.length && isHigh(text.charCodeAt(position - 1)) && isLow(text.charCodeAt(position));
		const usable = (scanned === text.length || position <= scanned) && depth[position] >= 0 && !insidePair;
		boundary[position] = usable ? 1 : 0;
		cuttable[position] = usable && depth[position] === 0 ? 1 : 0;
	}
	const shownBefore = new Int32Array(html ? text.length + 1 : 0);
	for (let position = 0; html && position < text.length; position++) {
		shownBefore[position + 1] = shownBefore[position] + (inTag[position] || /\s/.test(text[position]) ? 0 : 1);
	}
	return { cuttable, boundary, elements, shownBefore };
}

function openElement(startTag: string, at: number, outer: OpenElement | undefined): OpenElement {
	const name = /^<\s*([^\s>/]*)/.exec(startTag)?.[1].toLowerCase() ?? '';
	return {
		startTag,
		name,
		outer,
		at,
		closeLength: `</${name}>`.length + (outer?.closeLength ?? 0),
		divisible: name !== 'tg-emoji' && (outer?.divisible ?? true),
	};
}

/** The end tags of the elements open at a cut, innermost first. */
function endTags(element: OpenElement | undefined): string {
	let tags = '';
	for (let open = element; open; open = open.outer) tags += `</${open.name}>`;
	return tags;
}

/** The start tags of the elements open at a cut, as written, outermost first. */
function startTags(element: OpenElement | undefined): string {
	const tags: string[] = [];
	for (let open = element; open; open = open.outer) tags.push(open.startTag);
	return tags.reverse().join('');
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

/**
 * A cut inside HTML elements for a part from `start` that may hold the text up to `end`: at the last
 * separator, else as late as possible, where the end tags still fit and the part shows something.
 */
function cutInside(text: string, layout: Layout, start: number, end: number): { cut: number; skip: number } | undefined {
	const { boundary, elements, shownBefore } = layout;
	const fits = (position: number): boolean => {
		if (position <= start || !boundary[position]) return false;
		const element = elements[position];
		if (element && !element.divisible) return false;
		return position + (element?.closeLength ?? 0) <= end && shownBefore[position] > shownBefore[start];
	};
	for (const separator of SEPARATORS) {
		let at = text.lastIndexOf(separator, end);
		while (at > start && !(fits(at) && boundary[at + separator.length])) at = text.lastIndexOf(separator, at - 1);
		if (at > start) return { cut: at, skip: separator.length };
	}
	for (let cut = end; cut > start; cut--) if (fits(cut)) return { cut, skip: 0 };
	return undefined;
}

type SplitResult = { ok: true; parts: string[] } | { ok: false; problem: string };

export function splitText(text: string, max: number, parseMode?: string): SplitResult {
	const layout = layoutOf(text, parseMode);
	const { cuttable, elements, shownBefore } = layout;
	const parts: string[] = [];
	/** Parts that show nothing but whitespace: the service refuses them ("message text is empty"). */
	const blank = new Set<number>();
	const add = (from: number, to: number, part: string): void => {
		if (parseMode === 'HTML' ? shownBefore[to] === shownBefore[from] : text.slice(from, to).trim() === '') blank.add(parts.length);
		parts.push(part);
	};
	let start = 0;
	/** The start tags opened again at the start of the current part (HTML cut inside elements). */
	let reopened = '';
	/** A part that would start inside elements whose rest shows nothing starts after them instead. */
	const skipEmptyRest = (): void => {
		let outermost = elements[start];
		while (outermost?.outer) outermost = outermost.outer;
		if (outermost?.endsAt !== undefined && shownBefore[outermost.endsAt] === shownBefore[start]) {
			start = outermost.endsAt;
			reopened = '';
		}
	};
	while (reopened.length + text.length - start > max) {
		const end = start + max - reopened.length;
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
		}
		if (cut > start) {
			add(start, cut, reopened + text.slice(start, cut));
			start = cut + skip;
			reopened = '';
			continue;
		}
		const inside = parseMode === 'HTML' ? cutInside(text, layout, start, end) : undefined;
		if (!inside) {
			let outermost = elements[start];
			while (outermost?.outer) outermost = outermost.outer;
			let from = start;
			while (cuttable[from + 1]) from++;
			return {
				ok: false,
				problem: `formatting that starts at character ${((outermost?.at ?? from) + 1).toLocaleString('en-US')} runs over ${max.toLocaleString('en-US')} characters`,
			};
		}
		add(start, inside.cut, reopened + text.slice(start, inside.cut) + endTags(elements[inside.cut]));
		start = inside.cut + inside.skip;
		reopened = startTags(elements[start]);
		skipEmptyRest();
	}
	if (start < text.length || parts.length === 0) add(start, text.length, reopened + text.slice(start));
	// Blank parts are left out, unless nothing else is there to send.
	if (blank.size === 0 || blank.size === parts.length) return { ok: true, parts };
	return { ok: true, parts: parts.filter((_, index) => !blank.has(index)) };
}
