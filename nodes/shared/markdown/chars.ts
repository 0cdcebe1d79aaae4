/** Characters as CommonMark classes them: whitespace and punctuation decide what emphasis can open or close. */

const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Whitespace; the start and the end of a line (undefined) count as whitespace for emphasis. */
export function isWhitespace(char: string | undefined): boolean {
	return char === undefined || /\s/.test(char);
}

export function isPunctuation(char: string | undefined): boolean {
	return char !== undefined && (ASCII_PUNCTUATION.includes(char) || /[\p{P}\p{S}]/u.test(char));
}

export function isAsciiPunctuation(char: string | undefined): boolean {
	return char !== undefined && char.length === 1 && ASCII_PUNCTUATION.includes(char);
}
