/**
 * Paths n8n users take every day that the first tests did not model: the
 * error output, strict input order at concurrency 1, splitting formatted text, Copy Message
 * keyboards, per-item "no keyboard", and the editor texts and messages that cost users data or time.
 * Expected values come from the spec and from n8n's own conventions, written here.
 */
import type { IDataObject, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { byId, jsonOf, pairingOf, run, runOk, seedMessage, sendFromItems, shownFor } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

/** Spec part 8: sendMessage text up to 32,768 characters. */
const MAX_TEXT = 32768;

const bodiesOf = (method: string): IDataObject[] => ctx.emu.callsTo(method).map((call) => call.body as IDataObject);

const optionOf = (property: INodeProperties | undefined, value: string): INodePropertyOptions | undefined =>
	(property?.options as INodePropertyOptions[] | undefined)?.find((option) => option.value === value);

describe('1. On Error: Continue (using error output)', () => {
	it('sent items go to the success output; input errors, service errors and a split failed part-way go to the error output as {error, message} (what to do, parts sent), paired', async () => {
		const long = 'y'.repeat(MAX_TEXT * 2 + 10);
		const items = [
			{ chat: ctx.d.privateChatId, text: 'good 1' },
			{ chat: ctx.d.foreignChatId, text: 'refused by the service' },
			{ chat: 'not a chat', text: 'bad input' },
			{ chat: ctx.d.groupChatId, text: long },
			{ chat: ctx.d.privateChatId, text: 'good 2' },
		];
		// The second part of the long text is refused; everything else reaches the service as it is.
		let parts = 0;
		ctx.emu.injectFault({
			kind: 'status',
			status: 400,
			description: 'Bad Request: boom',
			method: 'sendMessage',
			when: (call) => typeof call.body.text === 'string' && call.body.text.startsWith('y') && ++parts === 2,
		});
		const result = await run(ctx, sendFromItems({ options: { concurrency: 1, splitLongText: true } }), {
			items,
			onError: 'continueErrorOutput',
		});

		expect(result.error).toBeUndefined();
		expect(jsonOf(result.output).map((json) => (json.text as string).slice(0, 6))).toEqual(['good 1', 'yyyyyy', 'good 2']);
		expect(pairingOf(result.output)).toEqual([0, 3, 4]);
		expect(result.output.every((item) => item.json.error === undefined)).toBe(true);

		const errors = result.errorOutput;
		expect(pairingOf(errors)).toEqual([1, 2, 3]);
		expect(errors.map((item) => item.json.error)).toEqual([
			'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again',
			"Chat: 'not a chat' is not a chat UUID or @username [item 2]",
			'Bad Request: boom',
		]);
		// n8n routes an item to the error output by its json's keys: n8n 2.35.2 and later when they are
		// among error, message and details; n8n before it (all of 1.x) only when they are error, or
		// error and message. The node's keys (those the input item did not have) meet both rules.
		for (const item of errors) {
			expect(Object.keys(item.json).filter((key) => !(key in items[pairingOf([item])[0] as number]))).toEqual(['error', 'message']);
		}
		// What to do next, and for the split text that its first of three parts went out before the second was refused.
		expect(errors.map((item) => item.json.message)).toEqual([
			'The bot may not do this here, for example because it is not a member of the chat.',
			'Chat IDs are UUIDs such as 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11: after a Service Bot trigger, map {{ $json.chat_id }} (as an expression), or take the id that Get Chat returns. Public groups and channels can also be named by their username starting with @.',
			'The service refused sendMessage (HTTP 400). 1 of 3 parts were sent.',
		]);
		// n8n merges the input item into an error item: the user sees what failed.
		expect(errors[0].json).toMatchObject({ chat: ctx.d.foreignChatId, text: 'refused by the service' });
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual(['good 1', 'good 2']);
	});

	it('Continue (using regular output) keeps one paired item per input, errors included', async () => {
		const items = [
			{ chat: ctx.d.privateChatId, text: 'good' },
			{ chat: 'not a chat', text: 'bad input' },
		];
		const result = await run(ctx, sendFromItems(), { items, onError: 'continueRegularOutput' });
		expect(pairingOf(result.output)).toEqual([0, 1]);
		expect(result.output[1].json.error).toBe("Chat: 'not a chat' is not a chat UUID or @username [item 1]");
		expect(result.errorOutput).toEqual([]);
	});
});

describe('2. Concurrency 1 is input order', () => {
	it('items [chat A, chat A, chat B] reach the service as A, A, B even when the first answer is slow', async () => {
		ctx.emu.injectFault({ kind: 'delay', delayMs: 300, count: 1 });
		const items = [
			{ chat: ctx.d.privateChatId, text: 'A1' },
			{ chat: ctx.d.privateChatId, text: 'A2' },
			{ chat: ctx.d.groupChatId, text: 'B1' },
		];
		await runOk(ctx, sendFromItems({ options: { concurrency: 1 } }), { items });
		expect(bodiesOf('sendMessage').map((body) => body.text)).toEqual(['A1', 'A2', 'B1']);
	});

	it('without Continue On Fail the error names the first failed item and the items that were not sent', async () => {
		// Item 0 is held, so item 1 (same chat) waits behind it while item 2 fails at once.
		ctx.emu.injectFault({ kind: 'delay', delayMs: 400, count: 1 });
		const items = [
			{ chat: ctx.d.privateChatId, text: 'A1' },
			{ chat: ctx.d.privateChatId, text: 'A2' },
			{ chat: ctx.d.foreignChatId, text: 'refused' },
			{ chat: ctx.d.groupChatId, text: 'B1' },
		];
		const result = await run(ctx, sendFromItems({ options: { concurrency: 2 } }), { items });
		const sent = ctx.emu.history(ctx.d.privateChatId).map((message) => message.text as string);
		sent.push(...ctx.emu.history(ctx.d.groupChatId).map((message) => message.text as string));
		const notSent = items.map((item, index) => ({ ...item, index })).filter((item) => item.index !== 2 && !sent.includes(item.text));
		expect(notSent.length).toBeGreaterThan(0);
		expect(result.error?.message).toBe(
			`Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again [item 2]; not sent: item${notSent.length > 1 ? 's' : ''} ${notSent.map((item) => item.index).join(', ')}`,
		);
	});
});

describe('3. Split Long Text with a parse mode', () => {
	const sendLong = (parseMode: string): INodeParameters => ({
		resource: 'message',
		operation: 'sendMessage',
		chatId: byId(ctx.d.privateChatId),
		text: '={{ $json.text }}',
		additionalFields: { parseMode },
		options: { splitLongText: true },
	});

	// Formatting that runs across the place where a plain split would cut (the last space before the limit).
	const cases: Array<[string, string, string]> = [
		['HTML', '<b>', '</b>'],
		['Markdown', '*', '*'],
		['MarkdownV2', '*', '*'],
	];
	for (const [mode, open, close] of cases) {
		it(`${mode}: every part keeps its formatting whole, so the service accepts them all`, async () => {
			const head = 'a'.repeat(MAX_TEXT - 200);
			const text = `${head} ${open}${'b '.repeat(150)}b${close} tail`;
			const result = await run(ctx, sendLong(mode), { items: [{ text }] });
			expect(result.error).toBeUndefined();
			const calls = ctx.emu.callsTo('sendMessage');
			expect(calls.length).toBeGreaterThan(1);
			expect(calls.every((call) => call.status === 200)).toBe(true);
			const texts = ctx.emu.history(ctx.d.privateChatId).map((message) => message.text as string);
			expect(texts.join(' ').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
			expect(texts.every((part) => part.length <= MAX_TEXT)).toBe(true);
		});
	}

	it('HTML with a bare & ("R&D weekly report", 41,097 characters) is split and sent: the service reads a bare & as text', async () => {
		// No `;` anywhere: a reader that takes every `&` for the start of an entity finds no end.
		const text = `R&D weekly report\n${'<b>Done:</b> R&D item and notes\n'.repeat(1300)}`.slice(0, 41_097);
		const result = await run(ctx, sendLong('HTML'), { items: [{ text }] });
		expect(result.error).toBeUndefined();
		const calls = ctx.emu.callsTo('sendMessage');
		expect(calls.length).toBeGreaterThan(1);
		expect(calls.every((call) => call.status === 200)).toBe(true);
		const sent = calls.map((call) => String(call.body.text));
		expect(sent.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
	});

	it('formatting that cannot be cut (a link whose start tag is longer than one message) is refused before anything is sent, naming item and field', async () => {
		const text = `<a href="https://e.org/${'x'.repeat(MAX_TEXT)}">link</a>`;
		const result = await run(ctx, sendLong('HTML'), { items: [{ text: 'first' }, { text }] });
		expect(result.error?.message).toMatch(/^Text: .*\[item 1\]$/);
		expect(result.error?.message).toMatch(/Parse Mode/);
		expect(ctx.emu.calls).toHaveLength(0);
	});
});

describe('4. Copy Message takes every kind of reply markup', () => {
	const copy = (markup: INodeParameters): INodeParameters => ({
		resource: 'message',
		operation: 'copyMessage',
		chatId: byId(ctx.d.groupChatId),
		fromChatId: byId(ctx.d.privateChatId),
		messageId: '1',
		...markup,
	});

	it('reply keyboard, force reply and keyboard removal reach the service', async () => {
		await seedMessage(ctx, ctx.d.privateChatId);
		await runOk(ctx, copy({ replyMarkup: 'replyKeyboard', keyboardMode: 'json', keyboardJson: '[["Yes", "No"]]' }));
		await runOk(ctx, copy({ replyMarkup: 'forceReply' }));
		await runOk(ctx, copy({ replyMarkup: 'removeKeyboard' }));
		expect(bodiesOf('copyMessage').map((body) => body.reply_markup)).toEqual([
			{ keyboard: [[{ text: 'Yes' }, { text: 'No' }]] },
			{ force_reply: true },
			{ remove_keyboard: true },
		]);
		const shown = shownFor('message', 'copyMessage', {}, 1).find((property) => property.name === 'replyMarkup');
		expect((shown?.options as INodePropertyOptions[]).map((option) => option.value).sort()).toEqual(
			['forceReply', 'inlineKeyboard', 'none', 'removeKeyboard', 'replyKeyboard'].sort(),
		);
	});
});

describe('5. Per-item "no keyboard" in JSON mode', () => {
	it('null, empty text, [] and {} send no markup; a keyboard in the same run is sent', async () => {
		const keyboard = [[{ text: 'Yes', callback_data: 'yes' }]];
		const items = [null, '', [], {}, keyboard].map((kb, index) => ({ chat: ctx.d.privateChatId, text: `m${index}`, kb }));
		await runOk(
			ctx,
			sendFromItems({ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: '={{ $json.kb }}', options: { concurrency: 1 } }),
			{ items },
		);
		expect(bodiesOf('sendMessage').map((body) => body.reply_markup)).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
			{ inline_keyboard: keyboard },
		]);
	});
});

describe('6. Editor texts and defaults', () => {
	it('Edit Message Text / Caption say that None removes the keyboard; Edit Message Reply Markup calls it Remove Keyboard', () => {
		for (const operation of ['editMessageText', 'editMessageCaption']) {
			const none = optionOf(shownFor('message', operation, {}, 1).find((property) => property.name === 'replyMarkup'), 'none');
			expect(`${none?.name} ${none?.description ?? ''}`).toMatch(/remove/i);
		}
		const markup = shownFor('message', 'editMessageReplyMarkup', {}, 1).find((property) => property.name === 'replyMarkup');
		expect(optionOf(markup, 'none')?.name).toBe('Remove Keyboard');
	});

	it('Edit Message Caption (version 2): the caption is a main field, required, and removal is an explicit choice', async () => {
		const shown = shownFor('message', 'editMessageCaption', { captionAction: 'set' }, 2);
		const caption = shown.find((property) => property.name === 'caption');
		expect(caption?.required).toBe(true);
		const additional = shown.find((property) => property.name === 'additionalFields');
		expect(((additional?.options ?? []) as INodeProperties[]).some((option) => option.name === 'caption')).toBe(false);

		const sent = await seedMessage(ctx, ctx.d.groupChatId, { photo: ctx.d.media.photo, caption: 'keep me' });
		const edit = (parameters: INodeParameters) =>
			run(ctx, { resource: 'message', operation: 'editMessageCaption', chatId: byId(ctx.d.groupChatId), messageId: String(sent.message_id), ...parameters }, { typeVersion: 2 });
		// Left empty in the editor, n8n itself refuses to run the node; empty from an expression, the node refuses.
		await expect(edit({})).rejects.toThrow(/Parameter "Caption" is required/);
		const empty = await edit({ caption: '={{ "" }}' });
		expect(empty.error?.message).toBe('Caption: is required and may not be empty [item 0]');
		expect(ctx.emu.callsTo('editMessageCaption')).toHaveLength(0);
		await edit({ captionAction: 'remove' });
		expect(bodiesOf('editMessageCaption')).toEqual([{ chat_id: ctx.d.groupChatId, message_id: sent.message_id, caption: '' }]);
	});

	it('Set My Description / Short Description (version 2): a value is required, removal is an explicit choice', async () => {
		for (const [operation, field, wire] of [
			['setMyDescription', 'description', 'description'],
			['setMyShortDescription', 'shortDescription', 'short_description'],
		]) {
			const shown = shownFor('bot', operation, { [`${field}Action`]: 'set' }, 2).find((property) => property.name === field);
			expect(shown?.required).toBe(true);
			const empty = await run(ctx, { resource: 'bot', operation, [field]: '={{ "" }}' }, { typeVersion: 2 });
			expect(empty.error?.message).toMatch(/ is required and may not be empty \[item 0\]$/);
			expect(ctx.emu.callsTo(operation)).toHaveLength(0);
			const actionField = `${field}Action`;
			await runOk(ctx, { resource: 'bot', operation, [actionField]: 'remove' }, { typeVersion: 2 });
			expect(bodiesOf(operation)).toEqual([{ [wire]: '' }]);
		}
	});

	it('Version 1 keeps working as saved: the caption under Additional Fields, an empty description allowed', async () => {
		const sent = await seedMessage(ctx, ctx.d.groupChatId, { photo: ctx.d.media.photo, caption: 'old' });
		await runOk(
			ctx,
			{ resource: 'message', operation: 'editMessageCaption', chatId: byId(ctx.d.groupChatId), messageId: String(sent.message_id), additionalFields: { caption: 'new' } },
			{ typeVersion: 1 },
		);
		await runOk(ctx, { resource: 'bot', operation: 'setMyDescription', description: '' }, { typeVersion: 1 });
		expect(bodiesOf('editMessageCaption')[0].caption).toBe('new');
		expect(bodiesOf('setMyDescription')).toEqual([{ description: '' }]);
	});

	it('Forward and Copy name the destination as a destination', () => {
		for (const operation of ['forwardMessage', 'copyMessage']) {
			const chat = shownFor('message', operation, {}, 1).find((property) => property.name === 'chatId');
			expect(chat?.displayName).toMatch(/^To /);
		}
	});

	it('media ID fields say where an ID comes from', () => {
		for (const [operation, field] of [
			['sendPhoto', 'photo'],
			['sendVideo', 'video'],
			['sendDocument', 'document'],
			['sendVoice', 'voice'],
		]) {
			const media = shownFor('message', operation, {}, 1).find((property) => property.name === field);
			expect(media?.description).toMatch(/file_id/);
			expect(media?.description).toMatch(/update/i);
		}
	});

	it('Call Method suggests a method the spec has', () => {
		const specMethods = ['getChat', 'getChatMember', 'getChatMemberCount', 'getChatAdministrators', 'getWebhookInfo', 'getMyName', 'getMyCommands'];
		const method = shownFor('other', 'callMethod', {}, 1).find((property) => property.name === 'method');
		const suggested = /e\.g\. (\w+)/.exec(method?.placeholder ?? '')?.[1];
		expect(specMethods).toContain(suggested);
	});

	it('several keyboard problems are one readable line: numbered, separated, no line breaks', async () => {
		const keyboard = '[[{"text": "", "callback_data": "a"}], [{"text": "B", "url": "ftp://x"}], []]';
		const result = await run(ctx, sendFromItems({ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: keyboard }), {
			items: [{ chat: ctx.d.privateChatId, text: 'hi' }],
		});
		const message = result.error?.message ?? '';
		expect(message).not.toMatch(/\n/);
		expect(message).toMatch(/^Reply Markup has 3 problems \[item 0\]: \(1\) row 1, button 1: .+; \(2\) row 2, button 1: .+; \(3\) row 3: .+$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('Get Updates while a webhook is set says what to do in the node\'s words', async () => {
		await runOk(ctx, { resource: 'webhook', operation: 'setWebhook', url: 'https://example.com/hook' });
		const result = await run(ctx, { resource: 'update', operation: 'getUpdates' });
		expect(result.error?.message).toMatch(/webhook/);
		expect(result.error?.message).toMatch(/Delete Webhook/);
		expect(result.error?.message).toMatch(/Service Bot Trigger/);
	});

	it("input errors count items the way n8n does (from 0): '[item 1]' for the second item", async () => {
		const result = await run(ctx, sendFromItems(), {
			items: [
				{ chat: ctx.d.privateChatId, text: 'ok' },
				{ chat: 'abc', text: 'bad' },
			],
		});
		expect(result.error?.message).toBe("Chat: 'abc' is not a chat UUID or @username [item 1]");
	});
});
