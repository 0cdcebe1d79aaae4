/**
 * Parse Mode "Markdown From AI" through the node: what the service receives for a model's answer (HTML
 * it accepts), the plain-text resend when it still refuses the formatting, and Split Long Text.
 */
import { LIMITS } from '../../spec';
import { byId, run, runOk } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

/** The text a reader sees of the service's HTML: tags dropped, its entities decoded. */
function shown(html: string): string {
	return html.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

describe('Parse Mode "Markdown From AI" through the node: what the service receives', () => {
	const answer = ['## Your plan', '', '| Plan | Price |', '|---|---:|', '| **Pro** | 12 € |', '', 'Reply `yes` & we switch you <now>.'].join('\n');

	test('Send Message sends the answer as HTML with parse_mode HTML, and the service accepts it', async () => {
		await runOk(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: answer, additionalFields: { parseMode: 'markdownFromAi' } });
		const [call] = ctx.emu.callsTo('sendMessage');
		expect(call.status).toBe(200);
		expect(call.body).toMatchObject({
			parse_mode: 'HTML',
			text: ['<b>Your plan</b>', '', '<pre>Plan | Price', '-----+------', 'Pro  | 12 €</pre>', '', 'Reply <code>yes</code> &amp; we switch you &lt;now&gt;.'].join('\n'),
		});
	});

	test('a photo caption is converted the same way', async () => {
		await runOk(ctx, {
			resource: 'message',
			operation: 'sendPhoto',
			chatId: byId(ctx.d.privateChatId),
			photo: ctx.d.media.photo,
			additionalFields: { caption: '**Damaged** box, see _left_ side', parseMode: 'markdownFromAi' },
		});
		expect(ctx.emu.callsTo('sendPhoto')[0].body).toMatchObject({ parse_mode: 'HTML', caption: '<b>Damaged</b> box, see <i>left</i> side' });
	});

	test('when the service still refuses the formatting, the answer is sent once more as plain text (what a reader would see), and the output says so', async () => {
		// A service whose formatting rules differ from the spec's (here: it refuses the first try).
		ctx.emu.injectFault({ kind: 'status', status: 400, method: 'sendMessage', description: "Bad Request: can't parse entities: unsupported start tag \"pre\" at byte offset 21" });
		const output = await runOk(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: answer, additionalFields: { parseMode: 'markdownFromAi' } });
		const calls = ctx.emu.callsTo('sendMessage');
		expect(calls.map((call) => call.status)).toEqual([400, 200]);
		expect(calls[1].body).not.toHaveProperty('parse_mode');
		expect(calls[1].body.text).toBe(['Your plan', '', 'Plan | Price', '-----+------', 'Pro  | 12 €', '', 'Reply yes & we switch you <now>.'].join('\n'));
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({ text: calls[1].body.text, sentAsPlainText: true });
	});

	test('any other refusal is not answered by a plain resend: the error stays the service\'s', async () => {
		ctx.emu.injectFault({ kind: 'status', status: 400, method: 'sendMessage', description: 'Bad Request: chat not found' });
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: answer, additionalFields: { parseMode: 'markdownFromAi' } });
		expect(result.error?.message).toContain('chat not found');
		expect(ctx.emu.callsTo('sendMessage')).toHaveLength(1);
	});

	test('an answer cut off inside a code block (40,000 characters of code, the fence never closed) goes out with Split Long Text as several code blocks the service all accepts, together the whole code', async () => {
		const lines: string[] = [];
		for (let index = 0; lines.join('\n').length < 40_000; index++) lines.push(`const value${index} = a < b && c > d ? "yes" : 'no'; // #${index}`);
		const code = lines.join('\n').slice(0, 40_000);
		const result = await run(ctx, {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: `Here:\n\`\`\`js\n${code}`,
			additionalFields: { parseMode: 'markdownFromAi' },
			options: { splitLongText: true },
		});
		expect(result.error).toBeUndefined();
		const calls = ctx.emu.callsTo('sendMessage');
		expect(calls.length).toBeGreaterThan(2);
		expect(calls.every((call) => call.status === 200 && call.body.parse_mode === 'HTML' && String(call.body.text).length <= LIMITS.messageText.max)).toBe(true);
		const [first, ...blocks] = calls.map((call) => String(call.body.text));
		expect(first).toBe('Here:');
		for (const block of blocks) {
			expect(block.startsWith('<pre><code class="language-js">')).toBe(true);
			expect(block.endsWith('</code></pre>')).toBe(true);
		}
		// Each cut is at a line break, which is dropped like every separator at a cut.
		expect(blocks.map(shown).join('\n')).toBe(code);
		expect(ctx.emu.history(ctx.d.privateChatId)).toHaveLength(calls.length);
	});

	test('a link whose label is code is sent as a link, and the service accepts it', async () => {
		await runOk(ctx, {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: 'Run [`npm test`](https://e.org/ci).',
			additionalFields: { parseMode: 'markdownFromAi' },
		});
		const [call] = ctx.emu.callsTo('sendMessage');
		expect(call.status).toBe(200);
		expect(call.body).toMatchObject({ parse_mode: 'HTML', text: 'Run <a href="https://e.org/ci">npm test</a>.' });
	});

	test('with Split Long Text a long answer goes out in parts the service all accepts, none cut inside formatting', async () => {
		const max = LIMITS.messageText.max;
		const long = Array.from({ length: 900 }, (_, index) => `- item **${index}** with \`code ${index}\` and a [link](https://example.com/${index})`).join('\n');
		const result = await run(ctx, {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: long,
			additionalFields: { parseMode: 'markdownFromAi' },
			options: { splitLongText: true },
		});
		expect(result.error).toBeUndefined();
		const calls = ctx.emu.callsTo('sendMessage');
		expect(calls.length).toBeGreaterThan(1);
		expect(calls.every((call) => call.status === 200 && call.body.parse_mode === 'HTML' && String(call.body.text).length <= max)).toBe(true);
	});
});
