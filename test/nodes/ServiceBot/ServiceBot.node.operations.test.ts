/**
 * Every operation, executed through n8n-core's WorkflowExecute against the emulator: what the
 * emulator received and stored, and what the node output.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { byId, byUsername, jsonOf, pairingOf, run, runOk, seedMessage } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

const bodiesOf = (method: string): IDataObject[] => ctx.emu.callsTo(method).map((call) => call.body as IDataObject);

const inlineYesNo = {
	replyMarkup: 'inlineKeyboard',
	keyboardMode: 'json',
	keyboardJson: '[[{"text": "Yes", "callback_data": "yes"}, {"text": "No", "callback_data": "no"}]]',
};
const yesNoMarkup = {
	inline_keyboard: [
		[
			{ text: 'Yes', callback_data: 'yes' },
			{ text: 'No', callback_data: 'no' },
		],
	],
};

describe('message resource', () => {
	it('sendMessage: sends exactly the given fields, no parse mode forced, outputs the Message', async () => {
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: 'Hello *world*',
		});
		expect(bodiesOf('sendMessage')).toEqual([{ chat_id: ctx.d.privateChatId, text: 'Hello *world*' }]);
		expect(out).toHaveLength(1);
		expect(out[0].json).toMatchObject({ message_id: 1, text: 'Hello *world*', chat: { id: ctx.d.privateChatId } });
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(ctx.emu.history(ctx.d.privateChatId)).toMatchObject([{ text: 'Hello *world*', sent_by_bot: true }]);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].parse_mode).toBeUndefined();
	});

	it('sendMessage: additional fields, Username mode and expressions per item', async () => {
		await seedMessage(ctx, ctx.d.groupChatId);
		const out = await runOk(
			ctx,
			{
				resource: 'message',
				operation: 'sendMessage',
				chatId: byUsername('demo_group'),
				text: '={{ $json.text }}',
				additionalFields: {
					parseMode: 'HTML',
					disableNotification: true,
					replyToMessageId: '={{ $json.replyTo }}',
					entities: '[]',
				},
			},
			{ items: [{ text: '<b>one</b>', replyTo: 1 }, { text: 'two', replyTo: '1' }] },
		);
		expect(bodiesOf('sendMessage').slice(1)).toEqual([
			{ chat_id: '@demo_group', text: '<b>one</b>', parse_mode: 'HTML', disable_notification: true, reply_to_message_id: 1 },
			{ chat_id: '@demo_group', text: 'two', parse_mode: 'HTML', disable_notification: true, reply_to_message_id: 1 },
		]);
		expect(jsonOf(out).map((message) => message.text)).toEqual(['<b>one</b>', 'two']);
		expect(pairingOf(out)).toEqual([0, 1]);
		expect(ctx.emu.history(ctx.d.groupChatId).slice(1)).toMatchObject([
			{ text: '<b>one</b>', parse_mode: 'HTML', disable_notification: true, reply_to_message_id: 1 },
			{ text: 'two', parse_mode: 'HTML' },
		]);
	});

	it('sendMessage: entities JSON is sent as an array', async () => {
		await runOk(ctx, {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: 'bold',
			additionalFields: { entities: '[{"type": "bold", "offset": 0, "length": 4}]' },
		});
		expect(bodiesOf('sendMessage')[0].entities).toEqual([{ type: 'bold', offset: 0, length: 4 }]);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].entities).toEqual([{ type: 'bold', offset: 0, length: 4 }]);
	});

	it.each([
		['sendPhoto', 'photo'],
		['sendVideo', 'video'],
		['sendDocument', 'document'],
		['sendVoice', 'voice'],
	] as const)('%s: sends the media UUID in "%s" with caption, parse mode and keyboard', async (operation, field) => {
		const mediaId = ctx.d.media[field];
		const out = await runOk(ctx, {
			resource: 'message',
			operation,
			chatId: byId(ctx.d.groupChatId),
			[field]: mediaId,
			additionalFields: { caption: `A ${field}`, parseMode: 'Markdown' },
			...inlineYesNo,
		});
		expect(bodiesOf(operation)).toEqual([
			{ chat_id: ctx.d.groupChatId, [field]: mediaId, caption: `A ${field}`, parse_mode: 'Markdown', reply_markup: yesNoMarkup },
		]);
		expect(out[0].json).toMatchObject({ caption: `A ${field}`, [field]: { file_id: mediaId } });
		expect(ctx.emu.history(ctx.d.groupChatId)).toMatchObject([
			{ caption: `A ${field}`, [field]: { file_id: mediaId }, reply_markup: yesNoMarkup },
		]);
	});

	it('forwardMessage: forwards with from_chat_id and message_id', async () => {
		const seeded = await seedMessage(ctx, ctx.d.groupChatId, { text: 'forward me' });
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'forwardMessage',
			chatId: byId(ctx.d.privateChatId),
			fromChatId: byId(ctx.d.groupChatId),
			messageId: String(seeded.message_id),
			additionalFields: { disableNotification: true },
		});
		expect(bodiesOf('forwardMessage')).toEqual([
			{ chat_id: ctx.d.privateChatId, from_chat_id: ctx.d.groupChatId, message_id: 1, disable_notification: true },
		]);
		expect(out[0].json).toMatchObject({ text: 'forward me', chat: { id: ctx.d.privateChatId }, forward_date: expect.any(Number) });
		expect(ctx.emu.history(ctx.d.privateChatId)).toMatchObject([{ text: 'forward me' }]);
	});

	it('copyMessage: new caption and inline keyboard; outputs {message_id, chat_id}', async () => {
		await seedMessage(ctx, ctx.d.groupChatId, { photo: ctx.d.media.photo, caption: 'old' });
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'copyMessage',
			chatId: byId(ctx.d.privateChatId),
			fromChatId: byUsername('@demo_group'),
			messageId: '1',
			additionalFields: { caption: 'new caption' },
			...inlineYesNo,
		});
		expect(bodiesOf('copyMessage')).toEqual([
			{
				chat_id: ctx.d.privateChatId,
				from_chat_id: '@demo_group',
				message_id: 1,
				caption: 'new caption',
				reply_markup: yesNoMarkup,
			},
		]);
		expect(jsonOf(out)).toEqual([{ message_id: 1, chat_id: ctx.d.privateChatId }]);
		expect(ctx.emu.history(ctx.d.privateChatId)).toMatchObject([
			{ caption: 'new caption', photo: { file_id: ctx.d.media.photo }, reply_markup: yesNoMarkup },
		]);
	});

	it('editMessageText: replaces the text, outputs the edited Message', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { text: 'before' });
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'editMessageText',
			chatId: byId(ctx.d.privateChatId),
			messageId: '1',
			text: 'after',
			additionalFields: { parseMode: 'MarkdownV2' },
			...inlineYesNo,
		});
		expect(bodiesOf('editMessageText')).toEqual([
			{ chat_id: ctx.d.privateChatId, message_id: 1, text: 'after', parse_mode: 'MarkdownV2', reply_markup: yesNoMarkup },
		]);
		expect(out[0].json).toMatchObject({ message_id: 1, text: 'after', edit_date: expect.any(Number) });
		expect(ctx.emu.history(ctx.d.privateChatId)).toMatchObject([{ text: 'after', reply_markup: yesNoMarkup }]);
	});

	it('editMessageCaption: replaces the caption (version 1: the caption under Additional Fields)', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { photo: ctx.d.media.photo, caption: 'before' });
		const out = await runOk(
			ctx,
			{
				resource: 'message',
				operation: 'editMessageCaption',
				chatId: byId(ctx.d.privateChatId),
				messageId: '1',
				additionalFields: { caption: 'after' },
			},
			{ typeVersion: 1 },
		);
		expect(bodiesOf('editMessageCaption')).toEqual([{ chat_id: ctx.d.privateChatId, message_id: 1, caption: 'after' }]);
		expect(out[0].json).toMatchObject({ caption: 'after' });
		expect(ctx.emu.history(ctx.d.privateChatId)[0].caption).toBe('after');
	});

	it('editMessageReplyMarkup: sets and then removes the inline keyboard', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { text: 'pick' });
		const params = { resource: 'message', operation: 'editMessageReplyMarkup', chatId: byId(ctx.d.privateChatId), messageId: '1' };
		const out = await runOk(ctx, { ...params, ...inlineYesNo });
		expect(out[0].json).toMatchObject({ reply_markup: yesNoMarkup });
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toEqual(yesNoMarkup);
		await runOk(ctx, { ...params, replyMarkup: 'none' });
		expect(bodiesOf('editMessageReplyMarkup')).toEqual([
			{ chat_id: ctx.d.privateChatId, message_id: 1, reply_markup: yesNoMarkup },
			{ chat_id: ctx.d.privateChatId, message_id: 1 },
		]);
		expect(ctx.emu.history(ctx.d.privateChatId)[0].reply_markup).toBeUndefined();
	});

	it('deleteMessage: outputs {deleted: true}', async () => {
		await seedMessage(ctx, ctx.d.privateChatId);
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'deleteMessage',
			chatId: byId(ctx.d.privateChatId),
			messageId: '1',
		});
		expect(bodiesOf('deleteMessage')).toEqual([{ chat_id: ctx.d.privateChatId, message_id: 1 }]);
		expect(jsonOf(out)).toEqual([{ deleted: true }]);
		expect(ctx.emu.history(ctx.d.privateChatId)).toEqual([]);
	});

	it('sendChatAction: sends the chosen action, outputs {sent: true}', async () => {
		const out = await runOk(ctx, {
			resource: 'message',
			operation: 'sendChatAction',
			chatId: byId(ctx.d.groupChatId),
			action: 'upload_photo',
		});
		expect(bodiesOf('sendChatAction')).toEqual([{ chat_id: ctx.d.groupChatId, action: 'upload_photo' }]);
		expect(jsonOf(out)).toEqual([{ sent: true }]);
		expect(ctx.emu.chatActions()).toMatchObject([{ chatId: ctx.d.groupChatId, action: 'upload_photo' }]);
	});
});

describe('chat resource', () => {
	it('getChat: outputs the Chat', async () => {
		const out = await runOk(ctx, { resource: 'chat', operation: 'getChat', chatId: byUsername('@demo_group') });
		expect(bodiesOf('getChat')).toEqual([{ chat_id: '@demo_group' }]);
		expect(jsonOf(out)).toEqual([
			expect.objectContaining({ id: ctx.d.groupChatId, type: 'group', title: 'Demo Group', members_count: 3 }),
		]);
	});

	it('getChatMember: outputs the ChatMember', async () => {
		const out = await runOk(ctx, {
			resource: 'chat',
			operation: 'getChatMember',
			chatId: byId(ctx.d.groupChatId),
			userId: ctx.d.userId,
		});
		expect(bodiesOf('getChatMember')).toEqual([{ chat_id: ctx.d.groupChatId, user_id: ctx.d.userId }]);
		expect(out[0].json).toMatchObject({ status: 'member', user: { id: ctx.d.userId } });
	});

	it('getChatAdministrators: one item per administrator, or one item with the list', async () => {
		const params = { resource: 'chat', operation: 'getChatAdministrators', chatId: byId(ctx.d.groupChatId) };
		const out = await runOk(ctx, params);
		expect(bodiesOf('getChatAdministrators')).toEqual([{ chat_id: ctx.d.groupChatId }]);
		expect(jsonOf(out).map((member) => member.status)).toEqual(['creator', 'administrator']);
		expect(pairingOf(out)).toEqual([0, 0]);
		const whole = await runOk(ctx, { ...params, options: { splitIntoItems: false } });
		expect(whole).toHaveLength(1);
		expect((whole[0].json.administrators as IDataObject[]).map((member) => member.status)).toEqual([
			'creator',
			'administrator',
		]);
	});

	it('getChatMemberCount: outputs {count}', async () => {
		const out = await runOk(ctx, { resource: 'chat', operation: 'getChatMemberCount', chatId: byId(ctx.d.groupChatId) });
		expect(bodiesOf('getChatMemberCount')).toEqual([{ chat_id: ctx.d.groupChatId }]);
		expect(jsonOf(out)).toEqual([{ count: 3 }]);
	});

	it('pinChatMessage / unpinChatMessage / unpinAllChatMessages', async () => {
		await seedMessage(ctx, ctx.d.groupChatId, { text: 'one' });
		await seedMessage(ctx, ctx.d.groupChatId, { text: 'two' });
		const chatId = byId(ctx.d.groupChatId);
		const pinned = await runOk(ctx, {
			resource: 'chat',
			operation: 'pinChatMessage',
			chatId,
			messageId: '={{ $json.id }}',
			additionalFields: { disableNotification: true },
		}, { items: [{ id: 1 }, { id: 2 }] });
		expect(bodiesOf('pinChatMessage')).toEqual([
			{ chat_id: ctx.d.groupChatId, message_id: 1, disable_notification: true },
			{ chat_id: ctx.d.groupChatId, message_id: 2, disable_notification: true },
		]);
		expect(jsonOf(pinned)).toEqual([{ pinned: true }, { pinned: true }]);
		expect(ctx.emu.history(ctx.d.groupChatId).map((message) => message.pinned)).toEqual([true, true]);

		const unpinned = await runOk(ctx, { resource: 'chat', operation: 'unpinChatMessage', chatId, messageId: '2' });
		expect(bodiesOf('unpinChatMessage')).toEqual([{ chat_id: ctx.d.groupChatId, message_id: 2 }]);
		expect(jsonOf(unpinned)).toEqual([{ unpinned: true }]);
		expect(ctx.emu.history(ctx.d.groupChatId).map((message) => message.pinned)).toEqual([true, false]);

		const all = await runOk(ctx, { resource: 'chat', operation: 'unpinAllChatMessages', chatId });
		expect(bodiesOf('unpinAllChatMessages')).toEqual([{ chat_id: ctx.d.groupChatId }]);
		expect(jsonOf(all)).toEqual([{ unpinned: true }]);
		expect(ctx.emu.history(ctx.d.groupChatId).map((message) => message.pinned)).toEqual([false, false]);
	});
});

describe('callback resource', () => {
	it('answerCallbackQuery: answers the click with text, alert, url and cache time', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { text: 'pick', reply_markup: yesNoMarkup });
		const update = await ctx.emu.userClicks({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, messageId: 1, data: 'yes' });
		const id = update.callback_query?.id as string;
		const out = await runOk(ctx, {
			resource: 'callback',
			operation: 'answerCallbackQuery',
			callbackQueryId: id,
			additionalFields: { text: 'Thanks!', showAlert: true, url: 'https://example.com/game', cacheTime: 5 },
		});
		expect(bodiesOf('answerCallbackQuery')).toEqual([
			{ callback_query_id: id, text: 'Thanks!', show_alert: true, url: 'https://example.com/game', cache_time: 5 },
		]);
		expect(jsonOf(out)).toEqual([{ answered: true }]);
		expect(ctx.emu.callbackAnswers()).toMatchObject([{ callback_query_id: id, text: 'Thanks!', show_alert: true, cache_time: 5 }]);
	});

	it("answerCallbackQuery right after the trigger: its output has the clicked message's chat_id and message_id, so an edit reads $json without naming the trigger", async () => {
		await seedMessage(ctx, ctx.d.groupChatId, { text: 'pick', reply_markup: yesNoMarkup });
		const click = await ctx.emu.userClicks({ chatId: ctx.d.groupChatId, userId: ctx.d.userId, messageId: 1, data: 'yes' });
		const answered = await runOk(
			ctx,
			{ resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId: '={{ $json.callback_query.id }}', additionalFields: {} },
			{ items: [click as unknown as IDataObject] },
		);
		expect(jsonOf(answered)).toEqual([{ answered: true, chat_id: ctx.d.groupChatId, message_id: 1 }]);

		await runOk(
			ctx,
			{ resource: 'message', operation: 'editMessageText', chatId: byId('={{ $json.chat_id }}'), messageId: '={{ $json.message_id }}', text: 'You chose yes' },
			{ items: jsonOf(answered) },
		);
		expect(ctx.emu.history(ctx.d.groupChatId)).toMatchObject([{ message_id: 1, text: 'You chose yes' }]);
	});
});

describe('bot resource', () => {
	it('setMyName / getMyName, default and per language', async () => {
		expect(jsonOf(await runOk(ctx, { resource: 'bot', operation: 'setMyName', name: 'Helper' }))).toEqual([{ updated: true }]);
		await runOk(ctx, { resource: 'bot', operation: 'setMyName', name: 'Helfer', additionalFields: { languageCode: 'de' } });
		expect(bodiesOf('setMyName')).toEqual([{ name: 'Helper' }, { name: 'Helfer', language_code: 'de' }]);
		expect(jsonOf(await runOk(ctx, { resource: 'bot', operation: 'getMyName' }))).toEqual([{ name: 'Helper' }]);
		expect(
			jsonOf(await runOk(ctx, { resource: 'bot', operation: 'getMyName', additionalFields: { languageCode: 'de' } })),
		).toEqual([{ name: 'Helfer' }]);
		expect(bodiesOf('getMyName')).toEqual([{}, { language_code: 'de' }]);
	});

	it('setMyDescription / getMyDescription (version 1: an empty description removes it)', async () => {
		const v1 = { typeVersion: 1 };
		const out = await runOk(ctx, { resource: 'bot', operation: 'setMyDescription', description: 'I help.' }, v1);
		expect(jsonOf(out)).toEqual([{ updated: true }]);
		expect(bodiesOf('setMyDescription')).toEqual([{ description: 'I help.' }]);
		expect(jsonOf(await runOk(ctx, { resource: 'bot', operation: 'getMyDescription' }))).toEqual([{ description: 'I help.' }]);
		// An empty description removes it (sent as '', which the spec allows).
		await runOk(ctx, { resource: 'bot', operation: 'setMyDescription', description: '' }, v1);
		expect(bodiesOf('setMyDescription')[1]).toEqual({ description: '' });
		expect(jsonOf(await runOk(ctx, { resource: 'bot', operation: 'getMyDescription' }))).toEqual([{ description: '' }]);
	});

	it('setMyShortDescription / getMyShortDescription', async () => {
		const out = await runOk(ctx, {
			resource: 'bot',
			operation: 'setMyShortDescription',
			shortDescription: 'Short',
			additionalFields: { languageCode: 'en' },
		});
		expect(jsonOf(out)).toEqual([{ updated: true }]);
		expect(bodiesOf('setMyShortDescription')).toEqual([{ short_description: 'Short', language_code: 'en' }]);
		const read = await runOk(ctx, { resource: 'bot', operation: 'getMyShortDescription', additionalFields: { languageCode: 'en' } });
		expect(jsonOf(read)).toEqual([{ short_description: 'Short' }]);
	});

	it('setMyCommands (list and JSON) / getMyCommands / deleteMyCommands', async () => {
		const listOut = await runOk(ctx, {
			resource: 'bot',
			operation: 'setMyCommands',
			commandsInput: 'list',
			commands: {
				command: [
					{ command: '/start', description: 'Start the bot' },
					{ command: 'help', description: 'Show help' },
				],
			},
		});
		expect(jsonOf(listOut)).toEqual([{ updated: true }]);
		await runOk(ctx, {
			resource: 'bot',
			operation: 'setMyCommands',
			commandsInput: 'json',
			commandsJson: '[{"command": "hilfe", "description": "Hilfe zeigen"}]',
			additionalFields: { languageCode: 'de' },
		});
		expect(bodiesOf('setMyCommands')).toEqual([
			{
				commands: [
					{ command: 'start', description: 'Start the bot' },
					{ command: 'help', description: 'Show help' },
				],
			},
			{ commands: [{ command: 'hilfe', description: 'Hilfe zeigen' }], language_code: 'de' },
		]);

		const read = await runOk(ctx, { resource: 'bot', operation: 'getMyCommands' });
		expect(jsonOf(read)).toEqual([
			{ command: 'start', description: 'Start the bot' },
			{ command: 'help', description: 'Show help' },
		]);
		expect(pairingOf(read)).toEqual([0, 0]);
		const whole = await runOk(ctx, { resource: 'bot', operation: 'getMyCommands', options: { splitIntoItems: false } });
		expect(jsonOf(whole)).toEqual([{ commands: jsonOf(read) }]);

		const deleted = await runOk(ctx, { resource: 'bot', operation: 'deleteMyCommands' });
		expect(jsonOf(deleted)).toEqual([{ deleted: true }]);
		expect(bodiesOf('deleteMyCommands')).toEqual([{}]);
		// No commands left: no item (n8n's "Always Output Data" setting gives an empty one).
		expect(await runOk(ctx, { resource: 'bot', operation: 'getMyCommands' })).toEqual([]);
		const german = await runOk(ctx, { resource: 'bot', operation: 'getMyCommands', additionalFields: { languageCode: 'de' } });
		expect(jsonOf(german)).toEqual([{ command: 'hilfe', description: 'Hilfe zeigen' }]);
	});
});

describe('webhook resource', () => {
	it('setWebhook / getWebhookInfo / deleteWebhook', async () => {
		const set = await runOk(ctx, {
			resource: 'webhook',
			operation: 'setWebhook',
			url: 'https://example.com/hook',
			additionalFields: {
				secretToken: 'my_secret-1',
				maxConnections: 10,
				allowedUpdates: ['message'],
				dropPendingUpdates: true,
			},
		});
		expect(jsonOf(set)).toEqual([{ updated: true }]);
		expect(bodiesOf('setWebhook')).toEqual([
			{
				url: 'https://example.com/hook',
				secret_token: 'my_secret-1',
				max_connections: 10,
				allowed_updates: ['message'],
				drop_pending_updates: true,
			},
		]);
		expect(ctx.emu.webhookOf()).toMatchObject({
			url: 'https://example.com/hook',
			secretToken: 'my_secret-1',
			maxConnections: 10,
			allowedUpdates: ['message'],
		});

		const info = await runOk(ctx, { resource: 'webhook', operation: 'getWebhookInfo' });
		expect(bodiesOf('getWebhookInfo')).toEqual([{}]);
		expect(jsonOf(info)).toEqual([
			expect.objectContaining({ url: 'https://example.com/hook', pending_update_count: 0, max_connections: 10 }),
		]);

		const deleted = await runOk(ctx, {
			resource: 'webhook',
			operation: 'deleteWebhook',
			additionalFields: { dropPendingUpdates: true },
		});
		expect(bodiesOf('deleteWebhook')).toEqual([{ drop_pending_updates: true }]);
		expect(jsonOf(deleted)).toEqual([{ deleted: true }]);
		expect(ctx.emu.webhookOf()).toBeNull();
	});
});

describe('update resource', () => {
	it('getUpdates: one item per update; offset acknowledges', async () => {
		await ctx.emu.userSends({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, text: 'first' });
		await ctx.emu.userSends({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, text: 'second' });
		const out = await runOk(ctx, { resource: 'update', operation: 'getUpdates', additionalFields: { limit: 10 } });
		expect(bodiesOf('getUpdates')).toEqual([{ limit: 10 }]);
		expect(jsonOf(out).map((update) => (update.message as IDataObject).text)).toEqual(['first', 'second']);
		expect(pairingOf(out)).toEqual([0, 0]);
		const last = out[1].json.update_id as number;

		const next = await runOk(ctx, {
			resource: 'update',
			operation: 'getUpdates',
			additionalFields: { offset: last + 1, timeout: 0, allowedUpdates: ['message', 'callback_query'] },
		});
		expect(bodiesOf('getUpdates')[1]).toEqual({ offset: last + 1, timeout: 0, allowed_updates: ['message', 'callback_query'] });
		expect(next).toEqual([]);
		expect(ctx.emu.pendingUpdates()).toEqual([]);
	});
});

describe('other resource', () => {
	it('callMethod: calls a method by name with a JSON body', async () => {
		const out = await runOk(ctx, {
			resource: 'other',
			operation: 'callMethod',
			method: 'getChat',
			body: JSON.stringify({ chat_id: ctx.d.groupChatId }),
		});
		expect(bodiesOf('getChat')).toEqual([{ chat_id: ctx.d.groupChatId }]);
		expect(out[0].json).toMatchObject({ id: ctx.d.groupChatId, title: 'Demo Group' });

		const count = await runOk(ctx, {
			resource: 'other',
			operation: 'callMethod',
			method: 'getChatMemberCount',
			body: '={{ { "chat_id": $json.chat } }}',
		}, { items: [{ chat: ctx.d.groupChatId }] });
		expect(jsonOf(count)).toEqual([{ result: 3 }]);
	});

	it("callMethod: the service's refusal surfaces with its own description", async () => {
		const result = await run(ctx, { resource: 'other', operation: 'callMethod', method: 'noSuchMethod', body: '{}' });
		expect(result.error?.message).toMatch(/not found|unknown|no such/i);
		expect(ctx.emu.callsTo('noSuchMethod')).toHaveLength(1);
	});
});

describe('input errors', () => {
	it('a bad chat is a NodeOperationError naming item and field, and nothing is sent', async () => {
		const result = await run(
			ctx,
			{ resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.chat }}'), text: 'x' },
			{ items: [{ chat: ctx.d.privateChatId }, { chat: ctx.d.groupChatId }, { chat: 'abc' }] },
		);
		expect(result.error?.message).toBe("Chat: 'abc' is not a chat UUID or @username [item 2]");
		expect(result.error?.name).toBe('NodeOperationError');
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it.each([
		[{ operation: 'deleteMessage', chatId: 'PRIVATE', messageId: '0' }, 'Message ID: 0 is too small, the minimum is 1 [item 0]'],
		[{ operation: 'deleteMessage', chatId: 'PRIVATE', messageId: 'x' }, "Message ID: 'x' is not a whole number [item 0]"],
		[{ operation: 'deleteMessage', chatId: 'PRIVATE', messageId: '={{ "" }}' }, 'Message ID: is required: the sequence number of the message [item 0]'],
		[{ operation: 'sendPhoto', chatId: 'PRIVATE', photo: 'nope' }, "Photo ID: 'nope' is not a media file UUID [item 0]"],
		[{ operation: 'sendMessage', chatId: 'PRIVATE', text: '={{ "" }}' }, 'Text: is required and may not be empty [item 0]'],
		[
			{ operation: 'sendMessage', chatId: 'PRIVATE', text: 'x', additionalFields: { entities: '{"a":1}' } },
			'Entities: must be a JSON array of entity objects [item 0]',
		],
		[
			{ operation: 'sendMessage', chatId: 'PRIVATE', text: 'x', additionalFields: { parseMode: 'BBCode' } },
			"Parse Mode: 'BBCode' is not one of None, HTML, Markdown, MarkdownV2, markdownFromAi [item 0]",
		],
		[
			{ operation: 'sendPhoto', chatId: 'PRIVATE', photo: 'PHOTO', additionalFields: { parseMode: 'MarkdownV2' } },
			"Parse Mode: 'MarkdownV2' is not one of None, HTML, Markdown, markdownFromAi [item 0]",
		],
	])('%j → %s', async (parameters, message) => {
		const resolved = JSON.parse(
			JSON.stringify(parameters)
				.replace('"PRIVATE"', JSON.stringify(byId(ctx.d.privateChatId)))
				.replace('"PHOTO"', JSON.stringify(ctx.d.media.photo)),
		) as INodeParameters;
		const result = await run(ctx, { resource: 'message', ...resolved });
		expect(result.error?.message).toBe(message);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it.each([
		[{ resource: 'chat', operation: 'getChatMember', chatId: { __rl: true, mode: 'username', value: '@demo_group' }, userId: 'bob' }, "User ID: 'bob' is not a user UUID [item 0]"],
		[{ resource: 'bot', operation: 'setMyName', name: 'x'.repeat(101) }, 'Name: is 101 characters, the limit is 100 [item 0]'],
		[{ resource: 'bot', operation: 'setMyShortDescription', shortDescription: 'x'.repeat(121) }, 'Short Description: is 121 characters, the limit is 120 [item 0]'],
		[{ resource: 'bot', operation: 'getMyName', additionalFields: { languageCode: 'english!' } }, "Language Code: 'english!' is not a language code such as en or de [item 0]"],
		[
			{ resource: 'bot', operation: 'setMyCommands', commandsInput: 'list', commands: { command: [{ command: 'Start', description: 'x' }] } },
			"Commands → command 1: 'Start' must be 1 to 32 characters of a-z, 0-9 and _ [item 0]",
		],
		[
			{ resource: 'bot', operation: 'setMyCommands', commandsInput: 'json', commandsJson: '[{"command": "a"}]' },
			'Commands (JSON) → command 1: the description is 0 characters, it must be 1 to 256 [item 0]',
		],
		[{ resource: 'webhook', operation: 'setWebhook', url: 'http://example.com/hook' }, "URL: 'http://example.com/hook' must use https:// [item 0]"],
		[{ resource: 'webhook', operation: 'setWebhook', url: 'https://example.com:9000/hook' }, 'URL: port 9000 is not supported, use one of 443, 80, 8080, 8443 [item 0]'],
		[
			{ resource: 'webhook', operation: 'setWebhook', url: 'https://example.com/hook', additionalFields: { secretToken: 'has space' } },
			'Secret Token: may only contain A-Z, a-z, 0-9, _ and - [item 0]',
		],
		[
			{ resource: 'webhook', operation: 'setWebhook', url: 'https://example.com/hook', additionalFields: { maxConnections: 101 } },
			'Max Connections: 101 is too large, the maximum is 100 [item 0]',
		],
		[{ resource: 'update', operation: 'getUpdates', additionalFields: { timeout: 51 } }, 'Timeout: 51 is too large, the maximum is 50 [item 0]'],
		[
			{ resource: 'update', operation: 'getUpdates', additionalFields: { allowedUpdates: '={{ ["message", "poll"] }}' } },
			"Allowed Updates: 'poll' is not one of message, callback_query [item 0]",
		],
		[
			{ resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId: '1', additionalFields: { text: 'x'.repeat(201) } },
			'Text: is 201 characters, the limit is 200 [item 0]',
		],
		[{ resource: 'other', operation: 'callMethod', method: 'get chat', body: '{}' }, "Method: 'get chat' is not a method name (letters, digits and _, starting with a letter) [item 0]"],
		[{ resource: 'other', operation: 'callMethod', method: 'getMe', body: '[1]' }, 'Body (JSON): must be a JSON object, got [1] [item 0]'],
	])('%j → %s', async (parameters, message) => {
		const result = await run(ctx, parameters as INodeParameters);
		expect(result.error?.message).toBe(message);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('a service error is a NodeApiError with the service description and the item index', async () => {
		const result = await run(
			ctx,
			{ resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.chat }}'), text: 'x', options: { concurrency: 1 } },
			{ items: [{ chat: ctx.d.privateChatId }, { chat: ctx.d.foreignChatId }] },
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toBe('Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again [item 1]');
		expect((result.error as unknown as { context: IDataObject }).context.itemIndex).toBe(1);
	});
});
