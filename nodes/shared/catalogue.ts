/**
 * The catalogue of the service's Bot API: every method of the spec with its resource, verbs,
 * parameters and limits. It is the single source of truth for both nodes: the action node builds
 * its fields from it, validation checks against it, and the transport reads `readOnly` to decide
 * what may be retried. Where the spec says "not shown", the Telegram Bot API's convention is used
 * and marked `convention` so readers know it is not from the spec.
 */
import { LIMITS, UPDATE_TYPES } from './spec';

export { LIMITS, UPDATE_TYPES };

/** URL schemes an inline button may open: the web ones and the service's own application scheme. */
export const BUTTON_URL_SCHEMES = ['https:', 'http:', 'service:'] as const;

export const PARSE_MODES = ['HTML', 'Markdown', 'MarkdownV2'] as const;

export const CHAT_ACTIONS = [
	'typing',
	'upload_photo',
	'record_video',
	'upload_video',
	'record_voice',
	'upload_voice',
	'upload_document',
	'choose_sticker',
	'find_location',
] as const;

export const CHAT_MEMBER_STATUSES = ['creator', 'administrator', 'member', 'left'] as const;

export type Resource = 'message' | 'chat' | 'callback' | 'bot' | 'webhook' | 'update';

/**
 * Parameter kinds. Each maps to one field type in the node and one check in validation.
 * - chatId: chat UUID or public `@username`
 * - userId / mediaId: UUID
 * - integer: whole number, optionally bounded
 * - text: string with an optional length bound (UTF-16 units)
 * - replyMarkup: any of the four markups; inlineMarkup: inline keyboard only
 */
export type ParamKind =
	| 'chatId'
	| 'userId'
	| 'mediaId'
	| 'messageId'
	| 'text'
	| 'integer'
	| 'boolean'
	| 'parseMode'
	| 'entities'
	| 'replyMarkup'
	| 'inlineMarkup'
	| 'chatAction'
	| 'url'
	| 'secretToken'
	| 'updateTypes'
	| 'commands'
	| 'languageCode';

export interface ParamSpec {
	/** Wire name, as sent in the JSON payload. */
	readonly name: string;
	readonly kind: ParamKind;
	readonly required: boolean;
	readonly displayName: string;
	readonly description: string;
	/** Inclusive bounds: characters for text, value for integers. */
	readonly min?: number;
	readonly max?: number;
	/** The value the service assumes when the parameter is absent. */
	readonly serviceDefault?: number | boolean;
	/** True when the spec does not show this parameter and Telegram's convention supplies it. */
	readonly convention?: boolean;
	/** For option-like kinds (parseMode): the values this method accepts, when fewer than all. */
	readonly values?: readonly string[];
}

/** What a method's `result` is, so the node can shape useful output items. */
export type ResultShape =
	| 'message'
	| 'messageId'
	| 'true'
	| 'chat'
	| 'chatMember'
	| 'chatMembers'
	| 'count'
	| 'botName'
	| 'botDescription'
	| 'botShortDescription'
	| 'commands'
	| 'webhookInfo'
	| 'updates';

export type HttpVerb = 'POST' | 'GET';

export interface MethodSpec {
	readonly name: string;
	readonly resource: Resource;
	readonly displayName: string;
	/** Sentence shown in the node's action list and read by AI agents. */
	readonly action: string;
	readonly description: string;
	readonly verbs: readonly HttpVerb[];
	/** Reads only: a retry after a network error or 5xx cannot act twice. */
	readonly readOnly: boolean;
	readonly params: readonly ParamSpec[];
	readonly result: ResultShape;
	/**
	 * For methods whose result is `true`: the key of the object the action node outputs instead,
	 * e.g. `deleted` → `{ "deleted": true }` (n8n's UX guideline for deletes).
	 */
	readonly resultFlag?: string;
}

const p = (spec: ParamSpec): ParamSpec => spec;

const chatId = (description = 'Chat UUID or public username starting with @'): ParamSpec =>
	p({ name: 'chat_id', kind: 'chatId', required: true, displayName: 'Chat', description });
const messageId = (description: string, required = true): ParamSpec =>
	p({ name: 'message_id', kind: 'messageId', required, displayName: 'Message ID', description, min: 1 });
const parseMode = (convention = false, values?: readonly string[]): ParamSpec =>
	p({
		name: 'parse_mode',
		kind: 'parseMode',
		required: false,
		displayName: 'Parse Mode',
		description: 'How the service formats the text; None sends it as plain text',
		convention,
		...(values ? { values } : {}),
	});
const disableNotification = (convention = false): ParamSpec =>
	p({
		name: 'disable_notification',
		kind: 'boolean',
		required: false,
		displayName: 'Disable Notification',
		description: 'Whether to send silently, with no alert sound',
		convention,
	});
const replyTo = (convention = false): ParamSpec =>
	p({
		name: 'reply_to_message_id',
		kind: 'messageId',
		required: false,
		displayName: 'Reply To Message ID',
		description: 'Sequence number of the message to reply to',
		min: 1,
		convention,
	});
const replyMarkup = (convention = false): ParamSpec =>
	p({
		name: 'reply_markup',
		kind: 'replyMarkup',
		required: false,
		displayName: 'Reply Markup',
		description: 'Inline keyboard, reply keyboard, keyboard removal or force reply',
		convention,
	});
const inlineMarkup = (convention = false): ParamSpec =>
	p({
		name: 'reply_markup',
		kind: 'inlineMarkup',
		required: false,
		displayName: 'Inline Keyboard',
		description: 'Inline keyboard attached to the message',
		convention,
	});
const caption = (convention = false): ParamSpec =>
	p({
		name: 'caption',
		kind: 'text',
		required: false,
		displayName: 'Caption',
		description: 'Caption of the media',
		max: LIMITS.caption.max,
		convention,
	});
const languageCode = (description: string): ParamSpec =>
	p({
		name: 'language_code',
		kind: 'languageCode',
		required: false,
		displayName: 'Language Code',
		description,
	});

const mediaMethod = (
	name: string,
	field: string,
	noun: string,
	displayName: string,
	convention: boolean,
): MethodSpec => ({
	name,
	resource: 'message',
	displayName,
	action: `Send a ${noun}`,
	description: `Sends a ${noun} already uploaded to the service's media storage`,
	verbs: ['POST'],
	readOnly: false,
	params: [
		chatId(),
		p({
			name: field,
			kind: 'mediaId',
			required: true,
			displayName: `${field.charAt(0).toUpperCase()}${field.slice(1)} ID`,
			description: `UUID of the uploaded ${noun} file`,
			convention,
		}),
		caption(),
		// Spec 4.1: the media methods take `HTML` or `Markdown`.
		parseMode(false, ['HTML', 'Markdown']),
		replyTo(),
		disableNotification(true),
		replyMarkup(),
	],
	result: 'message',
});

export const METHODS = [
	// 4.1 Messages
	{
		name: 'sendMessage',
		resource: 'message',
		displayName: 'Send Message',
		action: 'Send a text message',
		description: 'Sends a text message, optionally with a keyboard',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId(),
			p({
				name: 'text',
				kind: 'text',
				required: true,
				displayName: 'Text',
				description: 'Text of the message',
				min: 1,
				max: LIMITS.messageText.max,
			}),
			parseMode(),
			p({
				name: 'entities',
				kind: 'entities',
				required: false,
				displayName: 'Entities',
				description: 'Formatting entities as a JSON array, used instead of a parse mode',
			}),
			replyTo(),
			disableNotification(),
			replyMarkup(),
		],
		result: 'message',
	},
	mediaMethod('sendPhoto', 'photo', 'photo', 'Send Photo', false),
	mediaMethod('sendVideo', 'video', 'video', 'Send Video', true),
	mediaMethod('sendDocument', 'document', 'document', 'Send Document', true),
	mediaMethod('sendVoice', 'voice', 'voice note', 'Send Voice', true),
	{
		name: 'forwardMessage',
		resource: 'message',
		displayName: 'Forward Message',
		action: 'Forward a message',
		description: 'Forwards a message and keeps the original sender attribution',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId('Destination chat UUID or public username starting with @'),
			p({
				name: 'from_chat_id',
				kind: 'chatId',
				required: true,
				displayName: 'From Chat',
				description: 'Chat the message is in',
				convention: true,
			}),
			messageId('Sequence number of the message to forward'),
			disableNotification(true),
		],
		result: 'message',
	},
	{
		name: 'copyMessage',
		resource: 'message',
		displayName: 'Copy Message',
		action: 'Copy a message',
		description: 'Copies a text or media message without a forward header',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId('Destination chat UUID or public username starting with @'),
			p({
				name: 'from_chat_id',
				kind: 'chatId',
				required: true,
				displayName: 'From Chat',
				description: 'Chat the message is in',
			}),
			messageId('Sequence number of the message to copy'),
			caption(),
			parseMode(true),
			replyTo(true),
			disableNotification(true),
			inlineMarkup(),
		],
		result: 'messageId',
	},
	{
		name: 'editMessageText',
		resource: 'message',
		displayName: 'Edit Message Text',
		action: 'Edit the text of a message',
		description: 'Replaces the text of a message the bot sent',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId(),
			messageId('Sequence number of the message to edit'),
			p({
				name: 'text',
				kind: 'text',
				required: true,
				displayName: 'Text',
				description: 'New text of the message',
				min: 1,
				max: LIMITS.messageText.max,
			}),
			parseMode(true),
			inlineMarkup(),
		],
		result: 'message',
	},
	{
		name: 'editMessageCaption',
		resource: 'message',
		displayName: 'Edit Message Caption',
		action: 'Edit the caption of a message',
		description: 'Replaces the caption of a media message the bot sent',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId(),
			messageId('Sequence number of the message to edit'),
			caption(true),
			parseMode(true),
			inlineMarkup(true),
		],
		result: 'message',
	},
	{
		name: 'editMessageReplyMarkup',
		resource: 'message',
		displayName: 'Edit Message Reply Markup',
		action: 'Edit the inline keyboard of a message',
		description: 'Replaces or removes the inline keyboard of a message without changing its text',
		verbs: ['POST'],
		readOnly: false,
		params: [chatId(), messageId('Sequence number of the message to edit'), inlineMarkup(true)],
		result: 'message',
	},
	{
		name: 'deleteMessage',
		resource: 'message',
		displayName: 'Delete Message',
		action: 'Delete a message',
		description: 'Deletes a message from a chat',
		verbs: ['POST'],
		readOnly: false,
		params: [chatId(), messageId('Sequence number of the message to delete')],
		result: 'true',
		resultFlag: 'deleted',
	},
	{
		name: 'sendChatAction',
		resource: 'message',
		displayName: 'Send Chat Action',
		action: 'Send a chat action such as typing',
		description: 'Shows a temporary status such as "typing" to the chat',
		verbs: ['POST'],
		readOnly: false,
		params: [
			chatId(),
			p({
				name: 'action',
				kind: 'chatAction',
				required: true,
				displayName: 'Action',
				description: 'Status to show',
				convention: true,
			}),
		],
		result: 'true',
		resultFlag: 'sent',
	},
	// 4.2 Chats and members
	{
		name: 'getChat',
		resource: 'chat',
		displayName: 'Get Chat',
		action: 'Get a chat',
		description: 'Returns the chat: ID, type, title, description and member count',
		verbs: ['POST'],
		readOnly: true,
		params: [chatId()],
		result: 'chat',
	},
	{
		name: 'getChatMember',
		resource: 'chat',
		displayName: 'Get Chat Member',
		action: 'Get a member of a chat',
		description: "Returns a member's status in a chat",
		verbs: ['POST'],
		readOnly: true,
		params: [
			chatId(),
			p({
				name: 'user_id',
				kind: 'userId',
				required: true,
				displayName: 'User ID',
				description: 'UUID of the user',
			}),
		],
		result: 'chatMember',
	},
	{
		name: 'getChatAdministrators',
		resource: 'chat',
		displayName: 'Get Chat Administrators',
		action: 'Get the administrators of a chat',
		description: 'Returns the creator and administrators of a chat, one item each',
		verbs: ['POST'],
		readOnly: true,
		params: [chatId()],
		result: 'chatMembers',
	},
	{
		name: 'getChatMemberCount',
		resource: 'chat',
		displayName: 'Get Chat Member Count',
		action: 'Get the member count of a chat',
		description: 'Returns the number of members of a chat',
		verbs: ['POST'],
		readOnly: true,
		params: [chatId()],
		result: 'count',
	},
	{
		name: 'pinChatMessage',
		resource: 'chat',
		displayName: 'Pin Chat Message',
		action: 'Pin a message in a chat',
		description: 'Pins a message at the top of the chat',
		verbs: ['POST'],
		readOnly: false,
		params: [chatId(), messageId('Sequence number of the message to pin'), disableNotification()],
		result: 'true',
		resultFlag: 'pinned',
	},
	{
		name: 'unpinChatMessage',
		resource: 'chat',
		displayName: 'Unpin Chat Message',
		action: 'Unpin a message in a chat',
		description: 'Unpins one pinned message of the chat',
		verbs: ['POST'],
		readOnly: false,
		params: [chatId(), messageId('Sequence number of the message to unpin')],
		result: 'true',
		resultFlag: 'unpinned',
	},
	{
		name: 'unpinAllChatMessages',
		resource: 'chat',
		displayName: 'Unpin All Chat Messages',
		action: 'Unpin all messages in a chat',
		description: 'Unpins every pinned message of the chat',
		verbs: ['POST'],
		readOnly: false,
		params: [chatId()],
		result: 'true',
		resultFlag: 'unpinned',
	},
	// 4.3 Callback answers
	{
		name: 'answerCallbackQuery',
		resource: 'callback',
		displayName: 'Answer Callback Query',
		action: 'Answer a button click',
		description: 'Dismisses the loading state after a click on an inline button, optionally with a notification',
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'callback_query_id',
				kind: 'text',
				required: true,
				displayName: 'Callback Query ID',
				description: 'The ID of the callback query, from the trigger output',
				min: 1,
			}),
			p({
				name: 'text',
				kind: 'text',
				required: false,
				displayName: 'Text',
				description: 'Notification text shown to the user',
				max: LIMITS.callbackAnswerText.max,
			}),
			p({
				name: 'show_alert',
				kind: 'boolean',
				required: false,
				displayName: 'Show Alert',
				description: 'Whether to show a modal alert instead of a small banner',
			}),
			p({ name: 'url', kind: 'url', required: false, displayName: 'URL', description: 'URL to open on the client' }),
			p({
				name: 'cache_time',
				kind: 'integer',
				required: false,
				displayName: 'Cache Time',
				description: 'How long, in seconds, the client may cache the answer',
				min: 0,
			}),
		],
		result: 'true',
		resultFlag: 'answered',
	},
	// 4.4 Bot profile and commands
	{
		name: 'setMyName',
		resource: 'bot',
		displayName: 'Set My Name',
		action: "Set the bot's name",
		description: "Changes the bot's display name",
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'name',
				kind: 'text',
				required: true,
				displayName: 'Name',
				description: 'New display name',
				min: LIMITS.botName.min,
				max: LIMITS.botName.max,
			}),
			languageCode('Two-letter language code; empty sets the name for every language without its own'),
		],
		result: 'true',
		resultFlag: 'updated',
	},
	{
		name: 'getMyName',
		resource: 'bot',
		displayName: 'Get My Name',
		action: "Get the bot's name",
		description: "Returns the bot's display name",
		verbs: ['POST'],
		readOnly: true,
		params: [languageCode('Two-letter language code; empty returns the default name')],
		result: 'botName',
	},
	{
		name: 'setMyDescription',
		resource: 'bot',
		displayName: 'Set My Description',
		action: "Set the bot's description",
		description: 'Changes the introductory text shown in an empty chat before the bot is started',
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'description',
				kind: 'text',
				required: true,
				displayName: 'Description',
				description: 'New description; empty removes it',
				max: LIMITS.botDescription.max,
			}),
			languageCode('Two-letter language code; empty sets the default description'),
		],
		result: 'true',
		resultFlag: 'updated',
	},
	{
		name: 'getMyDescription',
		resource: 'bot',
		displayName: 'Get My Description',
		action: "Get the bot's description",
		description: 'Returns the introductory text shown in an empty chat',
		verbs: ['POST'],
		readOnly: true,
		params: [languageCode('Two-letter language code; empty returns the default description')],
		result: 'botDescription',
	},
	{
		name: 'setMyShortDescription',
		resource: 'bot',
		displayName: 'Set My Short Description',
		action: "Set the bot's short description",
		description: "Changes the text shown on the bot's profile card",
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'short_description',
				kind: 'text',
				required: true,
				displayName: 'Short Description',
				description: 'New short description; empty removes it',
				max: LIMITS.botShortDescription.max,
			}),
			languageCode('Two-letter language code; empty sets the default short description'),
		],
		result: 'true',
		resultFlag: 'updated',
	},
	{
		name: 'getMyShortDescription',
		resource: 'bot',
		displayName: 'Get My Short Description',
		action: "Get the bot's short description",
		description: "Returns the text shown on the bot's profile card",
		verbs: ['POST'],
		readOnly: true,
		params: [languageCode('Two-letter language code; empty returns the default short description')],
		result: 'botShortDescription',
	},
	{
		name: 'setMyCommands',
		resource: 'bot',
		displayName: 'Set My Commands',
		action: "Set the bot's command list",
		description: 'Sets the slash commands suggested when a user types /',
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'commands',
				kind: 'commands',
				required: true,
				displayName: 'Commands',
				description: 'Commands with their descriptions',
			}),
			languageCode('Two-letter language code; empty sets the default list'),
		],
		result: 'true',
		resultFlag: 'updated',
	},
	{
		name: 'getMyCommands',
		resource: 'bot',
		displayName: 'Get My Commands',
		action: "Get the bot's command list",
		description: 'Returns the registered slash commands, one item each',
		verbs: ['POST'],
		readOnly: true,
		params: [languageCode('Two-letter language code; empty returns the default list')],
		result: 'commands',
	},
	{
		name: 'deleteMyCommands',
		resource: 'bot',
		displayName: 'Delete My Commands',
		action: "Delete the bot's command list",
		description: 'Removes the command list for a language, or the default list',
		verbs: ['POST'],
		readOnly: false,
		params: [languageCode('Two-letter language code; empty deletes the default list')],
		result: 'true',
		resultFlag: 'deleted',
	},
	// 4.5 Webhook management
	{
		name: 'setWebhook',
		resource: 'webhook',
		displayName: 'Set Webhook',
		action: 'Set the webhook',
		description: 'Sets the URL the service pushes updates to. The Service Bot Trigger node does this for you.',
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'url',
				kind: 'url',
				required: true,
				displayName: 'URL',
				description: 'Public HTTPS URL that receives updates (ports 443, 80, 8080 or 8443)',
			}),
			p({
				name: 'secret_token',
				kind: 'secretToken',
				required: false,
				displayName: 'Secret Token',
				description: 'Sent back in the X-Service-Bot-Api-Secret-Token header of every push',
				min: LIMITS.secretToken.min,
				max: LIMITS.secretToken.max,
			}),
			p({
				name: 'drop_pending_updates',
				kind: 'boolean',
				required: false,
				displayName: 'Drop Pending Updates',
				description: 'Whether to drop the undelivered backlog',
			}),
			p({
				name: 'max_connections',
				kind: 'integer',
				required: false,
				displayName: 'Max Connections',
				description: 'Maximum simultaneous connections for pushes',
				min: LIMITS.maxConnections.min,
				max: LIMITS.maxConnections.max,
				serviceDefault: LIMITS.maxConnections.default,
			}),
			p({
				name: 'allowed_updates',
				kind: 'updateTypes',
				required: false,
				displayName: 'Allowed Updates',
				description: 'Update types to push; empty pushes all',
			}),
		],
		result: 'true',
		resultFlag: 'updated',
	},
	{
		name: 'getWebhookInfo',
		resource: 'webhook',
		displayName: 'Get Webhook Info',
		action: 'Get the webhook status',
		description: 'Returns the webhook URL, pending update count and last error',
		verbs: ['GET', 'POST'],
		readOnly: true,
		params: [],
		result: 'webhookInfo',
	},
	{
		name: 'deleteWebhook',
		resource: 'webhook',
		displayName: 'Delete Webhook',
		action: 'Delete the webhook',
		description: 'Removes the webhook so updates can be polled with Get Updates',
		verbs: ['POST'],
		readOnly: false,
		params: [
			p({
				name: 'drop_pending_updates',
				kind: 'boolean',
				required: false,
				displayName: 'Drop Pending Updates',
				description: 'Whether to drop the undelivered backlog',
				convention: true,
			}),
		],
		result: 'true',
		resultFlag: 'deleted',
	},
	// 4.6 Long polling
	{
		name: 'getUpdates',
		resource: 'update',
		displayName: 'Get Updates',
		action: 'Get updates by polling',
		description: 'Returns pending updates, one item each; only works while no webhook is set',
		verbs: ['GET', 'POST'],
		// Reading with an offset acknowledges older updates, but repeating the same call is harmless.
		readOnly: true,
		params: [
			p({
				name: 'offset',
				kind: 'integer',
				required: false,
				displayName: 'Offset',
				description: 'First update to return; last update_id + 1 acknowledges everything before it',
			}),
			p({
				name: 'limit',
				kind: 'integer',
				required: false,
				displayName: 'Limit',
				description: 'Max number of updates to return',
				min: LIMITS.updatesLimit.min,
				max: LIMITS.updatesLimit.max,
				serviceDefault: LIMITS.updatesLimit.default,
			}),
			p({
				name: 'timeout',
				kind: 'integer',
				required: false,
				displayName: 'Timeout',
				description: 'Seconds to wait for an update when none is pending (long polling)',
				min: LIMITS.updatesTimeout.min,
				max: LIMITS.updatesTimeout.max,
				serviceDefault: LIMITS.updatesTimeout.default,
			}),
			p({
				name: 'allowed_updates',
				kind: 'updateTypes',
				required: false,
				displayName: 'Allowed Updates',
				description: 'Update types to receive; empty receives all',
			}),
		],
		result: 'updates',
	},
] as const satisfies readonly MethodSpec[];

export type MethodName = (typeof METHODS)[number]['name'];

export const METHOD_NAMES: readonly MethodName[] = METHODS.map((method) => method.name);

const byName = new Map<string, MethodSpec>(METHODS.map((method) => [method.name, method]));

export function getMethod(name: string): MethodSpec | undefined {
	return byName.get(name);
}

export function isReadOnly(name: string): boolean {
	return byName.get(name)?.readOnly ?? false;
}

export const RESOURCES: ReadonlyArray<{ value: Resource; name: string; description: string }> = [
	{ value: 'message', name: 'Message', description: 'Send, forward, copy, edit and delete messages' },
	{ value: 'chat', name: 'Chat', description: 'Chat info, members and pinned messages' },
	{ value: 'callback', name: 'Callback', description: 'Answer inline button clicks' },
	{ value: 'bot', name: 'Bot', description: "The bot's name, descriptions and commands" },
	{ value: 'webhook', name: 'Webhook', description: 'Where the service pushes updates' },
	{ value: 'update', name: 'Update', description: 'Poll for updates while no webhook is set' },
];

export function methodsOf(resource: Resource): MethodSpec[] {
	return METHODS.filter((method) => method.resource === resource);
}
