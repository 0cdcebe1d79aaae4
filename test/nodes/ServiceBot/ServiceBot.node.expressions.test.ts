/**
 * Every operation as users build it: the fields filled from the trigger's data with expressions
 * (`={{ $json.chat }}`, resource locators whose value is an expression, keyboards, numbers, booleans,
 * collections), against the same operation with the same values typed in. Issue 31: the tests were
 * written with fixed texts, and a Send and Wait whose Message was an expression did not update its
 * question in n8n 2.41.1, whose expression engine only evaluates inside the scopes n8n opens around a
 * node's calls. The harness evaluates the same way (test/harness/expression-engine.ts), so a field
 * read outside such a scope fails here as in n8n.
 *
 * One row per operation: the input item, the node's parameters written once with `v` (each field
 * users fill from data: its value typed in for the fixed run, an expression reading the item for the
 * other), and the requests the spec (../shared/spec/bot-api.md) says reach the service for that item.
 * Each row runs twice on a freshly reset emulator (so both runs get the same IDs) and must send the
 * same requests and output the same items (times aside); several items with their own values; and a
 * bad value named with its field and item either way. Send and Wait: ServiceBot.node.expressions.sendAndWait.test.ts.
 */
import type { DemoData } from '../../emulator';
import type { IBinaryKeyData, IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { removeStoredFiles, storeFiles, useExpressionEngine } from '../../harness';
import { byId, byUsername, nodeType, run, seedMessage } from '../../harness/action-node';
import { useEmulator, type Suite } from '../../harness/emulator-suite';
import { comparable, escape, from, unquoted, type From, type Request } from '../../harness/field-filling';

// n8n's own VM engine, not only its scopes: what an expression returns is what n8n 2.41.1 gets.
useExpressionEngine('quickjs');

const ctx = useEmulator();
afterAll(removeStoredFiles);

// ---------------------------------------------------------------- the two ways of filling a field

// ---------------------------------------------------------------- rows

interface Row {
	/** `resource.operation`, as the node lists them. */
	operation: string;
	/** What this row of an operation with several shows. */
	variant?: string;
	/** The `n`-th input item: each with values of its own (the bulk run sends several). */
	item(d: DemoData, n: number): IDataObject;
	/** The node's parameters, each field users fill from data written with `v`. */
	parameters(v: From): INodeParameters;
	/** The requests the spec says reach the service for one item (Telegram's convention where the spec shows none). */
	requests(item: IDataObject): Request[];
	/** What the operation needs first (messages to edit, clicks to answer), for `count` items. */
	setup?(ctx: Suite, count: number): Promise<void>;
	/** The files of an item (uploads). */
	binaries?(item: IDataObject): Promise<IBinaryKeyData>;
	/** How many items of their own the bulk run sends (default 3; 1 where more mean nothing new). */
	bulk?: number;
	/**
	 * A value of the item the node refuses, and the field its error names. `issue`: typed in, n8n itself
	 * refuses to run the workflow (a resource locator's format is checked in the editor), so only the
	 * value from the item reaches the node.
	 */
	bad?: { key: string; value: IDataObject[string]; field: string; issue?: true };
	/** The node version, when the newest does not show the field (default the newest). */
	typeVersion?: number;
}

const INVOICE = (number: number): Buffer => Buffer.from(`%PDF-1.7 invoice ${number}`);

/** `count` text messages of the bot in a chat (message ids 1 to count after a reset). */
async function seed(c: Suite, chatId: string, count: number, body: IDataObject = {}): Promise<void> {
	for (let index = 0; index < count; index++) await seedMessage(c, chatId, { text: `message ${index + 1}`, ...body });
}

async function api(c: Suite, method: string, body: IDataObject): Promise<void> {
	const response = await fetch(`${c.emu.baseUrl}/bot${c.d.token}/${method}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const envelope = (await response.json()) as { ok: boolean };
	if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope)}`);
}

const chats = (d: DemoData): string[] => [d.privateChatId, d.groupChatId, d.channelChatId];
const LANGUAGES = ['de', 'fr', 'it'];

const media = (operation: string, field: 'photo' | 'video' | 'document' | 'voice'): Row => ({
	operation: `message.${operation}`,
	variant: 'a file in the media storage, and an inline keyboard as JSON from the item',
	item: (d, n) => ({ chat: chats(d)[n], media: d.media[field], caption: `Order ${n + 7}: *${field}*`, parseMode: 'Markdown', replyTo: 1, silent: true, keyboard: [[{ text: `Open ${n + 7}`, url: `https://example.com/orders/${n + 7}` }]] }),
	parameters: (v) => ({
		chatId: byId(v.text('{chat}')),
		[field]: v.text('{media}'),
		additionalFields: { caption: v.text('{caption}'), parseMode: v('parseMode'), replyToMessageId: v.text('{replyTo}'), disableNotification: v('silent') },
		replyMarkup: 'inlineKeyboard',
		keyboardMode: 'json',
		keyboardJson: v.json('keyboard'),
	}),
	requests: (item) => [
		[
			operation,
			{
				chat_id: item.chat,
				[field]: item.media,
				caption: item.caption,
				parse_mode: 'Markdown',
				reply_to_message_id: 1,
				disable_notification: true,
				reply_markup: { inline_keyboard: item.keyboard },
			},
		],
	],
	setup: async (c, count) => {
		for (const chat of chats(c.d).slice(0, count)) await seed(c, chat, 1);
	},
	bad: { key: 'media', value: 'not-a-file', field: `${field.charAt(0).toUpperCase()}${field.slice(1)} ID` },
});

const ROWS: Row[] = [
	// 4.1 Messages
	{
		operation: 'message.sendMessage',
		variant: 'text, parse mode, reply, silent',
		item: (d, n) => ({ chat: chats(d)[n], name: ['Ann', 'Ben', 'Cy'][n], parseMode: 'HTML', replyTo: 1, silent: true, split: false }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			text: v.text('Hello <b>{name}</b>, your order shipped.'),
			additionalFields: { parseMode: v('parseMode'), replyToMessageId: v.text('{replyTo}'), disableNotification: v('silent') },
			options: { splitLongText: v('split') },
		}),
		requests: (item) => [
			['sendMessage', { chat_id: item.chat, text: `Hello <b>${String(item.name)}</b>, your order shipped.`, parse_mode: 'HTML', reply_to_message_id: 1, disable_notification: true }],
		],
		setup: async (c, count) => {
			for (const chat of chats(c.d).slice(0, count)) await seed(c, chat, 1);
		},
		bad: { key: 'chat', value: 'not a chat', field: 'Chat', issue: true },
	},
	{
		operation: 'message.sendMessage',
		variant: 'entities, and an inline keyboard of the builder whose buttons come from the item',
		item: (d, n) => ({
			chat: chats(d)[n],
			text: `Order ${n + 1} paid`,
			entities: [{ type: 'bold', offset: 0, length: 7 }],
			yes: `Ship ${n + 1}`,
			yesData: `ship:${n + 1}`,
			site: 'Track',
			siteUrl: `https://example.com/track/${n + 1}`,
		}),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			text: v.text('{text}'),
			additionalFields: { entities: v.json('entities') },
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'builder',
			inlineKeyboard: {
				rows: [
					{
						buttons: {
							button: [
								{ text: v.text('{yes}'), buttonType: 'callbackData', callbackData: v.text('{yesData}') },
								{ text: v.text('{site}'), buttonType: 'url', url: v.text('{siteUrl}') },
							],
						},
					},
				],
			},
		}),
		requests: (item) => [
			[
				'sendMessage',
				{
					chat_id: item.chat,
					text: item.text,
					entities: item.entities,
					reply_markup: { inline_keyboard: [[{ text: item.yes, callback_data: item.yesData }, { text: item.site, url: item.siteUrl }]] },
				},
			],
		],
		bad: { key: 'yesData', value: 'x'.repeat(65), field: 'Reply Markup' },
	},
	{
		operation: 'message.sendMessage',
		variant: 'a reply keyboard of the builder, its options from the item',
		item: (d, n) => ({ chat: chats(d)[n], text: 'Pick a size', first: 'Small', second: `Large ${n + 1}`, oneTime: true, resize: true }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			text: v.text('{text}'),
			replyMarkup: 'replyKeyboard',
			keyboardMode: 'builder',
			replyKeyboard: { rows: [{ buttons: { button: [{ text: v.text('{first}') }, { text: v.text('{second}') }] } }] },
			replyKeyboardOptions: { oneTimeKeyboard: v('oneTime'), resizeKeyboard: v('resize') },
		}),
		requests: (item) => [
			[
				'sendMessage',
				{
					chat_id: item.chat,
					text: 'Pick a size',
					reply_markup: { keyboard: [[{ text: item.first }, { text: item.second }]], one_time_keyboard: true, resize_keyboard: true },
				},
			],
		],
		bad: { key: 'oneTime', value: 'sometimes', field: 'Reply Markup' },
	},
	media('sendPhoto', 'photo'),
	media('sendVideo', 'video'),
	media('sendDocument', 'document'),
	media('sendVoice', 'voice'),
	{
		operation: 'message.sendDocument',
		variant: 'an upload of the binary property the item names, its file name and type from the item',
		item: (d, n) => ({ chat: d.privateChatId, number: n + 1, property: `invoice_${n + 1}`, fileName: `invoice-${n + 1}.pdf`, mimeType: 'application/pdf', caption: `Invoice ${n + 1}` }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			mediaSource: 'binaryFile',
			binaryPropertyName: v.text('{property}'),
			fileName: v.text('{fileName}'),
			mimeType: v.text('{mimeType}'),
			additionalFields: { caption: v.text('{caption}') },
		}),
		// Stored under the item's own property (a bad item names another one).
		binaries: async (item) => await storeFiles({ [`invoice_${String(item.number)}`]: { data: INVOICE(Number(item.number)), fileName: 'upload.bin', mimeType: 'application/octet-stream' } }),
		requests: (item) => [
			[
				'sendDocument',
				{
					chat_id: item.chat,
					caption: item.caption,
					// The file in the method's media field (Telegram's convention; the spec shows no upload).
					document: expect.objectContaining({ fileName: item.fileName, mimeType: item.mimeType, size: INVOICE(Number(item.number)).length }) as unknown as IDataObject,
				},
			],
		],
		bad: { key: 'property', value: 'attachment', field: 'Input Binary Field' },
	},
	{
		operation: 'message.forwardMessage',
		item: (d, n) => ({ to: chats(d)[n], from: d.groupChatId, messageId: n + 1, silent: true }),
		parameters: (v) => ({
			chatId: byId(v.text('{to}')),
			fromChatId: byId(v.text('{from}')),
			messageId: v.text('{messageId}'),
			additionalFields: { disableNotification: v('silent') },
		}),
		requests: (item) => [['forwardMessage', { chat_id: item.to, from_chat_id: item.from, message_id: item.messageId, disable_notification: true }]],
		setup: async (c, count) => await seed(c, c.d.groupChatId, count),
		bad: { key: 'from', value: 'group chat', field: 'From Chat', issue: true },
	},
	{
		operation: 'message.copyMessage',
		item: (d, n) => ({ to: d.privateChatId, from: d.groupUsername, messageId: n + 1, caption: `Copy <i>${n + 1}</i>`, parseMode: 'HTML', silent: true, labels: ['Keep', 'Drop'] }),
		parameters: (v) => ({
			chatId: byId(v.text('{to}')),
			fromChatId: byUsername(v.text('{from}')),
			messageId: v.text('{messageId}'),
			additionalFields: { caption: v.text('{caption}'), parseMode: v('parseMode'), disableNotification: v('silent') },
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'autoGrid',
			gridLabels: v.list('labels'),
			gridColumns: 2,
		}),
		requests: (item) => [
			[
				'copyMessage',
				{
					chat_id: item.to,
					from_chat_id: item.from,
					message_id: item.messageId,
					caption: item.caption,
					parse_mode: 'HTML',
					disable_notification: true,
					reply_markup: { inline_keyboard: [[{ text: 'Keep', callback_data: 'Keep' }, { text: 'Drop', callback_data: 'Drop' }]] },
				},
			],
		],
		setup: async (c, count) => {
			for (let index = 0; index < count; index++) await seedMessage(c, c.d.groupChatId, { photo: c.d.media.photo, caption: 'original' });
		},
		bad: { key: 'messageId', value: 'first', field: 'Message ID' },
	},
	{
		operation: 'message.editMessageText',
		item: (d, n) => ({ chat: d.privateChatId, messageId: n + 1, status: ['paid', 'shipped', 'delivered'][n], parseMode: 'MarkdownV2', labels: ['Track', 'Return'], columns: 1, buttonText: '{index}. {label}' }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			messageId: v.text('{messageId}'),
			text: v.text('Your order is *{status}*'),
			additionalFields: { parseMode: v('parseMode') },
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'autoGrid',
			gridLabels: v.list('labels'),
			gridColumns: v('columns'),
			gridButtonText: v('buttonText'),
		}),
		requests: (item) => [
			[
				'editMessageText',
				{
					chat_id: item.chat,
					message_id: item.messageId,
					text: `Your order is *${String(item.status)}*`,
					parse_mode: 'MarkdownV2',
					reply_markup: { inline_keyboard: [[{ text: '1. Track', callback_data: 'Track' }], [{ text: '2. Return', callback_data: 'Return' }]] },
				},
			],
		],
		setup: async (c, count) => await seed(c, c.d.privateChatId, count),
		bad: { key: 'columns', value: 9, field: 'Reply Markup → Buttons per Row' },
	},
	{
		operation: 'message.editMessageCaption',
		item: (d, n) => ({ chat: d.privateChatId, messageId: n + 1, caption: `<b>Photo ${n + 1}</b>, edited`, parseMode: 'HTML' }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			messageId: v.text('{messageId}'),
			caption: v.text('{caption}'),
			additionalFields: { parseMode: v('parseMode') },
		}),
		requests: (item) => [['editMessageCaption', { chat_id: item.chat, message_id: item.messageId, caption: item.caption, parse_mode: 'HTML' }]],
		setup: async (c, count) => {
			for (let index = 0; index < count; index++) await seedMessage(c, c.d.privateChatId, { photo: c.d.media.photo, caption: 'before' });
		},
		bad: { key: 'parseMode', value: 'BBCode', field: 'Parse Mode' },
	},
	{
		operation: 'message.editMessageReplyMarkup',
		item: (d, n) => ({ chat: d.privateChatId, messageId: n + 1, keyboard: { inline_keyboard: [[{ text: `Rate ${n + 1}`, callback_data: `rate:${n + 1}` }]] } }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			messageId: v.text('{messageId}'),
			replyMarkup: 'inlineKeyboard',
			keyboardMode: 'json',
			keyboardJson: v.json('keyboard'),
		}),
		requests: (item) => [['editMessageReplyMarkup', { chat_id: item.chat, message_id: item.messageId, reply_markup: item.keyboard }]],
		setup: async (c, count) => await seed(c, c.d.privateChatId, count),
		bad: { key: 'messageId', value: 0, field: 'Message ID' },
	},
	{
		operation: 'message.deleteMessage',
		item: (d, n) => ({ chat: d.groupChatId, messageId: n + 1 }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), messageId: v.text('{messageId}') }),
		requests: (item) => [['deleteMessage', { chat_id: item.chat, message_id: item.messageId }]],
		setup: async (c, count) => await seed(c, c.d.groupChatId, count),
		bad: { key: 'messageId', value: -1, field: 'Message ID' },
	},
	{
		operation: 'message.sendChatAction',
		item: (d, n) => ({ chat: chats(d)[n], action: ['typing', 'upload_photo', 'find_location'][n] }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), action: v('action') }),
		requests: (item) => [['sendChatAction', { chat_id: item.chat, action: item.action }]],
		bad: { key: 'action', value: 'dancing', field: 'Action' },
	},
	// 4.2 Chats and members
	{
		operation: 'chat.getChat',
		item: (d, n) => ({ chat: chats(d)[n] }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')) }),
		requests: (item) => [['getChat', { chat_id: item.chat }]],
		bad: { key: 'chat', value: 'demo_group', field: 'Chat', issue: true },
	},
	{
		operation: 'chat.getChatMember',
		item: (d, n) => ({ chat: d.groupChatId, user: [d.userId, d.otherUserId, d.botId][n] }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), userId: v.text('{user}') }),
		requests: (item) => [['getChatMember', { chat_id: item.chat, user_id: item.user }]],
		bad: { key: 'user', value: 'bob', field: 'User ID' },
	},
	{
		operation: 'chat.getChatAdministrators',
		item: (d) => ({ chat: d.groupChatId, split: true }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), options: { splitIntoItems: v('split') } }),
		requests: (item) => [['getChatAdministrators', { chat_id: item.chat }]],
		bulk: 1,
	},
	{
		operation: 'chat.getChatMemberCount',
		item: (d, n) => ({ chat: chats(d)[n] }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')) }),
		requests: (item) => [['getChatMemberCount', { chat_id: item.chat }]],
	},
	{
		operation: 'chat.pinChatMessage',
		item: (d, n) => ({ chat: d.groupChatId, messageId: n + 1, silent: true }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), messageId: v.text('{messageId}'), additionalFields: { disableNotification: v('silent') } }),
		requests: (item) => [['pinChatMessage', { chat_id: item.chat, message_id: item.messageId, disable_notification: true }]],
		setup: async (c, count) => await seed(c, c.d.groupChatId, count),
		bad: { key: 'messageId', value: 1.5, field: 'Message ID' },
	},
	{
		operation: 'chat.unpinChatMessage',
		item: (d, n) => ({ chat: d.groupChatId, messageId: n + 1 }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')), messageId: v.text('{messageId}') }),
		requests: (item) => [['unpinChatMessage', { chat_id: item.chat, message_id: item.messageId }]],
		setup: async (c, count) => {
			await seed(c, c.d.groupChatId, count);
			for (let messageId = 1; messageId <= count; messageId++) await api(c, 'pinChatMessage', { chat_id: c.d.groupChatId, message_id: messageId });
		},
	},
	{
		operation: 'chat.unpinAllChatMessages',
		item: (d, n) => ({ chat: [d.groupChatId, d.privateChatId, d.channelChatId][n] }),
		parameters: (v) => ({ chatId: byId(v.text('{chat}')) }),
		requests: (item) => [['unpinAllChatMessages', { chat_id: item.chat }]],
		setup: async (c) => {
			await seed(c, c.d.groupChatId, 1);
			await api(c, 'pinChatMessage', { chat_id: c.d.groupChatId, message_id: 1 });
		},
	},
	// 4.3 Callback answers: the clicks' ids are the emulator's, the same after each reset.
	{
		operation: 'callback.answerCallbackQuery',
		item: (_d, n) => ({ click: String(4200000000000000000n + BigInt(n + 1)), text: `Thanks, ${['Ann', 'Ben', 'Cy'][n]}!`, alert: true, url: 'https://example.com/game', cacheTime: 5 }),
		parameters: (v) => ({
			callbackQueryId: v.text('{click}'),
			additionalFields: { text: v.text('{text}'), showAlert: v('alert'), url: v.text('{url}'), cacheTime: v('cacheTime') },
		}),
		requests: (item) => [['answerCallbackQuery', { callback_query_id: item.click, text: item.text, show_alert: true, url: 'https://example.com/game', cache_time: 5 }]],
		setup: async (c, count) => {
			await seedMessage(c, c.d.privateChatId, { text: 'pick', reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] } });
			for (let index = 0; index < count; index++) await c.emu.userClicks({ chatId: c.d.privateChatId, userId: c.d.userId, messageId: 1, data: 'yes' });
		},
		bad: { key: 'cacheTime', value: -5, field: 'Cache Time' },
	},
	// 4.4 Bot profile and commands
	{
		operation: 'bot.setMyName',
		item: (_d, n) => ({ name: ['Helfer', 'Assistant', 'Aiutante'][n], language: LANGUAGES[n] }),
		parameters: (v) => ({ name: v.text('{name}'), additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['setMyName', { name: item.name, language_code: item.language }]],
		bad: { key: 'name', value: 'x'.repeat(101), field: 'Name' },
	},
	{
		operation: 'bot.getMyName',
		item: (_d, n) => ({ language: LANGUAGES[n] }),
		parameters: (v) => ({ additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['getMyName', { language_code: item.language }]],
		setup: async (c) => {
			for (const [index, language] of LANGUAGES.entries()) await api(c, 'setMyName', { name: `Name ${index}`, language_code: language });
		},
		bad: { key: 'language', value: 'german!', field: 'Language Code' },
	},
	{
		operation: 'bot.setMyDescription',
		item: (_d, n) => ({ description: `I answer questions about orders (${LANGUAGES[n]}).`, language: LANGUAGES[n] }),
		parameters: (v) => ({ description: v.text('{description}'), additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['setMyDescription', { description: item.description, language_code: item.language }]],
		bad: { key: 'description', value: 'x'.repeat(513), field: 'Description' },
	},
	{
		operation: 'bot.getMyDescription',
		item: (_d, n) => ({ language: LANGUAGES[n] }),
		parameters: (v) => ({ additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['getMyDescription', { language_code: item.language }]],
		setup: async (c) => {
			for (const language of LANGUAGES) await api(c, 'setMyDescription', { description: `About (${language})`, language_code: language });
		},
	},
	{
		operation: 'bot.setMyShortDescription',
		item: (_d, n) => ({ short: `Orders bot ${n + 1}`, language: LANGUAGES[n] }),
		parameters: (v) => ({ shortDescription: v.text('{short}'), additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['setMyShortDescription', { short_description: item.short, language_code: item.language }]],
		bad: { key: 'short', value: 'x'.repeat(121), field: 'Short Description' },
	},
	{
		operation: 'bot.getMyShortDescription',
		item: (_d, n) => ({ language: LANGUAGES[n] }),
		parameters: (v) => ({ additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['getMyShortDescription', { language_code: item.language }]],
		setup: async (c) => {
			for (const language of LANGUAGES) await api(c, 'setMyShortDescription', { short_description: `Card (${language})`, language_code: language });
		},
	},
	{
		operation: 'bot.setMyCommands',
		variant: 'the list',
		item: (_d, n) => ({ command: ['start', 'hilfe', 'aide'][n], description: ['Start the bot', 'Hilfe zeigen', "Afficher l'aide"][n], language: LANGUAGES[n] }),
		parameters: (v) => ({
			commandsInput: 'list',
			commands: { command: [{ command: v.text('{command}'), description: v.text('{description}') }, { command: 'status', description: v.text('Status ({language})') }] },
			additionalFields: { languageCode: v.text('{language}') },
		}),
		requests: (item) => [
			[
				'setMyCommands',
				{
					commands: [
						{ command: item.command, description: item.description },
						{ command: 'status', description: `Status (${String(item.language)})` },
					],
					language_code: item.language,
				},
			],
		],
		bad: { key: 'command', value: 'Start Now', field: 'Commands' },
	},
	{
		operation: 'bot.setMyCommands',
		variant: 'JSON',
		item: (_d, n) => ({ commands: [{ command: `menu${n + 1}`, description: 'Show the menu' }], language: LANGUAGES[n] }),
		parameters: (v) => ({ commandsInput: 'json', commandsJson: v.json('commands'), additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['setMyCommands', { commands: item.commands, language_code: item.language }]],
		bad: { key: 'commands', value: [{ command: 'menu' }], field: 'Commands (JSON)' },
	},
	{
		operation: 'bot.getMyCommands',
		item: (_d, n) => ({ language: LANGUAGES[n], split: false }),
		parameters: (v) => ({ additionalFields: { languageCode: v.text('{language}') }, options: { splitIntoItems: v('split') } }),
		requests: (item) => [['getMyCommands', { language_code: item.language }]],
		setup: async (c) => {
			for (const language of LANGUAGES) await api(c, 'setMyCommands', { commands: [{ command: 'start', description: `Start (${language})` }], language_code: language });
		},
	},
	{
		operation: 'bot.deleteMyCommands',
		item: (_d, n) => ({ language: LANGUAGES[n] }),
		parameters: (v) => ({ additionalFields: { languageCode: v.text('{language}') } }),
		requests: (item) => [['deleteMyCommands', { language_code: item.language }]],
	},
	// 4.5 Webhook management: one bot has one webhook, so one item.
	{
		operation: 'webhook.setWebhook',
		item: () => ({ url: 'https://example.com:8443/service-bot', secret: 'orders_secret-1', maxConnections: 10, updates: ['message', 'callback_query'], drop: true }),
		parameters: (v) => ({
			url: v.text('{url}'),
			additionalFields: { secretToken: v.text('{secret}'), maxConnections: v('maxConnections'), allowedUpdates: v('updates'), dropPendingUpdates: v('drop') },
		}),
		requests: (item) => [['setWebhook', { url: item.url, secret_token: item.secret, max_connections: 10, allowed_updates: item.updates, drop_pending_updates: true }]],
		bulk: 1,
		bad: { key: 'url', value: 'https://example.com:9000/hook', field: 'URL' },
	},
	{
		// No field to fill: both runs are the same request.
		operation: 'webhook.getWebhookInfo',
		item: () => ({}),
		parameters: () => ({}),
		requests: () => [['getWebhookInfo', {}]],
		bulk: 1,
	},
	{
		operation: 'webhook.deleteWebhook',
		item: () => ({ drop: true }),
		parameters: (v) => ({ additionalFields: { dropPendingUpdates: v('drop') } }),
		requests: () => [['deleteWebhook', { drop_pending_updates: true }]],
		setup: async (c) => await api(c, 'setWebhook', { url: 'https://example.com/hook' }),
		bulk: 1,
	},
	// 4.6 Long polling
	{
		operation: 'update.getUpdates',
		item: () => ({ offset: 2, limit: 1, timeout: 0, updates: ['message'], split: true }),
		parameters: (v) => ({
			additionalFields: { offset: v('offset'), limit: v('limit'), timeout: v('timeout'), allowedUpdates: v('updates') },
			options: { splitIntoItems: v('split') },
		}),
		requests: (item) => [['getUpdates', { offset: item.offset, limit: item.limit, timeout: item.timeout, allowed_updates: item.updates }]],
		setup: async (c) => {
			for (const text of ['first', 'second', 'third']) await c.emu.userSends({ chatId: c.d.privateChatId, userId: c.d.userId, text });
		},
		bulk: 1,
		bad: { key: 'limit', value: 101, field: 'Limit' },
	},
	// Files users send (Telegram's getFile, then the download of the path it gives): the demo's files.
	{
		operation: 'file.getFile',
		item: (d) => ({ file: d.media.document, download: true, field: 'invoice' }),
		parameters: (v) => ({ fileId: v.text('{file}'), options: { download: v('download'), binaryPropertyName: v.text('{field}') } }),
		requests: (item) => [
			['getFile', { file_id: item.file }],
			['file', { file_path: expect.any(String) as string }],
		],
		// Each item's file is one getFile and one download; several items are ServiceBot.node.getFile.test.ts's.
		bulk: 1,
		bad: { key: 'file', value: '12345', field: 'File ID' },
	},
	// Call Method: any method, its body from the data.
	{
		operation: 'other.callMethod',
		item: (d, n) => ({ method: ['getChat', 'getChatMemberCount', 'sendMessage'][n], body: [{ chat_id: d.groupChatId }, { chat_id: d.privateChatId }, { chat_id: d.channelChatId, text: 'From Call Method' }][n] }),
		parameters: (v) => ({ method: v.text('{method}'), body: v.json('body') }),
		requests: (item) => [[String(item.method), item.body as IDataObject]],
		bad: { key: 'method', value: 'get chat', field: 'Method' },
	},
];

// ---------------------------------------------------------------- running a row

interface RowRun {
	requests: Request[];
	output: INodeExecutionData[];
	error?: string;
}

/** The row on a freshly reset emulator (the same IDs every time): its setup, then the node with `items`. */
async function runRow(row: Row, parameters: INodeParameters, items: IDataObject[]): Promise<RowRun> {
	ctx.emu.reset();
	await row.setup?.(ctx, items.length);
	const before = ctx.emu.calls.length;
	const [resource, operation] = row.operation.split('.');
	const binaries = row.binaries ? await Promise.all(items.map(async (item) => await row.binaries!(item))) : undefined;
	const requests = (): Request[] => ctx.emu.calls.slice(before).map((call): Request => [call.method, call.body as IDataObject]);
	try {
		const result = await run(ctx, { resource, operation, ...parameters }, { items, binaries, typeVersion: row.typeVersion });
		return { requests: requests(), output: result.output, error: result.error ? result.error.message : undefined };
	} catch (error) {
		// n8n refused to start the workflow (its parameter issues).
		return { requests: requests(), output: [], error: (error as Error).message };
	}
}

const itemsOf = (output: INodeExecutionData[]): unknown => comparable(output.map((item) => ({ json: item.json, pairedItem: item.pairedItem })));

/** The requests in an order that does not depend on which chat's queue ran first. */
const sorted = (requests: Request[]): Request[] => [...requests].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const name = (row: Row): string => (row.variant ? `${row.operation} (${row.variant})` : row.operation);

describe('every operation: fields filled from the item by expressions do what the same values typed in do', () => {
	beforeEach(() => {
		ctx.emu.reset();
	});

	it('every operation of the node has a row here', () => {
		const properties = nodeType.description.properties;
		const operations = properties
			.filter((property) => property.name === 'operation')
			.flatMap((property) => {
				const resources = (property.displayOptions?.show?.resource ?? []) as string[];
				const values = (property.options ?? []).map((option) => String((option as { value: unknown }).value));
				return resources.flatMap((resource) => values.map((value) => `${resource}.${value}`));
			});
		const covered = new Set([...ROWS.map((row) => row.operation), ...SEND_AND_WAIT_ROWS]);
		expect(operations.filter((operation) => !covered.has(operation))).toEqual([]);
	});

	it.each(ROWS.map((row) => [name(row), row] as const))('%s: the same requests (the spec\'s) and the same output', async (_name, row) => {
		const item = row.item(ctx.d, 0);
		const fixed = await runRow(row, row.parameters(from(item, 'fixed')), [item]);
		expect(fixed.error).toBeUndefined();
		expect(fixed.requests).toEqual(row.requests(item));
		const expressions = await runRow(row, row.parameters(from(item, 'expressions')), [item]);
		expect(expressions.error).toBeUndefined();
		expect(expressions.requests).toEqual(fixed.requests);
		expect(itemsOf(expressions.output)).toEqual(itemsOf(fixed.output));
		expect(fixed.output.length).toBeGreaterThan(0);
	});

	it.each(ROWS.filter((row) => (row.bulk ?? 3) > 1).map((row) => [name(row), row] as const))(
		'%s: several items, each with values of its own, each sent with its own and output paired to it',
		async (_name, row) => {
			const items = Array.from({ length: row.bulk ?? 3 }, (_unused, n) => row.item(ctx.d, n));
			const result = await runRow(row, row.parameters(from(items[0], 'expressions')), items);
			expect(result.error).toBeUndefined();
			expect(sorted(result.requests)).toEqual(sorted(items.flatMap((item) => row.requests(item))));
			const pairing = result.output.map((item) => (item.pairedItem as { item: number }).item);
			expect([...new Set(pairing)]).toEqual(items.map((_item, n) => n));
		},
	);

	it.each(ROWS.filter((row) => row.bad).map((row) => [name(row), row.bad!.field, row] as const))(
		'%s: a bad %s is refused naming the field and the item, typed in or from the item, and nothing is sent',
		async (_name, field, row) => {
			const bad = row.bad!;
			const good = row.item(ctx.d, 0);
			const badItem = { ...row.item(ctx.d, 1), [bad.key]: bad.value };
			const fixed = await runRow(row, row.parameters(from(badItem, 'fixed')), [badItem]);
			expect(fixed.requests).toEqual([]);
			// The first item is good: only the second one fails, and the error says so.
			const expressions = await runRow(row, row.parameters(from(good, 'expressions')), [good, badItem]);
			expect(expressions.requests).toEqual([]);
			expect(expressions.error).toMatch(new RegExp(`^${escape(field)}(:| →).* \\[item 1\\]$`));
			if (bad.issue) {
				expect(fixed.error).toMatch(/^The 'Service Bot' node has issues:/);
			} else {
				// The same words, the value shown as it came (typed text in quotes, a number from the data without).
				expect(unquoted(expressions.error)).toBe(unquoted(fixed.error?.replace(/\[item 0\]$/, '[item 1]')));
			}
		},
	);
});

// ---------------------------------------------------------------- Send and Wait for Response

/** Covered in ServiceBot.node.expressions.sendAndWait.test.ts. */
const SEND_AND_WAIT_ROWS = ['message.sendAndWait'];
