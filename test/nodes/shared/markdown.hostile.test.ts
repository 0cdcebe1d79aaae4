/**
 * Markdown From AI on hostile text. The converter runs synchronously inside n8n's process on text any
 * chat user can influence (an AI bot quotes the user), so its time must grow linearly with the text.
 * Proven without wall-clock upper bounds: each family of hostile input is converted at growing sizes
 * (n, 2n, 4n, 8n, …) and the time for 8n over the time for n must stay under 30 (linear gives about 8,
 * quadratic 64, exponential far more); generated hostile texts must stay under a generous budget per
 * character. Each measurement is taken over a few batches, to ride out a loaded machine.
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';

import { markdownToHtml } from '../../../nodes/shared/markdown/blocks';
import { checkFormatting } from '../../emulator/formatting';

/** The growth allowed from n to 8n. */
const MAX_GROWTH_8X = 30;
/** The time allowed per character of a hostile text, in milliseconds (50 µs). */
const BUDGET_PER_CHAR_MS = 0.05;

/**
 * Milliseconds per conversion of `text`, each batch repeated to last at least `minMs`: the median of
 * the batches, or their fastest (`fastest`), which a loaded machine can only slow down.
 */
function msPerConversion(text: string, { batches = 5, minMs = 8, fastest = false } = {}): number {
	const times: number[] = [];
	for (let batch = 0; batch < batches; batch++) {
		let runs = 0;
		const start = performance.now();
		let elapsed = 0;
		do {
			markdownToHtml(text);
			runs++;
			elapsed = performance.now() - start;
		} while (elapsed < minMs);
		times.push(elapsed / runs);
	}
	times.sort((a, b) => a - b);
	return fastest ? times[0] : times[Math.floor(times.length / 2)];
}

/** Times under this are measurement noise (timer resolution, the JIT warming up): they count as this. */
const NOISE_MS = 0.05;
/** Sizes grow until the text is longer than this (20,000 to 40,000 characters at the largest). */
const LARGEST_TEXT = 20_000;

/** One size of a hostile family: its text's length and the time to convert it. */
interface Measured {
	length: number;
	ms: number;
}

/** How many times longer `later` took than `earlier`; times under the noise count as the noise. */
const grew = (later: Measured, earlier: Measured): number => later.ms / Math.max(earlier.ms, NOISE_MS);

/**
 * The time for 8n over the time for n, for n doubling from 8 until the text is over 20,000
 * characters (n is the last-but-three), each time the fastest of 5 batches. It stops at the first
 * size whose time grew more than 30 times over a size an eighth of it, or over its half, so an
 * exponential converter fails in seconds instead of hanging; such a size is measured up to three
 * times more first, each after a pause, as a slow spell of a loaded machine (the other jest worker, a
 * collection) passes and real growth stays: a quadratic converter grows 64 times at every try.
 */
async function growth(make: (n: number) => string): Promise<{ ratio: number; sizes: Measured[] }> {
	const sizes: Measured[] = [];
	for (let n = 8; sizes.length < 4 || sizes[sizes.length - 1].length <= LARGEST_TEXT; n *= 2) {
		const text = make(n);
		const size = { length: text.length, ms: msPerConversion(text, { fastest: true }) };
		sizes.push(size);
		const worst = (): number => Math.max(...[sizes.at(-2), sizes.at(-4)].map((earlier) => (earlier && earlier !== size ? grew(size, earlier) : 0)));
		for (let retry = 0; retry < 3 && worst() > MAX_GROWTH_8X; retry++) {
			await new Promise((resolve) => setTimeout(resolve, 100));
			size.ms = Math.min(size.ms, msPerConversion(text, { fastest: true }));
		}
		if (worst() > MAX_GROWTH_8X) return { ratio: worst(), sizes };
	}
	return { ratio: grew(sizes[sizes.length - 1], sizes[sizes.length - 4]), sizes };
}

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
	['backslashes and ampersands', (n) => '\\&\\'.repeat(n)],
	['mixed markup', (n) => cycle(['*', '_', '**', '__', '~~', '[', '](', '`', '<', '\\', ' ', 'a', '(', ')', '!'], n)],
];

describe('conversion time grows linearly with hostile text (time for 8n / time for n < 30)', () => {
	test.each(families)('%s', async (_name, make) => {
		const { ratio, sizes } = await growth(make);
		const shown = sizes.map(({ length, ms }) => `${length} chars: ${ms.toFixed(3)} ms`).join(', ');
		expect({ ratio: Number(ratio.toFixed(1)), under: ratio < MAX_GROWTH_8X, times: shown }).toMatchObject({ under: true });
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
