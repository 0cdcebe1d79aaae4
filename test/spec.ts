/**
 * The service's Bot API document (`/work/shared/spec/bot-api.md`), transcribed for the tests: every
 * expected value a test checks the nodes against — method list, wire parameters, limits, parse
 * modes, chat actions, update types, webhook ports, button URL schemes — comes from here, and the
 * emulator enforces the same tables.
 *
 * It imports nothing, and nothing here is read from `nodes/` or `credentials/`: it is written from
 * the document, whose part is named next to each value, so a misreading of the document in the
 * nodes fails a test instead of being copied into its oracle. The emulator shares these tables with
 * the tests (it may; it shares nothing with the nodes), so there is one transcription on the test
 * side to get right, and the nodes' own transcription is checked against it by both the tests and
 * the emulator's answers.
 *
 * Where the document says "not shown", the package follows the Telegram Bot API's convention: such
 * values say `Telegram` next to them (and parameters carry `telegram: true`). The few rules that are
 * the package's own choice where the document leaves room are in the last section, each with why.
 */

// ---------------------------------------------------------------- part 1: conventions

/** Part 1.5: chat and user identifiers are UUID strings (the textual 8-4-4-4-12 form, any case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Part 1.2: every method accepts POST; these also accept GET. */
export const GET_METHODS: readonly string[] = ['getUpdates', 'getWebhookInfo'];

// ---------------------------------------------------------------- part 8: limits

/** Part 8 (and the method tables of part 4). Lengths are characters, counted in UTF-16 code units. */
export const LIMITS = {
	/** sendMessage text: up to 32,768 characters (a message needs some text: at least 1). */
	messageText: { min: 1, max: 32768 },
	/** Media caption: up to 32,768 characters. */
	caption: { max: 32768 },
	/** Inline button text: up to 128 characters (`text` is required: at least 1). */
	inlineButtonText: { min: 1, max: 128 },
	/** callback_data: 1 to 64 UTF-8 bytes. */
	callbackDataBytes: { min: 1, max: 64 },
	/** Inline keyboard rows: at most 100. */
	inlineKeyboardRows: { max: 100 },
	/** Buttons per row: 1 to 8. */
	buttonsPerRow: { min: 1, max: 8 },
	/** answerCallbackQuery text: up to 200 characters. */
	callbackAnswerText: { max: 200 },
	/** Bot name: 1 to 100 characters. */
	botName: { min: 1, max: 100 },
	/** Bot description: up to 512 characters (no minimum: Telegram's empty description removes it). */
	botDescription: { max: 512 },
	/** Bot short description: up to 120 characters (no minimum, as the description). */
	botShortDescription: { max: 120 },
	/** Webhook secret_token: 1 to 256 characters of A-Z, a-z, 0-9, _, -. */
	secretToken: { min: 1, max: 256, pattern: /^[A-Za-z0-9_-]+$/ },
	/** Webhook max_connections: 1 to 100, default 40. */
	maxConnections: { min: 1, max: 100, default: 40 },
	/** getUpdates limit: 1 to 100, default 100. */
	updatesLimit: { min: 1, max: 100, default: 100 },
	/** getUpdates timeout: 0 to 50 seconds, default 0. */
	updatesTimeout: { min: 0, max: 50, default: 0 },
	/** Command name — not shown (part 8): Telegram's 1–32 characters of a-z, 0-9 and _. */
	commandName: { min: 1, max: 32, pattern: /^[a-z0-9_]+$/ },
	/** Command description — not shown (part 8): Telegram's 1–256 characters. */
	commandDescription: { min: 1, max: 256 },
	/** Commands in one list — not shown (part 8): Telegram's at most 100. */
	commandsPerList: { max: 100 },
} as const;

/** Parts 6.2 and 8: a webhook URL is HTTPS on one of these ports. */
export const WEBHOOK_PORTS: readonly number[] = [443, 80, 8080, 8443];

/**
 * Part 2, InlineKeyboardButton `url`: `https://`, `http://` or "the service's own application
 * scheme". That scheme is named with the neutral word the document uses for the service (as in the
 * `X-Service-Bot-Api-Secret-Token` header of part 5): `service:`.
 */
export const BUTTON_URL_SCHEMES: readonly string[] = ['https:', 'http:', 'service:'];

// ---------------------------------------------------------------- values of parts 2, 4 and 6

/** Part 4.1, sendMessage `parse_mode`. */
export const PARSE_MODES: readonly string[] = ['HTML', 'Markdown', 'MarkdownV2'];
/** Part 4.1, the media methods' `parse_mode`: `HTML` or `Markdown`. */
export const MEDIA_PARSE_MODES: readonly string[] = ['HTML', 'Markdown'];

/** Part 4.1, sendChatAction: the allowed action values, in the document's order. */
export const CHAT_ACTIONS: readonly string[] = [
	'typing',
	'upload_photo',
	'record_video',
	'upload_video',
	'record_voice',
	'upload_voice',
	'upload_document',
	'choose_sticker',
	'find_location',
];

/** Part 6: the update types (others: not shown). */
export const UPDATE_TYPES: readonly string[] = ['message', 'callback_query'];

// ---------------------------------------------------------------- part 4: methods

/** The resources the methods are grouped in (the README's grouping of part 4's sections). */
export type Resource = 'message' | 'chat' | 'callback' | 'bot' | 'webhook' | 'update';
export const RESOURCES: readonly Resource[] = ['message', 'chat', 'callback', 'bot', 'webhook', 'update'];

/** What a parameter's value is, in the document's words. */
export type ValueKind =
	/** A chat UUID, or a public username starting with `@` (part 1.5). */
	| 'chat'
	/** A user or media UUID (parts 1.5 and 2, "Media reference"). */
	| 'uuid'
	/** A message identifier: an integer sequence number, so from 1 (part 1.5). */
	| 'messageId'
	/** An integer, within `min`/`max` where given. */
	| 'integer'
	| 'boolean'
	/** A string of `min` to `max` characters where given. */
	| 'text'
	/** One of `parseModes`. */
	| 'parseMode'
	/** An array of MessageEntity (fields not shown: Telegram's `type`, `offset`, `length`). */
	| 'entities'
	/** Inline keyboard, reply keyboard, keyboard removal or force reply (part 2). */
	| 'replyMarkup'
	/** An inline keyboard only. */
	| 'inlineKeyboard'
	/** One of CHAT_ACTIONS. */
	| 'chatAction'
	/** A URL to open: `http(s)://` with a host. */
	| 'url'
	/** A webhook URL: HTTPS on one of WEBHOOK_PORTS (parts 4.5, 5.4, 6.2). */
	| 'webhookUrl'
	/** LIMITS.secretToken. */
	| 'secretToken'
	/** An array of UPDATE_TYPES. */
	| 'updateTypes'
	/** A language code (format not shown: Telegram's ISO 639 code). */
	| 'languageCode'
	/** An array of BotCommand {command, description} (limits in LIMITS, Telegram's). */
	| 'commands';

export interface WireParam {
	/** The name in the JSON payload. */
	readonly name: string;
	readonly kind: ValueKind;
	readonly required: boolean;
	/** Characters for text, the value for integers. */
	readonly min?: number;
	readonly max?: number;
	/** For `parseMode`. */
	readonly parseModes?: readonly string[];
	/** Not in the document (or its required status is not): Telegram's convention. */
	readonly telegram?: true;
	/**
	 * An ID the service issues (a String whose form the document does not show): Telegram's are
	 * tokens without whitespace, braces or `$`, so a value holding one is what an expression left
	 * (the node refuses it before sending, from version 4).
	 */
	readonly issuedId?: true;
}

export interface SpecMethod {
	readonly name: string;
	readonly resource: Resource;
	/** The part of the document that describes it. */
	readonly section: string;
	/** Only reads: calling it twice cannot act twice (what may be retried after a network error). */
	readonly readsOnly: boolean;
	readonly params: readonly WireParam[];
}

const param = (name: string, kind: ValueKind, required: boolean, extra: Partial<WireParam> = {}): WireParam => ({
	name,
	kind,
	required,
	...extra,
});
const telegram = { telegram: true } as const;

const chatId = param('chat_id', 'chat', true);
const messageId = param('message_id', 'messageId', true);
const replyTo = (extra: Partial<WireParam> = {}): WireParam => param('reply_to_message_id', 'messageId', false, extra);
const silent = (extra: Partial<WireParam> = {}): WireParam => param('disable_notification', 'boolean', false, extra);
/** Part 4.4: the document shows `language_code` only for setMyCommands, getMyCommands and deleteMyCommands. */
const language = (extra: Partial<WireParam> = {}): WireParam => param('language_code', 'languageCode', false, extra);

/**
 * Part 4.1, media: "sendPhoto is the documented form"; the media parameter names of sendVideo,
 * sendDocument and sendVoice are not shown (Telegram: `video`, `document`, `voice`), nor is
 * `disable_notification` (Telegram has it on every send).
 */
const media = (name: string, field: string): SpecMethod => ({
	name,
	resource: 'message',
	section: '4.1',
	readsOnly: false,
	params: [
		chatId,
		param(field, 'uuid', true, field === 'photo' ? {} : telegram),
		param('caption', 'text', false, { max: LIMITS.caption.max }),
		param('parse_mode', 'parseMode', false, { parseModes: MEDIA_PARSE_MODES }),
		replyTo(),
		silent(telegram),
		param('reply_markup', 'replyMarkup', false),
	],
});

/** Part 4: the 33 methods, in the document's order. */
export const METHODS: readonly SpecMethod[] = [
	// 4.1 Messages
	{
		name: 'sendMessage',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			chatId,
			param('text', 'text', true, LIMITS.messageText),
			param('parse_mode', 'parseMode', false, { parseModes: PARSE_MODES }),
			param('entities', 'entities', false),
			replyTo(),
			silent(),
			param('reply_markup', 'replyMarkup', false),
		],
	},
	media('sendPhoto', 'photo'),
	media('sendVideo', 'video'),
	media('sendDocument', 'document'),
	media('sendVoice', 'voice'),
	{
		// "Its parameters: not shown": Telegram's.
		name: 'forwardMessage',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			param('chat_id', 'chat', true, telegram),
			param('from_chat_id', 'chat', true, telegram),
			param('message_id', 'messageId', true, telegram),
			silent(telegram),
		],
	},
	{
		// chat_id, from_chat_id, message_id and caption are shown, their required status is not
		// (Telegram: the first three are required). "A new caption and a new reply markup may be given":
		// any of the four markups, as on a send.
		name: 'copyMessage',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			param('chat_id', 'chat', true, telegram),
			param('from_chat_id', 'chat', true, telegram),
			param('message_id', 'messageId', true, telegram),
			param('caption', 'text', false, { max: LIMITS.caption.max }),
			param('parse_mode', 'parseMode', false, { parseModes: PARSE_MODES, ...telegram }),
			replyTo(telegram),
			silent(telegram),
			param('reply_markup', 'replyMarkup', false),
		],
	},
	{
		// Shown: chat_id, message_id, text, reply_markup ("New inline keyboard"); required status and
		// parse_mode: not shown (Telegram: the three identifying fields are required).
		name: 'editMessageText',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			param('chat_id', 'chat', true, telegram),
			param('message_id', 'messageId', true, telegram),
			param('text', 'text', true, { ...LIMITS.messageText, ...telegram }),
			param('parse_mode', 'parseMode', false, { parseModes: PARSE_MODES, ...telegram }),
			param('reply_markup', 'inlineKeyboard', false),
		],
	},
	{
		// "Its parameters: not shown": Telegram's.
		name: 'editMessageCaption',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			param('chat_id', 'chat', true, telegram),
			param('message_id', 'messageId', true, telegram),
			param('caption', 'text', false, { max: LIMITS.caption.max, ...telegram }),
			param('parse_mode', 'parseMode', false, { parseModes: PARSE_MODES, ...telegram }),
			param('reply_markup', 'inlineKeyboard', false, telegram),
		],
	},
	{
		// "Updates or removes the inline keyboard"; parameters not shown: Telegram's.
		name: 'editMessageReplyMarkup',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [
			param('chat_id', 'chat', true, telegram),
			param('message_id', 'messageId', true, telegram),
			param('reply_markup', 'inlineKeyboard', false, telegram),
		],
	},
	{
		name: 'deleteMessage',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [param('chat_id', 'chat', true, telegram), param('message_id', 'messageId', true, telegram)],
	},
	{
		// The action values are shown, the payload field names are not: Telegram's `chat_id`, `action`.
		name: 'sendChatAction',
		resource: 'message',
		section: '4.1',
		readsOnly: false,
		params: [param('chat_id', 'chat', true, telegram), param('action', 'chatAction', true, telegram)],
	},
	// 4.2 Chats and members. The table shows payloads, not required status: the identifying fields
	// are required and the flag optional, as in Telegram.
	{ name: 'getChat', resource: 'chat', section: '4.2', readsOnly: true, params: [chatId] },
	{
		name: 'getChatMember',
		resource: 'chat',
		section: '4.2',
		readsOnly: true,
		params: [chatId, param('user_id', 'uuid', true)],
	},
	{ name: 'getChatAdministrators', resource: 'chat', section: '4.2', readsOnly: true, params: [chatId] },
	{ name: 'getChatMemberCount', resource: 'chat', section: '4.2', readsOnly: true, params: [chatId] },
	{
		name: 'pinChatMessage',
		resource: 'chat',
		section: '4.2',
		readsOnly: false,
		params: [chatId, messageId, silent()],
	},
	{ name: 'unpinChatMessage', resource: 'chat', section: '4.2', readsOnly: false, params: [chatId, messageId] },
	{ name: 'unpinAllChatMessages', resource: 'chat', section: '4.2', readsOnly: false, params: [chatId] },
	// 4.3 Callback answers
	{
		name: 'answerCallbackQuery',
		resource: 'callback',
		section: '4.3',
		readsOnly: false,
		params: [
			param('callback_query_id', 'text', true, { min: 1, issuedId: true, telegram: true }),
			param('text', 'text', false, LIMITS.callbackAnswerText),
			param('show_alert', 'boolean', false),
			param('url', 'url', false),
			// A cache duration in seconds: not negative.
			param('cache_time', 'integer', false, { min: 0 }),
		],
	},
	// 4.4 Bot profile and commands
	{
		name: 'setMyName',
		resource: 'bot',
		section: '4.4',
		readsOnly: false,
		params: [param('name', 'text', true, LIMITS.botName), language(telegram)],
	},
	{ name: 'getMyName', resource: 'bot', section: '4.4', readsOnly: true, params: [language(telegram)] },
	{
		name: 'setMyDescription',
		resource: 'bot',
		section: '4.4',
		readsOnly: false,
		params: [param('description', 'text', true, LIMITS.botDescription), language(telegram)],
	},
	{ name: 'getMyDescription', resource: 'bot', section: '4.4', readsOnly: true, params: [language(telegram)] },
	{
		name: 'setMyShortDescription',
		resource: 'bot',
		section: '4.4',
		readsOnly: false,
		params: [param('short_description', 'text', true, LIMITS.botShortDescription), language(telegram)],
	},
	{ name: 'getMyShortDescription', resource: 'bot', section: '4.4', readsOnly: true, params: [language(telegram)] },
	{
		name: 'setMyCommands',
		resource: 'bot',
		section: '4.4',
		readsOnly: false,
		params: [param('commands', 'commands', true), language()],
	},
	{ name: 'getMyCommands', resource: 'bot', section: '4.4', readsOnly: true, params: [language()] },
	{ name: 'deleteMyCommands', resource: 'bot', section: '4.4', readsOnly: false, params: [language()] },
	// 4.5 Webhook management
	{
		name: 'setWebhook',
		resource: 'webhook',
		section: '4.5',
		readsOnly: false,
		params: [
			param('url', 'webhookUrl', true),
			param('secret_token', 'secretToken', false, { min: LIMITS.secretToken.min, max: LIMITS.secretToken.max }),
			param('drop_pending_updates', 'boolean', false),
			param('max_connections', 'integer', false, { min: LIMITS.maxConnections.min, max: LIMITS.maxConnections.max }),
			param('allowed_updates', 'updateTypes', false),
		],
	},
	{ name: 'getWebhookInfo', resource: 'webhook', section: '4.5', readsOnly: true, params: [] },
	{
		// "Its parameters and result: not shown beyond that effect": Telegram's drop_pending_updates.
		name: 'deleteWebhook',
		resource: 'webhook',
		section: '4.5',
		readsOnly: false,
		params: [param('drop_pending_updates', 'boolean', false, telegram)],
	},
	// 4.6 Long polling
	{
		// Reads: an offset acknowledges older updates, and the same call repeated returns the same ones.
		name: 'getUpdates',
		resource: 'update',
		section: '4.6',
		readsOnly: true,
		params: [
			param('offset', 'integer', false),
			param('limit', 'integer', false, { min: LIMITS.updatesLimit.min, max: LIMITS.updatesLimit.max }),
			param('timeout', 'integer', false, { min: LIMITS.updatesTimeout.min, max: LIMITS.updatesTimeout.max }),
			param('allowed_updates', 'updateTypes', false),
		],
	},
];

export function specMethod(name: string): SpecMethod {
	const found = METHODS.find((method) => method.name === name);
	if (!found) throw new Error(`the spec has no method ${name}`);
	return found;
}

// ---------------------------------------------------------------- files users send: Telegram's convention

/**
 * Files users send — not shown (part 2: "other fields of a message (media, entities, …): not shown";
 * no download endpoint): Telegram's convention, which the service follows. A message carries one of
 * `photo` (its sizes, smallest first), `document`, `voice`, `video`, with an optional `caption`;
 * `getFile` with a `file_id` answers a File (`file_id`, `file_unique_id`, `file_size`, `file_path`),
 * and the bytes are at `{base URL}/file/bot<token>/<file_path>`, for files up to 20 MB.
 */
export const FILES = {
	/** Telegram: the message fields that carry a file, one per message. */
	mediaFields: ['photo', 'document', 'voice', 'video'],
	/** Telegram: the method that gives a file's path (it only reads). */
	method: 'getFile',
	/** The README's grouping: Get File under a resource of its own. */
	resource: 'file',
	/** Telegram: what getFile answers. */
	fileFields: ['file_id', 'file_unique_id', 'file_size', 'file_path'],
	/** Telegram: bots download files of up to 20 MB; getFile refuses larger ones ("file is too big"). */
	downloadBytes: { max: 20 * 1024 * 1024 },
	/** Telegram: photos are JPEG (its clients convert what users send). */
	photoMimeType: 'image/jpeg',
} as const;

// ---------------------------------------------------------------- where the document leaves room

/**
 * The package's own input rules where the document is silent, each stated in the README
 * ("Service Bot" → Fields) or below with its reason. Tests expect exactly these verdicts.
 */
export const PACKAGE_RULES = {
	/**
	 * A public username: `@`, then letters, digits and `_` (Telegram's characters). Its length is not
	 * shown and the service decides whether a name exists, so any length from 1 to 64 is let through.
	 */
	username: /^@[A-Za-z0-9_]{1,64}$/,
	/**
	 * A language code: Telegram's two-letter ISO 639-1 code, let through also as a three-letter code
	 * and with region or script subtags (`pt-br`, `zh_Hans`), which Telegram-compatible services send.
	 */
	languageCode: /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/,
	/**
	 * Call Method's method name: it becomes a path segment, so a letter, then letters, digits and
	 * `_`, up to 64 characters; nothing that could leave the `/bot<token>/` path.
	 */
	methodName: /^[A-Za-z][A-Za-z0-9_]{0,63}$/,
	/**
	 * Whole numbers that arrive as text from an expression: optional sign, decimal digits, and
	 * surrounding whitespace (the text n8n shows a user is the number they mean).
	 */
	integerText: /^\s*[-+]?\d+\s*$/,
	/**
	 * Webhook URLs on these hosts skip the HTTPS and port rules, so that a local service (such as
	 * the emulator) can be used; the service itself decides whether it accepts them.
	 */
	localWebhookHosts: ['localhost', '127.0.0.1', '[::1]'] as readonly string[],
	/**
	 * From node version 2, these texts need a value, and removing the text is an explicit choice
	 * ("<Field> Action: Remove"): an empty field used to erase a caption or description silently.
	 */
	explicitRemoval: { editMessageCaption: 'caption', setMyDescription: 'description', setMyShortDescription: 'short_description' } as Readonly<
		Record<string, string>
	>,
	/**
	 * A keyboard given as JSON that gives nothing (null, empty text, `[]`, `{}`) sends no markup, so
	 * one node can send some items with buttons and some without.
	 */
	noKeyboardJson: [null, '', [], {}] as readonly unknown[],
} as const;

