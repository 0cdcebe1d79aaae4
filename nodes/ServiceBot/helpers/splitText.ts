/**
 * Splits a text longer than the service's limit into parts that each fit, in order.
 *
 * Each cut is made at the last paragraph break (`\n\n`) that leaves a non-empty part, else at the
 * last line break, else at the last space, else exactly at the limit. The separator at a cut is
 * dropped (a part never starts or ends with the break it was split at); a hard cut drops nothing.
 * A cut never falls inside a surrogate pair, so no character is broken in two. Lengths are UTF-16
 * code units, the way the service counts characters.
 */

const SEPARATORS = ['\n\n', '\n', ' '] as const;

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

export function splitText(text: string, max: number): string[] {
	if (!Number.isInteger(max) || max < 2) throw new RangeError('splitText: max must be an integer of at least 2');
	const parts: string[] = [];
	let rest = text;
	while (rest.length > max) {
		let cut = -1;
		let skip = 0;
		for (const separator of SEPARATORS) {
			// The separator must lie wholly inside the window and leave a non-empty part before it.
			const at = rest.lastIndexOf(separator, max - separator.length);
			if (at > 0) {
				cut = at;
				skip = separator.length;
				break;
			}
		}
		if (cut < 0) {
			cut = max;
			// Never split a surrogate pair: move the cut before its first half.
			if (isHighSurrogate(rest.charCodeAt(cut - 1)) && isLowSurrogate(rest.charCodeAt(cut))) cut -= 1;
		}
		parts.push(rest.slice(0, cut));
		rest = rest.slice(cut + skip);
	}
	if (rest.length > 0 || parts.length === 0) parts.push(rest);
	return parts;
}
