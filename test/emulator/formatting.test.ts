/**
 * Formatted text (parse_mode): the spec shows only the mode names; Telegram's rules apply, so markup
 * that does not parse is refused with "can't parse entities", for texts and captions, sends and edits.
 */
import type { DemoData, Emulator, Message } from './index';
import { fails, ok, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

const send = (text: string, parse_mode: string, extra: Record<string, unknown> = {}): Promise<Message> =>
	ok<Message>(emu, 'sendMessage', { chat_id: d.privateChatId, text, parse_mode, ...extra });
const refused = async (text: string, parse_mode: string, reason: RegExp): Promise<void> => {
	await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text, parse_mode }, 400, /can't parse entities/);
	await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text, parse_mode }, 400, reason);
};

describe('HTML', () => {
	it('accepts nested, closed tags and entities', async () => {
		await send('<b>bold <i>both</i></b> &lt;tag&gt; &quot;&#169;&#x1F600; R&D & co <a href="https://example.com">link</a> <pre><code>x</code></pre>', 'HTML');
		expect(emu.history(d.privateChatId)).toHaveLength(1);
	});

	it('refuses an unclosed, a crossed, an unknown tag and a bare "<"', async () => {
		await refused('<b>never closed', 'HTML', /Can't find end tag corresponding to start tag "b"/);
		await refused('<b><i>x</b></i>', 'HTML', /Unmatched end tag at byte offset 7, expected "<\/i>", found "<\/b>"/);
		await refused('<blink>x</blink>', 'HTML', /Unsupported start tag "blink" at byte offset 0/);
		await refused('1 < 2', 'HTML', /Unclosed start tag at byte offset 2/);
		await refused('x</b>', 'HTML', /Unexpected end tag at byte offset 1/);
		await refused('a&nbsp;b', 'HTML', /Unsupported HTML entity "&nbsp;" at byte offset 1/);
		expect(emu.history(d.privateChatId)).toHaveLength(0);
	});
});

describe('HTML nesting (Telegram\'s "Formatting options")', () => {
	it('refuses code or pre inside a link, and a link inside a link', async () => {
		await refused('<a href="https://e.org"><code>x</code></a>', 'HTML', /Tag "code" can't be nested in tag "a" at byte offset 24/);
		await refused('see <a href="https://e.org"><pre>x</pre></a>', 'HTML', /Tag "pre" can't be nested in tag "a" at byte offset 28/);
		await refused('<a href="https://a.org"><a href="https://b.org">x</a></a>', 'HTML', /Tag "a" can't be nested in tag "a" at byte offset 24/);
		expect(emu.history(d.privateChatId)).toHaveLength(0);
	});

	it('refuses any tag inside code or pre other than a code block with its language', async () => {
		await refused('<code><b>x</b></code>', 'HTML', /Tag "b" can't be nested in tag "code" at byte offset 6/);
		await refused('<pre>é <i>x</i></pre>', 'HTML', /Tag "i" can't be nested in tag "pre" at byte offset 8/);
		await refused('<pre><code class="language-js"><a href="https://e.org">x</a></code></pre>', 'HTML', /Tag "a" can't be nested in tag "code" at byte offset 31/);
		await refused('<pre>x <code>y</code></pre>', 'HTML', /Tag "code" can't be nested in tag "pre" at byte offset 7/);
		await refused('<pre><code>x</code><code>y</code></pre>', 'HTML', /Tag "code" can't be nested in tag "pre" at byte offset 19/);
		await refused('<pre><code class="language-js">x</code> y</pre>', 'HTML', /Text after the code block's "<\/code>" inside tag "pre" at byte offset 39/);
		await refused('<blockquote>a <blockquote>b</blockquote></blockquote>', 'HTML', /Tag "blockquote" can't be nested in tag "blockquote" at byte offset 14/);
		expect(emu.history(d.privateChatId)).toHaveLength(0);
	});

	it('accepts a code block with its language, formatting inside a link, a link or code inside bold and a quote', async () => {
		await send('<pre><code class="language-js">if (a &lt; b) {}</code></pre>', 'HTML');
		await send('<a href="https://e.org"><b>bold</b> <i>link</i></a> <b><a href="https://e.org">x</a> <code>y</code></b>', 'HTML');
		await send('<blockquote><code>x</code> <a href="https://e.org">y</a> <s>z</s></blockquote>', 'HTML');
		expect(emu.history(d.privateChatId)).toHaveLength(3);
	});
});

describe('Markdown (legacy)', () => {
	it('accepts closed entities, links and escapes', async () => {
		await send('*bold* _italic_ `code` ```pre``` [link](https://example.com) 2 \\* 3', 'Markdown');
		expect(emu.history(d.privateChatId)).toHaveLength(1);
	});

	it('refuses an entity without its end, with the byte offset of its start', async () => {
		await refused('ab *bold', 'Markdown', /Can't find end of the entity starting at byte offset 3/);
		await refused('é _x', 'Markdown', /starting at byte offset 3/);
	});
});

describe('MarkdownV2', () => {
	it('accepts nested entities and escaped reserved characters', async () => {
		await send('*bold _italic_* __under__ ~strike~ ||spoiler|| `a.b` 1\\.5\\!', 'MarkdownV2');
		expect(emu.history(d.privateChatId)).toHaveLength(1);
	});

	it('refuses an unescaped reserved character and an unclosed entity', async () => {
		await refused('Hello.', 'MarkdownV2', /Character '\.' is reserved/);
		await refused('*bold', 'MarkdownV2', /Can't find end of the entity starting at byte offset 0/);
	});
});

describe('where it applies', () => {
	it('no parse mode, or entities given: the text is not parsed', async () => {
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: '<b>never closed' });
		await ok(emu, 'sendMessage', {
			chat_id: d.privateChatId,
			text: '<b>never closed',
			parse_mode: 'HTML',
			entities: [{ type: 'bold', offset: 0, length: 2 }],
		});
		expect(emu.history(d.privateChatId)).toHaveLength(2);
	});

	it('captions of media sends and text edits are checked too', async () => {
		await fails(
			emu,
			'sendPhoto',
			{ chat_id: d.groupChatId, photo: d.media.photo, caption: '<b>open', parse_mode: 'HTML' },
			400,
			/can't parse entities/,
		);
		const sent = await send('<b>fine</b>', 'HTML');
		await fails(
			emu,
			'editMessageText',
			{ chat_id: d.privateChatId, message_id: sent.message_id, text: '*open', parse_mode: 'Markdown' },
			400,
			/can't parse entities/,
		);
		expect(emu.history(d.privateChatId).map((message) => message.text)).toEqual(['<b>fine</b>']);
	});
});
