/**
 * Keyboards end to end through the node: each way of defining a keyboard gives the exact markup the
 * emulator stores, and a broken limit fails before anything is sent, naming the item and the path.
 * (The keyboard module's own unit tests cover every limit in detail: parameters/keyboard/read.test.ts.)
 */
import type { INodeParameters } from 'n8n-workflow';

import { byId, run, runOk, seedMessage } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

const send = (keyboard: INodeParameters): INodeParameters => ({
	resource: 'message',
	operation: 'sendMessage',
	chatId: byId(ctx.d.privateChatId),
	text: 'Choose',
	...keyboard,
});

const button = (text: string, action: string, value: string) => ({
	text,
	buttonType: action,
	...(action === 'callbackData' ? { callbackData: value } : action === 'url' ? { url: value } : { switchInlineQuery: value }),
});

describe('keyboard modes through the node', () => {
	it('inline keyboard from the field builder', async () => {
		await runOk(
			ctx,
			send({
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'builder',
				inlineKeyboard: {
					rows: [
						{ buttons: { button: [button('Yes', 'callbackData', 'yes'), button('Site', 'url', 'https://example.com')] } },
						{ buttons: { button: [button('Share', 'switchInlineQuery', 'hello')] } },
					],
				},
			}),
		);
		const expected = {
			inline_keyboard: [
				[
					{ text: 'Yes', callback_data: 'yes' },
					{ text: 'Site', url: 'https://example.com' },
				],
				[{ text: 'Share', switch_inline_query: 'hello' }],
			],
		};
		expect(ctx.emu.callsTo('sendMessage')[0].body.reply_markup).toEqual(expected);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toEqual(expected);
	});

	it('reply keyboard from the field builder, with resize and one-time', async () => {
		await runOk(
			ctx,
			send({
				replyMarkup: 'replyKeyboard',
				keyboardMode: 'builder',
				replyKeyboard: { rows: [{ buttons: { button: [{ text: 'A' }, { text: 'B' }] } }, { buttons: { button: [{ text: 'C' }] } }] },
				replyKeyboardOptions: { resizeKeyboard: true, oneTimeKeyboard: true },
			}),
		);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toEqual({
			keyboard: [[{ text: 'A' }, { text: 'B' }], [{ text: 'C' }]],
			resize_keyboard: true,
			one_time_keyboard: true,
		});
	});

	it('JSON: the rows, or the whole markup from an expression', async () => {
		await runOk(
			ctx,
			send({ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: '[[{"text": "Go", "callback_data": "go"}]]' }),
		);
		await runOk(
			ctx,
			send({ replyMarkup: 'replyKeyboard', keyboardMode: 'json', keyboardJson: '={{ { keyboard: [["Yes", "No"]] } }}' }),
		);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.reply_markup)).toEqual([
			{ inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] },
			{ keyboard: [[{ text: 'Yes' }, { text: 'No' }]] },
		]);
	});

	it('auto grid from a list of labels', async () => {
		await runOk(
			ctx,
			send({
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'autoGrid',
				gridLabels: '={{ $json.sizes }}',
				gridColumns: 2,
			}),
			{ items: [{ sizes: ['S', 'M', 'L'] }] },
		);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toEqual({
			inline_keyboard: [
				[
					{ text: 'S', callback_data: 'S' },
					{ text: 'M', callback_data: 'M' },
				],
				[{ text: 'L', callback_data: 'L' }],
			],
		});
	});

	it('force reply and keyboard removal', async () => {
		await runOk(ctx, send({ replyMarkup: 'forceReply' }));
		await runOk(ctx, send({ replyMarkup: 'removeKeyboard' }));
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.reply_markup)).toEqual([
			{ force_reply: true },
			{ remove_keyboard: true },
		]);
	});

	it('edit operations take an inline keyboard', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { text: 'old' });
		await runOk(ctx, {
			resource: 'message',
			operation: 'editMessageText',
			chatId: byId(ctx.d.privateChatId),
			messageId: '1',
			text: 'new',
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'autoGrid',
			gridLabels: 'One, Two',
			gridColumns: 1,
		});
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toEqual({
			inline_keyboard: [[{ text: 'One', callback_data: 'One' }], [{ text: 'Two', callback_data: 'Two' }]],
		});
	});
});

describe('keyboard limits through the node: error names item and path, nothing is sent', () => {
	const items = [{ n: 1 }, { n: 2 }, { n: 3 }];

	it('callback_data over 64 bytes in the builder', async () => {
		const result = await run(
			ctx,
			send({
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'builder',
				inlineKeyboard: {
					rows: [
						{ buttons: { button: [button('ok', 'callbackData', 'ok')] } },
						{ buttons: { button: [button('ok', 'callbackData', 'ok'), button('long', 'callbackData', '={{ "x".repeat(60 + $json.n * 5) }}')] } },
					],
				},
			}),
			{ items },
		);
		// Item 1 has 65 bytes already: the first bad item fails the run before any request.
		expect(result.error?.message).toMatch(/^.*row 2, button 2: callback_data is 65 bytes, the limit is 64.*\[item 0\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('callback data that an expression made an object is refused, naming row, button and field, not sent as "[object Object]"', async () => {
		const result = await run(
			ctx,
			send({
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'builder',
				inlineKeyboard: {
					rows: [{ buttons: { button: [button('ok', 'callbackData', 'ok'), button('order', 'callbackData', '={{ { id: $json.n } }}')] } }],
				},
			}),
			{ items },
		);
		expect(result.error?.message).toBe('Reply Markup → row 1, button 2: Callback Data: expected text, got {"id":1} [item 0]');
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('more than 8 buttons in a row from the auto grid', async () => {
		const result = await run(
			ctx,
			send({ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: '={{ $json.n === 2 ? [Array.from({length: 9}, (_, i) => ({text: String(i), callback_data: String(i)}))] : [[{"text": "a", "callback_data": "a"}]] }}' }),
			{ items },
		);
		expect(result.error?.message).toMatch(/^.*row 1.*9 buttons.*8.*\[item 1\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('more than 100 rows', async () => {
		const result = await run(
			ctx,
			send({ replyMarkup: 'inlineKeyboard', keyboardMode: 'autoGrid', gridLabels: '={{ Array.from({length: 101}, (_, i) => "b" + i) }}', gridColumns: 1 }),
		);
		expect(result.error?.message).toMatch(/^.*101 rows.*100.*\[item 0\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('button text over 128 characters', async () => {
		const result = await run(
			ctx,
			send({ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: `[[{"text": "${'t'.repeat(129)}", "callback_data": "a"}]]` }),
		);
		expect(result.error?.message).toMatch(/^.*row 1, button 1: text is 129 characters, the limit is 128.*\[item 0\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('a reply keyboard where only an inline keyboard is allowed', async () => {
		const result = await run(ctx, {
			resource: 'message',
			operation: 'editMessageReplyMarkup',
			chatId: byId(ctx.d.privateChatId),
			messageId: '1',
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'json',
			keyboardJson: '{"keyboard": [["a"]]}',
		});
		expect(result.error?.message).toMatch(/^Reply Markup.*\[item 0\]$/);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('with Continue On Fail the broken item gets an error output and the others are sent', async () => {
		const result = await run(
			ctx,
			send({
				text: '={{ "item " + $json.n }}',
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'json',
				keyboardJson: '={{ [[{ text: "b", callback_data: $json.n === 2 ? "" : "ok" }]] }}',
			}),
			{ items, continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.output[1].json.error).toMatch(/^.*callback_data.*\[item 1\]$/);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual(['item 1', 'item 3']);
	});
});
