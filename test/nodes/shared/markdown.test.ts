/**
 * Markdown from a chat model → the service's HTML: a corpus of answers as models write them, with the
 * exact HTML each becomes, and generated Markdown that the emulator's HTML parser (the service's
 * rules, test/emulator/formatting.ts) must accept whatever it holds.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';

import { splitText } from '../../../nodes/shared/splitText';
import { markdownToHtml } from '../../../nodes/shared/markdown/blocks';
import { checkFormatting } from '../../emulator/formatting';

describe('a corpus of model answers', () => {
	test('headings, bold, italic, strike, code with < & * _, a link and a quote', () => {
		const answer = [
			'## Order status',
			'',
			'Your order **#1042** is *on its way* — ~~delayed~~ on time.',
			'Run `a < b && c_d * 2` or see [the tracker](https://example.com/track?id=1&x=2).',
			'> Shipped from R&D <warehouse 3>',
		].join('\n');
		expect(markdownToHtml(answer)).toBe(
			[
				'<b>Order status</b>',
				'',
				'Your order <b>#1042</b> is <i>on its way</i> — <s>delayed</s> on time.',
				'Run <code>a &lt; b &amp;&amp; c_d * 2</code> or see <a href="https://example.com/track?id=1&amp;x=2">the tracker</a>.',
				'<blockquote>Shipped from R&amp;D &lt;warehouse 3&gt;</blockquote>',
			].join('\n'),
		);
	});

	test('nested lists become bullets and numbers, indented; snake_case and 2 * 3 * 4 stay as written', () => {
		const answer = ['1. First step', '   - use `snake_case_name`', '   - multiply 2 * 3 * 4', '2. Second step', '* done'].join('\n');
		expect(markdownToHtml(answer)).toBe(
			['1. First step', '  • use <code>snake_case_name</code>', '  • multiply 2 * 3 * 4', '2. Second step', '• done'].join('\n'),
		);
	});

	test('a table becomes aligned monospaced columns, its markup as text', () => {
		const answer = ['| Plan | Price | Notes |', '|:-----|------:|-------|', '| **Pro** | 12 € | `fast` & <new> |', '| Free | 0 | — |'].join('\n');
		expect(markdownToHtml(answer)).toBe(
			[
				'<pre>Plan | Price | Notes',
				'-----+-------+-------------',
				'Pro  | 12 €  | fast &amp; &lt;new&gt;',
				'Free | 0     | —</pre>',
			].join('\n'),
		);
	});

	test('a code block keeps everything as written, with its language', () => {
		const answer = ['```python', 'if a < b and c & d:', '    print("**not bold**")', '```', 'After.'].join('\n');
		expect(markdownToHtml(answer)).toBe(
			['<pre><code class="language-python">if a &lt; b and c &amp; d:', '    print("**not bold**")</code></pre>', 'After.'].join('\n'),
		);
	});

	test('a link whose label is code: the code shown as the link\'s text, which the service takes (no code inside a link)', () => {
		const html = markdownToHtml('Run [`npm test`](https://e.org/ci) or [see <https://e.org>](https://e.org/a).');
		expect(html).toBe('Run <a href="https://e.org/ci">npm test</a> or <a href="https://e.org/a">see &lt;https://e.org&gt;</a>.');
		expect(() => checkFormatting(html, 'HTML')).not.toThrow();
	});

	test('link destinations as CommonMark reads them: balanced parentheses, a title, escapes', () => {
		expect(markdownToHtml('[wiki](https://e.org/Foo_(bar)) and [t](https://e.org/x "a (title)") and [e](https://e.org/a\\_b)')).toBe(
			'<a href="https://e.org/Foo_(bar)">wiki</a> and <a href="https://e.org/x">t</a> and <a href="https://e.org/a_b">e</a>',
		);
	});

	test('emphasis as CommonMark matches it: nested runs, intraword _ and * , runs that cannot open', () => {
		expect(markdownToHtml('***both*** **bold *and italic*** snake_case_name a*b*c _not_closed 2 * 3')).toBe(
			'<i><b>both</b></i> <b>bold <i>and italic</i></b> snake_case_name a<i>b</i>c _not_closed 2 * 3',
		);
	});

	test('an unclosed code block runs to the end of the answer, as CommonMark says', () => {
		expect(markdownToHtml('Here:\n```js\nif (a < b) {\n  go();')).toBe('Here:\n<pre><code class="language-js">if (a &lt; b) {\n  go();</code></pre>');
	});

	test('markup that is not closed stays as the characters it was', () => {
		expect(markdownToHtml('a **bold start, an `open code and a [link](javascript:alert(1))')).toBe(
			'a **bold start, an `open code and a [link](javascript:alert(1))',
		);
	});
});

describe('a paragraph\'s lines are one text: emphasis, code spans and links cross a soft line break, as CommonMark reads them', () => {
	// Expected HTML from the CommonMark spec (paragraphs 4.8, code spans 6.1: a line ending becomes a
	// space; soft line breaks 6.8), as the service's tags; a line break stays a line break in the chat.
	test('bold across a line break', () => {
		expect(markdownToHtml('**Note:\nthis matters**')).toBe('<b>Note:\nthis matters</b>');
	});

	test('italic across a line break', () => {
		expect(markdownToHtml('*one\ntwo*')).toBe('<i>one\ntwo</i>');
	});

	test('a code span across a line break: the line ending becomes a space (and the next line\'s indentation goes)', () => {
		expect(markdownToHtml('`a\nb`')).toBe('<code>a b</code>');
		expect(markdownToHtml('Run `npm\n   test` now')).toBe('Run <code>npm test</code> now');
	});

	test('a link whose label spans a line break', () => {
		expect(markdownToHtml('[a link\ntext](https://x.y)')).toBe('<a href="https://x.y">a link\ntext</a>');
	});

	test('a list item and the lines that continue it are one text; its continuation lines keep their indentation', () => {
		expect(markdownToHtml('- **a\n  b** c\n- d')).toBe('• <b>a\n  b</b> c\n• d');
		expect(markdownToHtml('1. *one\ntwo*')).toBe('1. <i>one\ntwo</i>');
	});

	test('the lines of a quote are one text, up to a blank quote line', () => {
		expect(markdownToHtml('> **a\n> b**')).toBe('<blockquote><b>a\nb</b></blockquote>');
		expect(markdownToHtml('> **a\n>\n> b**')).toBe('<blockquote>**a\n\nb**</blockquote>');
	});

	test('markup never crosses a blank line, a heading, a list item, a fence, a table, a rule or a quote', () => {
		expect(markdownToHtml('**a\n\nb**')).toBe('**a\n\nb**');
		expect(markdownToHtml('# **a\nb**')).toBe('<b>**a</b>\nb**');
		expect(markdownToHtml('**a\n- b**')).toBe('**a\n• b**');
		expect(markdownToHtml('**a\n```\nb**\n```')).toBe('**a\n<pre>b**</pre>');
		expect(markdownToHtml('**a\n|x|\n|-|\n|b**|')).toBe('**a\n<pre>x\n---\nb**</pre>');
		expect(markdownToHtml('**a\n***\nb**')).toBe('**a\n———\nb**');
		expect(markdownToHtml('**a\n> b**')).toBe('**a\n<blockquote>b**</blockquote>');
		expect(markdownToHtml('> **a\nb**')).toBe('<blockquote>**a</blockquote>\nb**');
	});

	test('the same visible text as markdown-it for markup across a line break', () => {
		const oracle = new MarkdownIt({ linkify: false, html: false });
		oracle.enable('strikethrough');
		for (const markdown of ['**Note:\nthis matters**', '*one\ntwo*', '[a link\ntext](https://x.y)', '~~a\nb~~ and _c\nd_', '*a\n*b*']) {
			expect(visible(markdownToHtml(markdown))).toBe(visible(oracle.render(markdown)));
		}
	});
});

describe('whatever a model writes, the service can parse the result', () => {
	const pieces = ['*', '**', '_', '__', '~~', '`', '```', '[', ']', '(', ')', '<', '>', '&', '#', '-', '|', '\\', '\n', ' ', 'a', 'b', 'x_y', 'https://e.org', '1.', '> ', '---', 'é', '😀'];
	test('generated Markdown → HTML that the emulator accepts with parse_mode HTML', () => {
		fc.assert(
			fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
				const html = markdownToHtml(parts.join(''));
				expect(() => checkFormatting(html, 'HTML')).not.toThrow();
			}),
			{ numRuns: 3000 },
		);
	});
});

/** The text a reader sees of the service's HTML: tags dropped, its entities decoded. */
function shown(html: string): string {
	return html.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

describe('Split Long Text cuts long formatting (a code block) into parts that each parse', () => {
	test('the open tags are closed at the end of a part and opened again, as written, at the start of the next', () => {
		const html = 'Here:\n<pre><code class="language-js">aaa\nbbb\nccc</code></pre>';
		expect(splitText(html, 52, 'HTML')).toEqual({
			ok: true,
			parts: ['Here:', '<pre><code class="language-js">aaa\nbbb</code></pre>', '<pre><code class="language-js">ccc</code></pre>'],
		});
	});

	test('a start tag longer than a part is still refused, where it starts', () => {
		expect(splitText('ok <a href="https://example.com/a/long/path">x</a>', 20, 'HTML')).toEqual({
			ok: false,
			problem: 'formatting that starts at character 4 runs over 20 characters',
		});
	});

	const pieces = ['*', '**', '_', '~~', '`', '```', '```js', '[', ']', '(https://e.org)', '<', '&', '#', '> ', '- ', '|', '\n', '\n\n', ' ', 'a', 'word', 'é', '😀'];
	test('converted answers cut into parts of 60 to 200 characters: each fits, parses, shows something, and together they show the whole text', () => {
		fc.assert(
			fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 120 }), fc.integer({ min: 60, max: 200 }), (parts, max) => {
				const html = markdownToHtml(parts.join(''));
				const split = splitText(html, max, 'HTML');
				if (!split.ok) throw new Error(split.problem);
				for (const part of split.parts) {
					expect(part.length).toBeLessThanOrEqual(max);
					expect(() => checkFormatting(part, 'HTML')).not.toThrow();
					if (shown(html).trim() !== '') expect(shown(part).trim()).not.toBe('');
				}
				expect(split.parts.map(shown).join('').replace(/\s/g, '')).toBe(shown(html).replace(/\s/g, ''));
			}),
			{ numRuns: 2000 },
		);
	});
});

/** The text a reader sees in HTML: tags dropped, the entities HTML writers use decoded, spaces collapsed. */
function visible(html: string): string {
	return html
		.replace(/<[^>]*>/g, ' ')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&')
		.replace(/\s+/g, ' ')
		.trim();
}

describe('against markdown-it (a well-kept CommonMark library) as the oracle', () => {
	const oracle = new MarkdownIt({ linkify: false, html: false });
	oracle.enable('strikethrough');
	// Inline Markdown as models write it, in lines, headings and code blocks: the text a reader sees
	// must be the text markdown-it shows (lists and tables are laid out differently on purpose).
	const word = fc.constantFrom('plan', 'R&D', 'a<b', 'x > y', '"quoted"', 'snake_case', '3 * 4', 'é', '😀', 'don\'t');
	const inlinePiece = fc.oneof(
		word,
		word.map((text) => `**${text}**`),
		word.map((text) => `*${text}*`),
		word.map((text) => `~~${text}~~`),
		word.map((text) => `\`${text}\``),
		word.map((text) => `[${text}](https://example.com/${encodeURIComponent(text)})`),
		fc.tuple(fc.constantFrom('**', '*', '~~', '_'), word, word).map(([mark, first, second]) => `${mark}${first}\n${second}${mark}`),
		fc.tuple(word, word).map(([first, second]) => `[${first}\n${second}](https://example.com/)`),
	);
	// Pieces joined by a space or a line break: a paragraph's lines are one text, as in CommonMark.
	const line = fc
		.array(fc.tuple(inlinePiece, fc.constantFrom(' ', ' ', '\n')), { minLength: 1, maxLength: 6 })
		.map((pieces) => pieces.map(([piece, gap], index) => (index === 0 ? piece : `${gap}${piece}`)).join(''));
	const block = fc.oneof(
		line,
		line.map((text) => `## ${text}`),
		fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => ['```', ...words, '```'].join('\n')),
	);
	const document = fc.array(block, { minLength: 1, maxLength: 6 }).map((blocks) => blocks.join('\n\n'));

	test('generated documents: the same visible text as the oracle, and HTML the service parses', () => {
		fc.assert(
			fc.property(document, (markdown) => {
				const html = markdownToHtml(markdown);
				expect(() => checkFormatting(html, 'HTML')).not.toThrow();
				expect(visible(html)).toBe(visible(oracle.render(markdown)));
			}),
			{ numRuns: 1000 },
		);
	});

	test('the corpus reads the same as the oracle where both show text the same way', () => {
		const corpus = [
			'Your order **#1042** is *on its way* — ~~delayed~~ on time.',
			'Run `a < b && c_d * 2` or see [the tracker](https://example.com/track?id=1&x=2).',
			'### Steps\n\nUse `snake_case_name` and **not** _camelCase_.',
			'```js\nif (a < b && c) { return "<ok>"; }\n```',
		];
		for (const markdown of corpus) expect(visible(markdownToHtml(markdown))).toBe(visible(oracle.render(markdown)));
	});
});
