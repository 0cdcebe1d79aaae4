/**
 * Markdown From AI on hostile text. The converter runs synchronously inside n8n's process on text any
 * chat user can influence (an AI bot quotes the user), so its time must grow linearly with the text.
 * Proven without wall-clock upper bounds (test/harness/growth.ts): each family of hostile input is
 * converted at growing sizes and the time for 64n over the time for n must stay under 512; generated
 * hostile texts must stay under a generous budget per character.
 */
import fc from 'fast-check';

import { markdownToHtml } from '../../../nodes/shared/markdown/blocks';
import { checkFormatting } from '../../emulator/formatting';
import { BUDGET_PER_CHAR_MS, growth, growthVerdict, msPerRun } from '../../harness/growth';

const msPerConversion = (text: string, options?: Parameters<typeof msPerRun>[2]): number => msPerRun(markdownToHtml, text, options);

const globs = (n: number): string => `Supported files: ${Array.from({ length: n }, (_, index) => `*.t${index}`).join(', ')}`;
const cycle = (pieces: readonly string[], n: number): string => Array.from({ length: n }, (_, index) => pieces[(index * 7) % pieces.length]).join('');

/** Hostile families: the name says what grows with n. */
const families: Array<[string, (n: number) => string]> = [
	['unclosed * globs (*.t0, *.t1, …)', globs],
	['_ openers without closers', (n) => '_a, '.repeat(n)],
	['_ runs inside and between words', (n) => 'a_b __c_ '.repeat(n)],
	['** openers without closers', (n) => '**a '.repeat(n)],
	['*, ** and *** runs between words (the rule of 3)', (n) => 'a*b**c***d '.repeat(n)],
	['~~ openers without closers', (n) => '~~a '.repeat(n)],
	['[ × n', (n) => '['.repeat(n)],
	['nested [[[[ … ]]]] with a link at the end', (n) => `${'['.repeat(n)}a${']'.repeat(n)}(https://e.org)`],
	['[a]( link starts without an end', (n) => '[a]('.repeat(n)],
	['[](a link starts nested in each other\'s destinations', (n) => '[](a'.repeat(n)],
	['a link destination followed by n spaces', (n) => `[a](https://e.org${' '.repeat(n)}x)`],
	['unbalanced ( in link destinations', (n) => `[a](${'('.repeat(n)}`],
	['backtick runs of varied lengths', (n) => Array.from({ length: n }, (_, index) => `${'`'.repeat(1 + (index % 5))}x`).join('')],
	['a `` opener before many ` runs', (n) => `\`\`${' `x'.repeat(n)}`],
	['< × n', (n) => '<'.repeat(n)],
	['<https:// autolinks without an end', (n) => '<https://e.org/'.repeat(n)],
	['a heading padded with n spaces, then #1', (n) => `# Total${' '.repeat(n)}#1`],
	['a heading of n # then text', (n) => `${'#'.repeat(n)} x`],
	['a list item indented by n spaces', (n) => `${' '.repeat(n)}- item`],
	['a line indented by n spaces without a marker', (n) => `${' '.repeat(n)}x`],
	['a rule-like line of n "- " then text', (n) => `${'- '.repeat(n)}x`],
	['a table delimiter row with n |', (n) => `a|b\n${'|-'.repeat(n)}|x`],
	['a table of n columns and n rows of one cell', (n) => `${'|a'.repeat(n)}\n${'|-'.repeat(n)}\n${'|b\n'.repeat(n)}`],
	['a table row of n escaped \\|', (n) => `a|b\n-|-\n${'\\|'.repeat(n)}|`],
	['fence-like lines inside an unclosed fence', (n) => `\`\`\`\n${'``\n'.repeat(n)}`],
	['quote lines', (n) => '> *a\n'.repeat(n)],
	['a paragraph of n lines, each a ** opener', (n) => '**a\n'.repeat(n)],
	['a paragraph of lines * and *a alternating', (n) => '*\n*a\n'.repeat(n)],
	['a paragraph of n lines of openers of every kind', (n) => '*a _b ~~c `d [e](f <g\n'.repeat(n)],
	['a list item continued by n lines of ** openers', (n) => `- x\n${'  **a\n'.repeat(n)}`],
	['a quote of n lines of ** openers', (n) => '> **a\n'.repeat(n)],
	['backslashes and ampersands', (n) => '\\&\\'.repeat(n)],
	['mixed markup', (n) => cycle(['*', '_', '**', '__', '~~', '[', '](', '`', '<', '\\', ' ', 'a', '(', ')', '!'], n)],
];

describe('conversion time grows linearly with hostile text (time for 64n / time for n < 512)', () => {
	test.each(families)('%s', async (_name, make) => {
		expect(growthVerdict(await growth(markdownToHtml, make))).toBe('linear');
	});
});

describe('hostile text converts within 50 µs per character, into HTML the service parses', () => {
	const markup = ['*', '**', '***', '_', '__', '~~', '`', '``', '[', ']', '](', '(', ')', '<', '>', '&', '\\', '#', '|', '-', ' ', '  ', '\n', 'a', 'é', '😀', 'https://e.org', '> ', '```', '1. '];
	// Markup that opens without closing is what made the time grow: weighted three to one.
	const openers = [' *a', ' **a', ' ***a', ' _a', ' __a', ' ~~a', ' [a', ' [a](', ' (', ' `a', ' ``a', ' <a', ' <https://e.org', ' \\'];
	const piece = fc.oneof({ arbitrary: fc.constantFrom(...openers), weight: 3 }, { arbitrary: fc.constantFrom(...markup), weight: 1 });

	test('generated texts of a few thousand characters from the markup alphabet, mostly openers', () => {
		fc.assert(
			fc.property(fc.array(piece, { minLength: 700, maxLength: 1500 }), (pieces) => {
				const text = pieces.join('');
				const perChar = msPerConversion(text, { batches: 3, minMs: 2 }) / text.length;
				expect(perChar).toBeLessThan(BUDGET_PER_CHAR_MS);
				expect(() => checkFormatting(markdownToHtml(text), 'HTML')).not.toThrow();
			}),
			{ numRuns: 40 },
		);
	});

	test('a user\'s line of 24 unclosed globs stays as written', () => {
		const text = globs(24);
		expect(markdownToHtml(text)).toBe(
			'Supported files: *.t0, *.t1, *.t2, *.t3, *.t4, *.t5, *.t6, *.t7, *.t8, *.t9, *.t10, *.t11, *.t12, *.t13, *.t14, *.t15, *.t16, *.t17, *.t18, *.t19, *.t20, *.t21, *.t22, *.t23',
		);
		expect(msPerConversion(text, { batches: 3, minMs: 2 }) / text.length).toBeLessThan(BUDGET_PER_CHAR_MS);
	});

	test('a heading padded with 3,000 spaces before #1 is bold, the spaces and #1 kept', () => {
		const text = `# Total${' '.repeat(3000)}#1`;
		expect(markdownToHtml(text)).toBe(`<b>Total${' '.repeat(3000)}#1</b>`);
		expect(msPerConversion(text, { batches: 3, minMs: 2 }) / text.length).toBeLessThan(BUDGET_PER_CHAR_MS);
	});
});
