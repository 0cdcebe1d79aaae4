/**
 * Wire types of the emulated Bot API (Telegram-Bot-API-like shapes, UUID ids).
 * Written from /work/shared/spec/bot-api.md only.
 */

export type ChatType = 'private' | 'group' | 'channel';
export type MemberStatus = 'creator' | 'administrator' | 'member' | 'left';
export type MediaKind = 'photo' | 'video' | 'document' | 'voice';
export type UpdateType = 'message' | 'callback_query';

export interface User {
	id: string;
	is_bot: boolean;
	first_name: string;
	username?: string;
}

/** Chat object as embedded in a Message. */
export interface MessageChat {
	id: string;
	type: ChatType;
	title?: string;
	username?: string;
	first_name?: string;
}

/** Result of getChat. */
export interface ChatInfo {
	id: string;
	type: ChatType;
	title?: string;
	username?: string;
	first_name?: string;
	description?: string;
	members_count: number;
}

export interface ChatMember {
	user: User;
	status: MemberStatus;
	is_anonymous: boolean;
}

/**
 * A file in a message. What the bot sent: `file_id`, `file_unique_id`, `file_name` (documents and
 * videos), `mime_type` (all but photos), `file_size` when known. What a user sent also has Telegram's
 * `width`/`height` (video) and `duration` (video, voice).
 */
export interface MediaRef {
	file_id: string;
	file_unique_id: string;
	width?: number;
	height?: number;
	duration?: number;
	file_name?: string;
	mime_type?: string;
	file_size?: number;
}

/** One size of a photo a user sent (Telegram's PhotoSize): `message.photo` is an array of them, smallest first. */
export interface PhotoSize {
	file_id: string;
	file_unique_id: string;
	width: number;
	height: number;
	file_size: number;
}

/** The result of getFile (Telegram's File): `file_path` is where `{base}/file/bot<token>/<file_path>` serves the bytes. */
export interface FileInfo {
	file_id: string;
	file_unique_id: string;
	file_size: number;
	file_path: string;
}

export interface InlineKeyboardButton {
	text: string;
	callback_data?: string;
	url?: string;
	switch_inline_query?: string;
}

export interface InlineKeyboardMarkup {
	inline_keyboard: InlineKeyboardButton[][];
}

export interface KeyboardButton {
	text: string;
}

export interface ReplyKeyboardMarkup {
	keyboard: KeyboardButton[][];
	resize_keyboard?: boolean;
	one_time_keyboard?: boolean;
	selective?: boolean;
	input_field_placeholder?: string;
	is_persistent?: boolean;
}

export interface ReplyKeyboardRemove {
	remove_keyboard: true;
	selective?: boolean;
}

export interface ForceReply {
	force_reply: true;
	selective?: boolean;
	input_field_placeholder?: string;
}

export type ReplyMarkup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove | ForceReply;

export type MessageEntity = Record<string, unknown>;

export type MessageOrigin =
	| { type: 'user'; date: number; sender_user: User }
	| { type: 'channel'; date: number; chat: MessageChat; message_id: number };

export interface Message {
	message_id: number;
	date: number;
	chat: MessageChat;
	from: User;
	text?: string;
	entities?: MessageEntity[];
	caption?: string;
	caption_entities?: MessageEntity[];
	/** an object when the bot sent the photo; the array of sizes (smallest first, the original last) when a user did */
	photo?: MediaRef | PhotoSize[];
	video?: MediaRef;
	document?: MediaRef;
	voice?: MediaRef;
	reply_markup?: InlineKeyboardMarkup;
	reply_to_message?: Message;
	forward_origin?: MessageOrigin;
	forward_from?: User;
	forward_from_chat?: MessageChat;
	forward_from_message_id?: number;
	forward_date?: number;
	edit_date?: number;
}

/** Telegram's stand-in for a message a click comes from when its content is no longer given (date 0). */
export interface InaccessibleMessage {
	message_id: number;
	date: 0;
	chat: { id: string; type: string };
}

export interface CallbackQuery {
	id: string;
	from: User;
	message: Message | InaccessibleMessage;
	chat_instance: string;
	data: string;
}

export interface Update {
	update_id: number;
	message?: Message;
	callback_query?: CallbackQuery;
}

/**
 * A message as the chat's users see it (returned by `history()`): deleted messages are gone,
 * edits are applied; carries any kind of reply_markup and emulator-side details.
 */
export interface StoredMessage extends Omit<Message, 'reply_markup' | 'reply_to_message'> {
	reply_markup?: ReplyMarkup;
	reply_to_message_id?: number;
	parse_mode?: string;
	disable_notification?: boolean;
	pinned: boolean;
	/** true when the sender is a bot */
	sent_by_bot: boolean;
	/**
	 * Where the chat page opens the message's file: `/_emulator/media/<file_id>` (control API, never a
	 * path with the bot token; for a user's photo, the original); only when the emulator keeps the
	 * file's bytes (uploads, files users sent, media added with content).
	 */
	media_url?: string;
}

export interface BotCommand {
	command: string;
	description: string;
}

export interface WebhookInfo {
	url: string;
	has_custom_certificate: boolean;
	pending_update_count: number;
	last_error_date?: number;
	last_error_message?: string;
	last_error: null | { date: number; message: string };
	max_connections?: number;
	allowed_updates?: string[];
}

export interface CallbackAnswer {
	callback_query_id: string;
	text?: string;
	show_alert: boolean;
	url?: string;
	cache_time?: number;
	at: number;
}

export interface ChatActionRecord {
	chatId: string;
	botId: string;
	action: string;
	at: number;
}

/**
 * A chat action as a client shows it now: from sendChatAction until the bot's next message in the
 * chat or `until` (Telegram's convention: 5 seconds at most), whichever comes first.
 */
export interface CurrentChatAction {
	botId: string;
	/** the bot's name as its users see it (setMyName changes it) */
	botName: string;
	action: string;
	/** what a client shows under the chat, e.g. "Demo Bot is typing…" */
	text: string;
	/** milliseconds since the epoch: when sendChatAction was received, and when the action ends at the latest */
	at: number;
	until: number;
}

/** What the chat page polls: the chat's messages (as `history()`) and the actions showing now. */
export interface ChatState {
	messages: StoredMessage[];
	actions: CurrentChatAction[];
}
