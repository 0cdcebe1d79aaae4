/**
 * An answer as it is being written, cut at every character, is shown by messages the service takes:
 * each prefix of a hostile model answer (nested and unclosed emphasis, backticks, fences, links half
 * written, `<` and `&`, emoji cut between their two halves, a table, longer than a message) converts
 * into parts that the emulator's sendMessage and editMessageText accept with parse_mode HTML (the
 * emulator checks the HTML by the spec's rules), each within the length limit. The conversion of a
 * growing answer takes time linear in its length (time for 64n over time for n, as
 * test/nodes/shared/markdown.hostile.test.ts measures: no wall-clock upper bound on the whole).
 */

import fc from 'fast-check';

import { answerParts, shownSoFar } from '../../../../../nodes/shared/trigger/stream/answerText';
import { useEmulator } from '../../../../harness/emulator-suite';
import { BUDGET_PER_CHAR_MS, growth, growthVerdict } from '../../../../harness/growth';

const suite = useEmulator();

/** Telegram's length limit, below the spec's 32,768 (spec part 8), so that cutting every prefix stays cheap while the answer still spans two messages. */
const LIMIT = 4096;

const HOSTILE_PIECES = [
	'## Plan **for *today*\n\n',
	'Here is **bold with _nested italic_ inside** and ***both*** and **unclosed bold, ',
	'then _an italic that never ends and a snake_case_name and 2 * 3 * 4.\n',
	'Code `a < b && c` and ``double `tick` span`` and a lone ` backtick.\n',
	'A [link](https://example.com/a?x=1&y=2) and a [half link](https://exa',
	'mple.com/b and [text](not a url) and <https://example.com/auto> and <b>not a tag</b> & &amp;.\n',
	'Emoji 😀👍🏽👨‍👩‍👧 and 🇩🇪 flags.\n\n',
	'```python\nif a < b and c & d:\n    print("**not bold**")\n```\n',
	'| Plan | Price |\n|:--|--:|\n| **Pro** | 12 € |\n| `x` | <y> |\n\n',
	'> a quote with **bold\n> and more\n\n',
	'1. first\n   - nested *item\n2. second ~~strike\n\n',
];

/** An answer of more than one message: the pieces repeated, ending inside an unclosed fence. */
function hostileAnswer(length: number): string {
	let answer = '';
	for (let index = 0; answer.length < length; index++) answer += HOSTILE_PIECES[index % HOSTILE_PIECES.length];
	return `${answer}\`\`\`js\nconst open = "<still open>";\n`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

async function call(method: string, body: Record<string, unknown>): Promise<{ ok: boolean; description?: string; result?: { message_id: number } }> {
	const response = await fetch(`${suite.emu.baseUrl}/bot${suite.d.token}/${method}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return (await response.json()) as { ok: boolean; description?: string; result?: { message_id: number } };
}

test('every prefix of a hostile answer of two messages is sent and edited as HTML the emulator accepts, within the limit', async () => {
	const answer = hostileAnswer(5_000);
	expect(answer.length).toBeGreaterThan(LIMIT);
	const shown: Array<{ id: number; text: string; parseMode: string | undefined }> = [];
	const refused: string[] = [];
	let requests = 0;
	for (let end = 1; end <= answer.length; end++) {
		const parts = answerParts(answer.slice(0, end), LIMIT);
		for (const [index, part] of parts.entries()) {
			expect(part.text.length).toBeLessThanOrEqual(LIMIT);
			expect(part.text).not.toMatch(LONE_SURROGATE);
			const before = shown[index];
			if (before && before.text === part.text && before.parseMode === part.parseMode) continue;
			const body = { chat_id: suite.d.privateChatId, text: part.text, ...(part.parseMode && { parse_mode: part.parseMode }) };
			const answered = before ? await call('editMessageText', { ...body, message_id: before.id }) : await call('sendMessage', body);
			requests++;
			if (!answered.ok) refused.push(`prefix ${end}, part ${index}: ${answered.description} in ${JSON.stringify(part.text.slice(-80))}`);
			shown[index] = { id: before?.id ?? answered.result?.message_id ?? -1, text: part.text, parseMode: part.parseMode };
		}
	}
	expect(refused).toEqual([]);
	// The whole answer: two messages, both HTML (the converter's output splits without breaking formatting).
	expect(shown.map((message) => message.parseMode)).toEqual(['HTML', 'HTML']);
	expect(requests).toBeGreaterThan(answer.length / 2);
	expect(suite.emu.callsTo('editMessageText').every((recorded) => recorded.status === 200)).toBe(true);
}, 120_000);

test('a prefix that shows nothing yet (spaces, an empty fence) is no message; one ending inside an emoji stops before it', () => {
	expect(answerParts('   \n\n')).toEqual([]);
	expect(answerParts('```\n')).toEqual([]);
	expect(answerParts('Hi 😀'.slice(0, 4))).toEqual([{ text: 'Hi ', parseMode: 'HTML' }]);
});

test('converting a growing hostile answer takes time linear in its length (time for 64n / time for n < 512; under 50 µs a character)', async () => {
	const { ratio, sizes } = await growth((answer) => answerParts(answer, LIMIT), (n) => hostileAnswer(n * 10));
	expect(growthVerdict({ ratio, sizes })).toBe('linear');
	const largest = sizes[sizes.length - 1];
	expect(largest.ms / largest.length).toBeLessThan(BUDGET_PER_CHAR_MS);
});

/** Lines a model could leave unfinished, growing: openers never closed, pairs cut by a later opener, half links, backtick runs; a paragraph of such lines. */
const UNFINISHED_LINES: Array<[string, (n: number) => string]> = [
	['a paragraph of n lines, each opening and never closing', (n) => '**a *b `c [d](e\n'.repeat(n)],
	['a list item continued by n lines of openers', (n) => `- item\n${'  *a _b\n'.repeat(n)}`],
	['openers never closed', (n) => 'a *b _c '.repeat(n)],
	['pairs each cut by an opener after them', (n) => '**a *b** '.repeat(n)],
	['half links', (n) => '[label](https://exa '.repeat(n)],
	['backtick runs of growing length', (n) => Array.from({ length: n }, (_, index) => '`'.repeat((index % 7) + 1) + ' x ').join('')],
];

test.each(UNFINISHED_LINES)('what a streamed answer shows of its last line takes time linear in the line (%s)', async (_family, make) => {
	const { ratio, sizes } = await growth((line) => shownSoFar(`Intro\n\n${line}`), make);
	expect(growthVerdict({ ratio, sizes })).toBe('linear');
	const largest = sizes[sizes.length - 1];
	expect(largest.ms / largest.length).toBeLessThan(BUDGET_PER_CHAR_MS);
});

/** Answers whose end is a long run of lines with `|` (a table still open, rows that may still be a header) or a long possible rule. */
const TABLE_TAILS: Array<[string, (n: number) => string]> = [
	['a table of n rows, still open', (n) => `| a | b |\n|---|--:|\n${'| 1 | 22 |\n'.repeat(n)}`],
	['n lines with `|` and no delimiter row, the last a header being typed', (n) => `${'a | b\n'.repeat(n)}|`],
	['n pairs of a row and a line that is no delimiter row', (n) => '| a |\n| -x\n'.repeat(n)],
	['n tables of one row each, the last still open', (n) => '| a |\n|-|\n| 1 |\n\n'.repeat(n).slice(0, -1)],
	['a header row of n cells with its delimiter row half written', (n) => `${'| a '.repeat(n)}|\n${'|--'.repeat(n)}`],
	['a header row without outer pipes after n words', (n) => `${'word '.repeat(n)}| b\n`],
	['a possible rule of n characters', (n) => '- '.repeat(n)],
];

test.each(TABLE_TAILS)('what a streamed answer shows of a table still being written takes time linear in the answer (%s)', async (_family, make) => {
	const { ratio, sizes } = await growth((tail) => shownSoFar(`Intro\n\n${tail}`), make);
	expect(growthVerdict({ ratio, sizes })).toBe('linear');
	const largest = sizes[sizes.length - 1];
	expect(largest.ms / largest.length).toBeLessThan(BUDGET_PER_CHAR_MS);
});

test('a streamed answer holds back only its last line’s unfinished markup, a bare block marker and a closing fence being typed', () => {
	expect(shownSoFar('Done line.\nHere is *emphasis')).toBe('Done line.\nHere is ');
	expect(shownSoFar('Here is *emphasis* and more')).toBe('Here is *emphasis* and more');
	expect(shownSoFar('a `code')).toBe('a ');
	expect(shownSoFar('see [the docs](https://exa')).toBe('see ');
	expect(shownSoFar('see [the docs]')).toBe('see ');
	expect(shownSoFar('2 * 3 and snake_case stay')).toBe('2 * 3 and snake_case stay');
	expect(shownSoFar('**a *b** c')).toBe('');
	expect(shownSoFar('Items:\n-')).toBe('Items:\n');
	expect(shownSoFar('```\nconst a = 2 * 3; // *x\n``')).toBe('```\nconst a = 2 * 3; // *x\n');
	expect(shownSoFar('```\nconst a = *x')).toBe('```\nconst a = *x');
});

test('markup opened in a paragraph is held back from where it opens until it closes, across its lines; a paragraph that ended shows its markup as written', () => {
	expect(shownSoFar('Intro\n\n**Note:\nthis')).toBe('Intro\n\n');
	expect(shownSoFar('Intro\n\n**Note:\n')).toBe('Intro\n\n');
	expect(shownSoFar('Intro\n\n**Note:\nthis matters**')).toBe('Intro\n\n**Note:\nthis matters**');
	expect(shownSoFar('See [the\ndocs](https://exa')).toBe('See ');
	expect(shownSoFar('- item *one\n  two')).toBe('- item ');
	expect(shownSoFar('> quoted `code\n> more')).toBe('> quoted ');
	expect(shownSoFar('**a\n\nb')).toBe('**a\n\nb');
	expect(shownSoFar('## **a\nb')).toBe('## **a\nb');
	expect(shownSoFar('**a\n-')).toBe('');
	// A run at the end that closed a pair and has a `*` left may open the next (`***` then `c*`).
	expect(shownSoFar('**a\nb***')).toBe('');
});

/** What a reader sees of messages: tags dropped, entities decoded, the messages one after another. */
const readableAll = (markdown: string): string =>
	answerParts(markdown)
		.map((part) => part.text.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'))
		.join('\n');

test('generated answers with markup across lines: at every character, what is shown is a beginning of what the whole answer shows', () => {
	const piece = fc.constantFrom(' **a\nb** ', ' *c\nd* ', ' `e\nf` ', ' [g\nh](https://x.y) ', ' **i *j\nk* l** ', ' *g* ', ' word', 'x', '\n', '\n\n', '\n- item', '\n> ', '\n1. ', '\n## ', ' **open', ' `open');
	fc.assert(
		fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
			const answer = pieces.join('');
			const whole = readableAll(answer);
			for (let end = 1; end <= answer.length; end++) {
				const shown = readableAll(shownSoFar(answer.slice(0, end)));
				if (!whole.startsWith(shown)) throw new Error(`${JSON.stringify(answer.slice(0, end))} shows ${JSON.stringify(shown)}, the whole ${JSON.stringify(whole)}`);
			}
		}),
		{ numRuns: 1000 },
	);
});

test('a table is held back from its header row until it has ended (a blank line, a line without `|`, or the answer’s end), then shown whole', () => {
	const table = '| Plan | Price |\n|:--|--:|\n| Free | 0 € |\n| Professional | 1,200 € |';
	// The header row alone, or with its delimiter row half written, may still become a table.
	expect(shownSoFar('Plans:\n\n| Plan | Pri')).toBe('Plans:\n\n');
	expect(shownSoFar('Plans:\n\n| Plan | Price |\n')).toBe('Plans:\n\n');
	expect(shownSoFar('Plans:\n\n| Plan | Price |\n|:-')).toBe('Plans:\n\n');
	// Each row may widen a column: nothing of the table is shown while rows may still come.
	expect(shownSoFar(`Plans:\n\n${table}`)).toBe('Plans:\n\n');
	expect(shownSoFar(`Plans:\n\n${table}\n`)).toBe('Plans:\n\n');
	expect(shownSoFar(`Plans:\n\n${table}\nPrices a mon`)).toBe('Plans:\n\n');
	// Ended: by a blank line, or by a whole line without `|`.
	expect(shownSoFar(`Plans:\n\n${table}\n\n`)).toBe(`Plans:\n\n${table}\n\n`);
	expect(shownSoFar(`Plans:\n\n${table}\n\nPrices a mon`)).toBe(`Plans:\n\n${table}\n\nPrices a mon`);
	expect(shownSoFar(`Plans:\n\n${table}\nPrices a month.\n`)).toBe(`Plans:\n\n${table}\nPrices a month.\n`);
	// A header row without outer pipes: its first cell's words (and one space) read the same as text and in the table.
	expect(shownSoFar('Compared:\nName')).toBe('Compared:\nName');
	expect(shownSoFar('Compared:\nName | Seats\n---')).toBe('Compared:\nName ');
	// A row of `|` that is no table (the line below it is no delimiter row) is text, shown as it comes.
	expect(shownSoFar('| a | b |\nno delimiter')).toBe('| a | b |\nno delimiter');
	// A table inside a code fence is code.
	expect(shownSoFar('```\n| a | b |')).toBe('```\n| a | b |');
});

test('a line of only `-`, `*`, `_` and spaces is held back: it may still become a rule (`- -` is a list item until its third `-`)', () => {
	expect(shownSoFar('Intro\n\n- -')).toBe('Intro\n\n');
	expect(shownSoFar('Intro\n\n--')).toBe('Intro\n\n');
	expect(shownSoFar('Intro\n\n* *')).toBe('Intro\n\n');
	expect(shownSoFar('Intro\n\n- - -\n')).toBe('Intro\n\n- - -\n');
	expect(shownSoFar('Intro\n\n- a')).toBe('Intro\n\n- a');
});

test('an answer with a table converts exactly as Markdown From AI converts it: the table monospaced in aligned columns', () => {
	expect(answerParts('Plans:\n\n| Plan | Price |\n|:--|--:|\n| Free | 0 € |\n| Professional | 1,200 € |\n\nPer month.')).toEqual([
		{ text: 'Plans:\n\n<pre>Plan         | Price\n-------------+--------\nFree         | 0 €\nProfessional | 1,200 €</pre>\n\nPer month.', parseMode: 'HTML' },
	]);
});

test('generated answers with tables, rules and markup: at every character, what is shown is a beginning of what the whole answer shows', () => {
	const piece = fc.constantFrom(
		'\n| a | b |',
		'\n| wide cell | c |',
		'\n|---|--:|',
		'\n--- | ---',
		'\nname | seats',
		'\n| x',
		'\n- - -',
		'\n***',
		'\n',
		'\n\n',
		' word',
		' **a\nb** ',
		' *open',
		'\n- item',
		'\n> ',
	);
	fc.assert(
		fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
			const answer = pieces.join('');
			const whole = readableAll(answer);
			for (let end = 1; end <= answer.length; end++) {
				const shown = readableAll(shownSoFar(answer.slice(0, end)));
				if (!whole.startsWith(shown)) throw new Error(`${JSON.stringify(answer.slice(0, end))} shows ${JSON.stringify(shown)}, the whole ${JSON.stringify(whole)}`);
			}
		}),
		{ numRuns: 1000 },
	);
});
