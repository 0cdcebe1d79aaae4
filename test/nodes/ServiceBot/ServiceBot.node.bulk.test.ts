/**
 * Bulk sending through the node: per-chat order under concurrency, output order and pairing,
 * Continue On Fail with a mix of valid and invalid items, and Split Long Text at the limit.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { LIMITS } from '../../spec';
import { byId, jsonOf, pairingOf, run, runOk, sendFromItems } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

const MAX = LIMITS.messageText.max;

/** Ten chats the demo bot is a member of: the three demo chats and seven new groups. */
function tenChats(): string[] {
	const chats = [ctx.d.privateChatId, ctx.d.groupChatId, ctx.d.channelChatId];
	for (let index = 0; chats.length < 10; index++) {
		const { chatId } = ctx.emu.addChat({
			type: 'group',
			title: `Bulk ${index}`,
			members: [
				{ userId: ctx.d.botId, status: 'member' },
				{ userId: ctx.d.userId, status: 'member' },
			],
		});
		chats.push(chatId);
	}
	return chats;
}

describe('ordered bulk sending', () => {
	it('300 items over 10 chats, concurrency 8: per-chat order, output order and pairing equal input', async () => {
		const chats = tenChats();
		// A deterministic but irregular assignment of items to chats.
		const items = Array.from({ length: 300 }, (_, index) => ({
			chat: chats[(index * 7 + Math.floor(index / 13)) % 10],
			text: `message ${index}`,
		}));
		// Uneven answer times, so requests finish out of order: early ones slow, later ones fast.
		// The very first answer is held long enough that only parallel sending gets 8 calls in first.
		ctx.emu.injectFault({ kind: 'delay', delayMs: 3000, count: 1 });
		ctx.emu.injectFault({ kind: 'delay', delayMs: 40, count: 9 });
		ctx.emu.injectFault({ kind: 'delay', delayMs: 3, count: 50 });
		ctx.emu.injectFault({ kind: 'delay', delayMs: 15, count: 30 });

		const running = runOk(ctx, sendFromItems({ options: { concurrency: 8 } }), { items });
		// Parallelism without a clock: watch until 8 calls have arrived or the first one is answered.
		while (ctx.emu.calls.length < 8 && (ctx.emu.calls[0]?.status ?? 0) === 0) {
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		const firstAnsweredBeforeEighthArrived = ctx.emu.calls[0].status !== 0;
		const out = await running;

		for (const chat of chats) {
			const expected = items.filter((item) => item.chat === chat).map((item) => item.text);
			expect(ctx.emu.history(chat).map((message) => message.text)).toEqual(expected);
		}
		expect(out).toHaveLength(300);
		expect(jsonOf(out).map((message) => message.text)).toEqual(items.map((item) => item.text));
		expect(jsonOf(out).map((message) => (message.chat as IDataObject).id)).toEqual(items.map((item) => item.chat));
		expect(pairingOf(out)).toEqual(items.map((_, index) => index));
		// It really ran in parallel: 8 requests were out before the first was answered.
		expect(firstAnsweredBeforeEighthArrived).toBe(false);
	});

	it('spellings of one chat id that differ in case share one queue', async () => {
		const upper = ctx.d.groupChatId.toUpperCase();
		const items = Array.from({ length: 40 }, (_, index) => ({
			chat: index % 2 === 0 ? [ctx.d.groupChatId, upper][(index / 2) % 2] : ['@demo_group', '@Demo_Group'][((index - 1) / 2) % 2],
			text: `m${index}`,
		}));
		// The UUID and the @username of one chat cannot be known to be the same chat without asking the
		// service, so they are two queues: check each spelling family on its own.
		ctx.emu.injectFault({ kind: 'delay', delayMs: 30, count: 3 });
		await runOk(ctx, sendFromItems({ options: { concurrency: 8 } }), { items });
		const texts = ctx.emu.history(ctx.d.groupChatId).map((message) => message.text);
		const byUuid = items.filter((item) => !item.chat.startsWith('@')).map((item) => item.text);
		const byName = items.filter((item) => item.chat.startsWith('@')).map((item) => item.text);
		expect(texts.filter((text) => byUuid.includes(text as string))).toEqual(byUuid);
		expect(texts.filter((text) => byName.includes(text as string))).toEqual(byName);
	});

	it('concurrency 1 sends strictly in input order', async () => {
		const chats = tenChats();
		const items = Array.from({ length: 30 }, (_, index) => ({ chat: chats[index % 10], text: `s${index}` }));
		await runOk(ctx, sendFromItems({ options: { concurrency: 1 } }), { items });
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.text)).toEqual(items.map((item) => item.text));
	});

	it('bot-level operations run one after another in input order', async () => {
		ctx.emu.injectFault({ kind: 'delay', delayMs: 30, count: 1 });
		const out = await runOk(
			ctx,
			{ resource: 'bot', operation: 'setMyName', name: '={{ $json.name }}' },
			{ items: [{ name: 'First' }, { name: 'Second' }, { name: 'Third' }] },
		);
		expect(ctx.emu.callsTo('setMyName').map((call) => call.body.name)).toEqual(['First', 'Second', 'Third']);
		expect(pairingOf(out)).toEqual([0, 1, 2]);
		expect(jsonOf(await runOk(ctx, { resource: 'bot', operation: 'getMyName' }))).toEqual([{ name: 'Third' }]);
	});
});

describe('errors in bulk', () => {
	const mixed = (): IDataObject[] => [
		{ chat: ctx.d.privateChatId, text: 'valid 1' },
		{ chat: 'abc', text: 'bad chat' },
		{ chat: ctx.d.groupChatId, text: 'valid 2' },
		{ chat: ctx.d.foreignChatId, text: 'refused by the service' },
		{ chat: ctx.d.privateChatId, text: '' },
		{ chat: ctx.d.privateChatId, text: 'valid 3' },
	];

	it('Continue On Fail: every item has an output at its position, paired; bad input is never sent', async () => {
		const result = await run(ctx, sendFromItems({ options: { concurrency: 4 } }), { items: mixed(), continueOnFail: true });
		expect(result.error).toBeUndefined();
		const out = result.output;
		expect(pairingOf(out)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(out.map((item) => (item.json.error ? 'error' : item.json.text))).toEqual([
			'valid 1',
			'error',
			'valid 2',
			'error',
			'error',
			'valid 3',
		]);
		expect(out[1].json.error).toBe("Chat: 'abc' is not a chat UUID or @username [item 1]");
		expect(out[3].json.error).toBe('Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again');
		expect(out[4].json.error).toBe("Text: is empty: {{ $json.text }} gave ''; the item's text is empty [item 4]");
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.text).sort()).toEqual(
			['valid 1', 'valid 2', 'refused by the service', 'valid 3'].sort(),
		);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual(['valid 1', 'valid 3']);
	});

	it('without Continue On Fail, bad input fails the node before any request', async () => {
		const result = await run(ctx, sendFromItems(), { items: mixed() });
		expect(result.error?.message).toBe("Chat: 'abc' is not a chat UUID or @username [item 1]");
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('without Continue On Fail, a service error stops the run and names its item', async () => {
		const items = [
			{ chat: ctx.d.privateChatId, text: 'one' },
			{ chat: ctx.d.foreignChatId, text: 'two' },
			{ chat: ctx.d.privateChatId, text: 'three' },
		];
		const result = await run(ctx, sendFromItems({ options: { concurrency: 1 } }), { items });
		expect(result.error?.message).toBe('Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again [item 1]; not sent: item 2');
		expect((result.error as unknown as { context: IDataObject }).context.itemIndex).toBe(1);
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.text)).toEqual(['one', 'two']);
	});
});

describe('Split Long Text', () => {
	const sendLong = (text: string, extra: INodeParameters = {}): INodeParameters => ({
		resource: 'message',
		operation: 'sendMessage',
		chatId: byId(ctx.d.privateChatId),
		text: '={{ $json.text }}',
		options: { splitLongText: true },
		...extra,
	});

	it(`${MAX} characters: one message`, async () => {
		const text = 'x'.repeat(MAX);
		const out = await runOk(ctx, sendLong(text), { items: [{ text }] });
		expect(out).toHaveLength(1);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual([text]);
	});

	it(`${MAX + 1} characters: two messages in order, both paired with their item`, async () => {
		const text = 'x'.repeat(MAX + 1);
		const out = await runOk(ctx, sendLong(text), { items: [{ text: 'short' }, { text }, { text: 'after' }] });
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual([
			'short',
			'x'.repeat(MAX),
			'x',
			'after',
		]);
		expect(jsonOf(out).map((message) => (message.text as string).length)).toEqual([5, MAX, 1, 5]);
		expect(pairingOf(out)).toEqual([0, 1, 1, 2]);
	});

	it('a surrogate pair at the cut is kept whole', async () => {
		const text = `${'a'.repeat(MAX - 1)}😀b`;
		expect(text.length).toBe(MAX + 2);
		await runOk(ctx, sendLong(text), { items: [{ text }] });
		const parts = ctx.emu.history(ctx.d.privateChatId).map((message) => message.text as string);
		expect(parts).toEqual(['a'.repeat(MAX - 1), '😀b']);
		expect(parts.join('')).toBe(text);
	});

	it('splits at a paragraph break; reply goes on the first part, keyboard on the last', async () => {
		const first = 'p'.repeat(20000);
		const second = 'q'.repeat(20000);
		const text = `${first}\n\n${second}`;
		await runOk(
			ctx,
			sendLong(text, {
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'json',
				keyboardJson: '[[{"text": "OK", "callback_data": "ok"}]]',
				additionalFields: { disableNotification: true },
			}),
			{ items: [{ text }] },
		);
		const bodies = ctx.emu.callsTo('sendMessage').map((call) => call.body);
		expect(bodies.map((body) => body.text)).toEqual([first, second]);
		expect(bodies.map((body) => body.reply_markup === undefined)).toEqual([true, false]);
		expect(bodies.map((body) => body.disable_notification)).toEqual([true, true]);
	});

	it('without the option a text over the limit fails naming item and field, nothing sent', async () => {
		const text = 'x'.repeat(MAX + 1);
		const result = await run(ctx, sendLong(text, { options: {} }), { items: [{ text }] });
		expect(result.error?.message).toBe(`Text: is ${MAX + 1} characters, the limit is ${MAX} [item 0]`);
		expect(result.error?.description).toMatch(/Split Long Text/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('entities cannot be combined with a split', async () => {
		const text = 'x'.repeat(MAX + 1);
		const result = await run(
			ctx,
			sendLong(text, { additionalFields: { entities: '[{"type": "bold", "offset": 0, "length": 1}]' } }),
			{ items: [{ text }] },
		);
		expect(result.error?.message).toMatch(/^Entities: can't be combined with Split Long Text.*\[item 0\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('a part failing after others were sent: the sent parts are output, then the error (Continue On Fail)', async () => {
		const text = 'y'.repeat(MAX * 2 + 10);
		// Let the first part through, fail the second.
		ctx.emu.injectFault({ kind: 'delay', delayMs: 0, count: 1, method: 'sendMessage' });
		ctx.emu.injectFault({ kind: 'status', status: 400, description: 'Bad Request: boom', method: 'sendMessage' });
		const result = await run(ctx, sendLong(text), { items: [{ text }], continueOnFail: true });
		expect(jsonOf(result.output).map((json) => json.error ?? (json.text as string).length)).toEqual([MAX, 'Bad Request: boom']);
		expect(result.output[1].json).toMatchObject({ sentParts: 1, totalParts: 3 });
		expect(pairingOf(result.output)).toEqual([0, 0]);
	});
});
