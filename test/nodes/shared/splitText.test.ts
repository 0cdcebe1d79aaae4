/** Splitting a long text into the service's parts: where it cuts, and never inside formatting. */
import fc from 'fast-check';

import { splitText as split } from '../../../nodes/shared/splitText';

/** The parts of a split that must succeed. */
function splitText(text: string, max: number, parseMode?: string): string[] {
	const result = split(text, max, parseMode);
	if (!result.ok) throw new Error(result.problem);
	return result.parts;
}

describe('splitText', () => {
	it('keeps a text at the limit whole and cuts one over it', () => {
		expect(splitText('abcd', 4)).toEqual(['abcd']);
		expect(splitText('abcde', 4)).toEqual(['abcd', 'e']);
		expect(splitText('', 4)).toEqual(['']);
	});

	it('prefers paragraph, then line, then space breaks, dropping the break', () => {
		expect(splitText('aa bb\ncc\n\ndd ee', 12)).toEqual(['aa bb\ncc', 'dd ee']);
		expect(splitText('aa bb\ncc dd ee', 10)).toEqual(['aa bb', 'cc dd ee']);
		expect(splitText('aa bb cc dd', 7)).toEqual(['aa bb', 'cc dd']);
		expect(splitText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
	});

	it('never cuts a surrogate pair', () => {
		expect(splitText('abc😀d', 4)).toEqual(['abc', '😀d']);
		expect(splitText('😀😀😀', 3)).toEqual(['😀', '😀', '😀']);
	});

	it('property: parts fit, are non-empty, keep whole characters, and rebuild the text', () => {
		const alphabet = fc.constantFrom('a', 'b', ' ', '\n', '😀', 'é');
		fc.assert(
			fc.property(fc.array(alphabet, { maxLength: 200 }), fc.integer({ min: 2, max: 30 }), (chars, max) => {
				const text = chars.join('');
				const parts = splitText(text, max);
				expect(parts.every((part) => part.length <= max)).toBe(true);
				if (text.length > 0) expect(parts.every((part) => part.length > 0)).toBe(true);
				for (const part of parts) {
					expect(/^[\udc00-\udfff]/.test(part)).toBe(false);
					expect(/[\ud800-\udbff]$/.test(part)).toBe(false);
				}
				// Only separators are dropped at cuts: removing all whitespace gives the same characters.
				expect(parts.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
			}),
		);
	});
});

describe('splitText with a parse mode: cuts only where the formatting is whole', () => {
	it('HTML: never inside an element, a tag or an entity', () => {
		expect(splitText('aa <b>bb cc</b> dd', 12, 'HTML')).toEqual(['aa', '<b>bb cc</b>', 'dd']);
		expect(splitText('a &amp; b c', 5, 'HTML')).toEqual(['a', '&amp;', 'b c']);
		// Without a parse mode the same text may be cut anywhere.
		expect(splitText('aa <b>bb cc</b> dd', 12)).toEqual(['aa <b>bb', 'cc</b> dd']);
	});

	it('Markdown: never inside an entity or an escape', () => {
		expect(splitText('x *a b c* y', 8, 'Markdown')).toEqual(['x', '*a b c*', 'y']);
		expect(splitText('ab\\_cd', 3, 'Markdown')).toEqual(['ab', '\\_c', 'd']);
	});

	it('MarkdownV2: never inside nested entities, code or a link', () => {
		expect(splitText('x *a _b c_ d* y', 12, 'MarkdownV2')).toEqual(['x', '*a _b c_ d*', 'y']);
		expect(splitText('x `a b c` y', 8, 'MarkdownV2')).toEqual(['x', '`a b c`', 'y']);
		expect(splitText('see [a b](https://e.x/y z) now', 25, 'MarkdownV2')).toEqual(['see', '[a b](https://e.x/y z)', 'now']);
	});

	it('HTML formatting longer than a part is closed at the end of each part and opened again at the start of the next', () => {
		expect(split(`<b>${'x'.repeat(20)}</b>`, 10, 'HTML')).toEqual({
			ok: true,
			parts: ['<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xx</b>'],
		});
	});

	it('formatting that cannot be cut (a tag longer than a part, legacy Markdown): no split, and where it starts', () => {
		expect(split('ok <a href="https://example.com/a/long/path">x</a>', 20, 'HTML')).toEqual({
			ok: false,
			problem: 'formatting that starts at character 4 runs over 20 characters',
		});
		expect(split(`ok ${'*'}${'y '.repeat(10)}*`, 10, 'Markdown')).toEqual({
			ok: false,
			problem: 'formatting that starts at character 4 runs over 10 characters',
		});
	});
});
