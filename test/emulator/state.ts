import { createHash } from 'node:crypto';

import type {
	BotCommand,
	CallbackAnswer,
	ChatActionRecord,
	ChatInfo,
	ChatMember,
	ChatType,
	CurrentChatAction,
	MediaKind,
	MediaRef,
	MemberStatus,
	Message,
	MessageChat,
	MessageEntity,
	MessageOrigin,
	PhotoSize,
	ReplyMarkup,
	StoredMessage,
	Update,
	User,
} from './types';
import {
	FILE_FOLDERS,
	UNKNOWN_PHOTO_SIZE,
	USER_FILE_LIMIT_BYTES,
	colourOf,
	extensionOfType,
	imageSize,
	imageType,
	pathExtension,
	placeholder,
	smallerSizes,
	solidPng,
	typeOfName,
} from './files';
import { isInlineKeyboard } from './markup';
import { ControlError, clone, deterministicTokenSecret, deterministicUuid, nowSeconds } from './util';

export interface DemoData {
	token: string;
	botId: string;
	botUsername: string;
	userId: string;
	otherUserId: string;
	privateChatId: string;
	groupChatId: string;
	groupUsername: string;
	channelChatId: string;
	channelUsername: string;
	foreignChatId: string;
	media: { photo: string; video: string; document: string; voice: string };
}

export interface WebhookState {
	url: string;
	secretToken?: string;
	maxConnections: number;
	allowedUpdates?: string[];
	lastError: null | { date: number; message: string };
	/** bumped at every setWebhook/deleteWebhook so that running push workers notice the change */
	generation: number;
}

/** A waiting getUpdates request (long poll). */
export interface Poller {
	wake(reason: 'update' | 'conflict-webhook' | 'conflict-poll' | 'closed'): void;
}

export interface BotRecord {
	id: string;
	token: string;
	user: User;
	names: Map<string, string>;
	descriptions: Map<string, string>;
	shortDescriptions: Map<string, string>;
	commands: Map<string, BotCommand[]>;
	nextUpdateId: number;
	/** undelivered updates in update_id order */
	pending: Update[];
	/** Telegram semantics: persistent, set by setWebhook / getUpdates; undefined = all types */
	allowedUpdates?: string[];
	webhook: WebhookState | null;
	/** monotonic counter behind WebhookState.generation */
	webhookGeneration: number;
	poller: Poller | null;
	/** the file paths getFile gave this bot (Telegram's are per bot): path → media id, media id → path, and the next number per folder */
	files: { byPath: Map<string, string>; byMedia: Map<string, string>; next: Map<string, number> };
}

export interface ChatRecord {
	id: string;
	type: ChatType;
	title?: string;
	username?: string;
	description?: string;
	members: Map<string, MemberStatus>;
	messages: MessageRecord[];
	nextMessageId: number;
	/** pinned message ids, in pin order (last = most recent) */
	pins: number[];
	/** each bot's latest chat action here, until its next message in the chat (by bot id) */
	actions: Map<string, { action: string; at: number }>;
}

export interface MessageRecord {
	messageId: number;
	date: number;
	fromId: string;
	text?: string;
	entities?: MessageEntity[];
	caption?: string;
	captionEntities?: MessageEntity[];
	/** `sizes`: a user's photo, as Telegram gives it: the ids of its sizes, smallest first, the original (`id`) last */
	media?: { kind: MediaKind; id: string; sizes?: string[] };
	replyMarkup?: ReplyMarkup;
	replyToId?: number;
	forward?: { origin: MessageOrigin; fromUserId?: string; fromChatId?: string; fromMessageId?: number; date: number };
	editDate?: number;
	parseMode?: string;
	disableNotification?: boolean;
	deleted: boolean;
}

export interface MediaRecord {
	id: string;
	kind: MediaKind;
	fileName?: string;
	mimeType?: string;
	/** Uploaded files: their size and SHA-256 (hex). */
	size?: number;
	sha256?: string;
	/** The file's content, for the chat page to open; absent for media registered without content, or dropped (MEDIA_BYTES_KEPT_MAX). */
	bytes?: Buffer;
	/** true once the content was dropped (MEDIA_BYTES_KEPT_MAX): getFile then answers "file is temporarily unavailable" */
	dropped?: boolean;
	/** photos and videos users sent: the stated dimensions; videos and voice: the duration in seconds */
	width?: number;
	height?: number;
	duration?: number;
}

/** A file a user sends (`userSends({ media })`): its kind and content, and what the user's app states about it. */
export interface UserMedia {
	kind: MediaKind;
	bytes: Buffer;
	fileName?: string;
	mimeType?: string;
	/** photos and videos; a photo's are read from its header when not given */
	width?: number;
	height?: number;
	/** videos and voice, in seconds */
	duration?: number;
}

/** A user's message: a text, or a file with an optional caption. */
export interface UserMessage {
	chatId: string;
	userId: string;
	text?: string;
	caption?: string;
	media?: UserMedia;
	botToken?: string;
	replyToMessageId?: number;
}

export interface CallbackRecord {
	id: string;
	botId: string;
	chatId: string;
	messageId: number;
	fromId: string;
	data: string;
	answer?: CallbackAnswer;
}

/** Telegram's convention: a chat action shows for 5 seconds or less (until the bot's next message). */
export const CHAT_ACTION_MS = 5000;

/**
 * The most file content kept at once (four uploads at the 50 MB limit, three files users send at
 * theirs): beyond it the oldest files' bytes are dropped (their messages stay, the page just cannot
 * open them, getFile says the file is temporarily unavailable), so a long session of uploads cannot
 * exhaust the process's memory.
 */
export const MEDIA_BYTES_KEPT_MAX = 200 * 1024 * 1024;

const MIME: Record<MediaKind, { fileName: string; mimeType: string }> = {
	photo: { fileName: 'demo-photo.jpg', mimeType: 'image/jpeg' },
	video: { fileName: 'demo-video.mp4', mimeType: 'video/mp4' },
	document: { fileName: 'demo-document.pdf', mimeType: 'application/pdf' },
	voice: { fileName: 'demo-voice.ogg', mimeType: 'audio/ogg' },
};

/** The emulated service's whole state. Pure data + rules; no HTTP here. */
export class World {
	bots = new Map<string, BotRecord>(); // by token
	botsById = new Map<string, BotRecord>();
	users = new Map<string, User>();
	chats = new Map<string, ChatRecord>();
	media = new Map<string, MediaRecord>();
	callbacks = new Map<string, CallbackRecord>();
	chatActions: ChatActionRecord[] = [];
	demo!: DemoData;
	private counter = 0;
	private callbackCounter = 0;
	/** ids of the media whose bytes are kept, oldest first, and their total size */
	private withBytes: string[] = [];
	private bytesKept = 0;
	/** the generated content of files registered without it, once made (files.ts `placeholder`) */
	private placeholders = new Map<string, { bytes: Buffer; mimeType?: string }>();
	/** called whenever updates were queued for a bot */
	onQueued: (bot: BotRecord) => void = () => undefined;

	constructor() {
		this.seed();
	}

	private nextId(kind: string): string {
		this.counter += 1;
		return deterministicUuid(`${kind}:${this.counter}`);
	}

	reset(): void {
		for (const bot of this.bots.values()) bot.poller?.wake('closed');
		this.bots.clear();
		this.botsById.clear();
		this.users.clear();
		this.chats.clear();
		this.media.clear();
		this.callbacks.clear();
		this.chatActions = [];
		this.counter = 0;
		this.callbackCounter = 0;
		this.withBytes = [];
		this.bytesKept = 0;
		this.placeholders.clear();
		this.seed();
	}

	private seed(): void {
		const token = `7000000001:${deterministicTokenSecret('demo-bot')}`;
		const { botId } = this.addBot({ token, name: 'Demo Bot', username: 'service_demo_bot' });
		const { userId } = this.addUser({ firstName: 'Demo', username: 'demo_user' });
		const { userId: otherUserId } = this.addUser({ firstName: 'Other', username: 'other_user' });
		const { chatId: privateChatId } = this.addChat({
			type: 'private',
			members: [
				{ userId: botId, status: 'member' },
				{ userId, status: 'member' },
			],
		});
		const { chatId: groupChatId } = this.addChat({
			type: 'group',
			title: 'Demo Group',
			username: 'demo_group',
			description: 'The demo group of the Service Bot emulator',
			members: [
				{ userId: otherUserId, status: 'creator' },
				{ userId: botId, status: 'administrator' },
				{ userId, status: 'member' },
			],
		});
		const { chatId: channelChatId } = this.addChat({
			type: 'channel',
			title: 'Demo Channel',
			username: 'demo_channel',
			description: 'The demo channel of the Service Bot emulator',
			members: [
				{ userId: otherUserId, status: 'creator' },
				{ userId: botId, status: 'administrator' },
				{ userId, status: 'member' },
			],
		});
		const { chatId: foreignChatId } = this.addChat({
			type: 'group',
			title: 'Foreign Group',
			username: 'foreign_group',
			members: [
				{ userId: otherUserId, status: 'creator' },
				{ userId, status: 'member' },
			],
		});
		const media = {
			photo: this.addMedia({ kind: 'photo' }).mediaId,
			video: this.addMedia({ kind: 'video' }).mediaId,
			document: this.addMedia({ kind: 'document' }).mediaId,
			voice: this.addMedia({ kind: 'voice' }).mediaId,
		};
		this.demo = {
			token,
			botId,
			botUsername: 'service_demo_bot',
			userId,
			otherUserId,
			privateChatId,
			groupChatId,
			groupUsername: '@demo_group',
			channelChatId,
			channelUsername: '@demo_channel',
			foreignChatId,
			media,
		};
	}

	// ---- entity management (control API) ----

	addBot(opts: { token: string; name?: string; username?: string }): { botId: string } {
		if (typeof opts.token !== 'string' || opts.token.length === 0) throw new ControlError('token must be a non-empty string');
		if (opts.token.includes('/')) throw new ControlError('token must not contain "/"');
		if (this.bots.has(opts.token)) throw new ControlError('a bot with this token exists already');
		const id = this.nextId('bot');
		const user: User = { id, is_bot: true, first_name: opts.name ?? 'Test Bot' };
		user.username = opts.username ?? `bot_${id.slice(0, 8)}_bot`;
		const bot: BotRecord = {
			id,
			token: opts.token,
			user,
			names: new Map(),
			descriptions: new Map(),
			shortDescriptions: new Map(),
			commands: new Map(),
			nextUpdateId: 1,
			pending: [],
			webhook: null,
			webhookGeneration: 0,
			poller: null,
			files: { byPath: new Map(), byMedia: new Map(), next: new Map() },
		};
		this.bots.set(opts.token, bot);
		this.botsById.set(id, bot);
		this.users.set(id, user);
		return { botId: id };
	}

	addUser(opts: { firstName: string; username?: string; isBot?: boolean }): { userId: string } {
		if (typeof opts.firstName !== 'string' || opts.firstName.length === 0) throw new ControlError('firstName must be a non-empty string');
		const id = this.nextId('user');
		const user: User = { id, is_bot: opts.isBot === true, first_name: opts.firstName };
		if (opts.username !== undefined) user.username = opts.username;
		this.users.set(id, user);
		return { userId: id };
	}

	addChat(opts: {
		type: ChatType;
		title?: string;
		username?: string;
		description?: string;
		members: Array<{ userId: string; status: MemberStatus }>;
	}): { chatId: string } {
		if (!['private', 'group', 'channel'].includes(opts.type)) throw new ControlError('type must be private, group or channel');
		if (!Array.isArray(opts.members)) throw new ControlError('members must be an array');
		let username: string | undefined;
		if (opts.username !== undefined && opts.username !== '') {
			if (opts.type === 'private') throw new ControlError('private chats have no public username');
			username = opts.username.replace(/^@/, '');
			if (this.findChatByUsername(username)) throw new ControlError(`username @${username} is taken`);
		}
		const members = new Map<string, MemberStatus>();
		for (const m of opts.members) {
			if (!this.users.has(m.userId)) throw new ControlError(`unknown user ${m.userId}`);
			if (!['creator', 'administrator', 'member', 'left'].includes(m.status)) throw new ControlError(`bad status ${String(m.status)}`);
			members.set(m.userId, m.status);
		}
		const id = this.nextId('chat');
		const chat: ChatRecord = { id, type: opts.type, members, messages: [], nextMessageId: 1, pins: [], actions: new Map() };
		if (opts.type !== 'private') chat.title = opts.title ?? (opts.type === 'group' ? 'Group' : 'Channel');
		if (username) chat.username = username;
		if (opts.description !== undefined) chat.description = opts.description;
		this.chats.set(id, chat);
		return { chatId: id };
	}

	/** A media file; with `bytes`, its content is kept (size and SHA-256 from them) and the chat page can open it. */
	addMedia(opts: {
		kind: MediaKind;
		fileName?: string;
		mimeType?: string;
		size?: number;
		sha256?: string;
		bytes?: Buffer;
		width?: number;
		height?: number;
		duration?: number;
	}): { mediaId: string } {
		if (!['photo', 'video', 'document', 'voice'].includes(opts.kind)) throw new ControlError('kind must be photo, video, document or voice');
		const id = this.nextId(`media-${opts.kind}`);
		const { bytes } = opts;
		const record: MediaRecord = {
			id,
			kind: opts.kind,
			fileName: opts.fileName ?? MIME[opts.kind].fileName,
			mimeType: opts.mimeType ?? MIME[opts.kind].mimeType,
			size: bytes?.length ?? opts.size,
			sha256: opts.sha256 ?? (bytes ? createHash('sha256').update(bytes).digest('hex') : undefined),
		};
		if (opts.width !== undefined) record.width = opts.width;
		if (opts.height !== undefined) record.height = opts.height;
		if (opts.duration !== undefined) record.duration = opts.duration;
		this.media.set(id, record);
		if (bytes) this.keepBytes(id, bytes);
		return { mediaId: id };
	}

	private keepBytes(mediaId: string, bytes: Buffer): void {
		while (this.withBytes.length > 0 && this.bytesKept + bytes.length > MEDIA_BYTES_KEPT_MAX) {
			const oldest = this.media.get(this.withBytes.shift() as string);
			this.bytesKept -= oldest?.bytes?.length ?? 0;
			if (oldest) {
				delete oldest.bytes;
				oldest.dropped = true;
			}
		}
		const record = this.media.get(mediaId) as MediaRecord;
		record.bytes = bytes;
		this.withBytes.push(mediaId);
		this.bytesKept += bytes.length;
	}

	/** The control-API path the chat page opens a file at, when its bytes are kept (never a path with a bot token). */
	mediaUrl(mediaId: string): string | undefined {
		return this.media.get(mediaId)?.bytes ? `/_emulator/media/${encodeURIComponent(mediaId)}` : undefined;
	}

	setMember(chatId: string, userId: string, status: MemberStatus): void {
		const chat = this.chats.get(chatId);
		if (!chat) throw new ControlError(`unknown chat ${chatId}`, 404);
		if (!this.users.has(userId)) throw new ControlError(`unknown user ${userId}`);
		chat.members.set(userId, status);
	}

	findChatByUsername(username: string): ChatRecord | undefined {
		const u = username.replace(/^@/, '').toLowerCase();
		for (const c of this.chats.values()) if (c.username?.toLowerCase() === u) return c;
		return undefined;
	}

	/** Resolves a chat_id (UUID or @username). */
	resolveChat(ref: string): ChatRecord | undefined {
		if (ref.startsWith('@')) return this.findChatByUsername(ref);
		return this.chats.get(ref) ?? this.chats.get(ref.toLowerCase());
	}

	isActiveMember(chat: ChatRecord, userId: string): boolean {
		const s = chat.members.get(userId);
		return s !== undefined && s !== 'left';
	}

	memberCount(chat: ChatRecord): number {
		let n = 0;
		for (const s of chat.members.values()) if (s !== 'left') n += 1;
		return n;
	}

	// ---- views ----

	messageChat(chat: ChatRecord): MessageChat {
		const out: MessageChat = { id: chat.id, type: chat.type };
		if (chat.title !== undefined) out.title = chat.title;
		if (chat.username !== undefined) out.username = chat.username;
		if (chat.type === 'private') {
			const human = [...chat.members.keys()].map((id) => this.users.get(id)).find((u) => u && !u.is_bot);
			if (human) {
				out.first_name = human.first_name;
				if (human.username !== undefined) out.username = human.username;
			}
		}
		return out;
	}

	chatInfo(chat: ChatRecord): ChatInfo {
		const out: ChatInfo = { ...this.messageChat(chat), members_count: this.memberCount(chat) };
		if (chat.description !== undefined) out.description = chat.description;
		return out;
	}

	chatMember(chat: ChatRecord, user: User): ChatMember {
		return { user: clone(user), status: chat.members.get(user.id) ?? 'left', is_anonymous: false };
	}

	/** A file's file_unique_id: the same for the same file, whichever bot or message shows it. */
	uniqueId(mediaId: string): string {
		return deterministicUuid(`unique:${mediaId}`).replace(/-/g, '').slice(0, 16);
	}

	mediaRef(mediaId: string): MediaRef {
		const m = this.media.get(mediaId);
		const out: MediaRef = { file_id: mediaId, file_unique_id: this.uniqueId(mediaId) };
		if (m?.kind === 'video' && m.width !== undefined && m.height !== undefined) {
			out.width = m.width;
			out.height = m.height;
		}
		if ((m?.kind === 'video' || m?.kind === 'voice') && m.duration !== undefined) out.duration = m.duration;
		if (m?.fileName !== undefined && (m.kind === 'document' || m.kind === 'video')) out.file_name = m.fileName;
		if (m?.mimeType !== undefined && m.kind !== 'photo') out.mime_type = m.mimeType;
		if (m?.size !== undefined) out.file_size = m.size;
		return out;
	}

	/** A user's photo as Telegram gives it: every size, smallest first. */
	photoSizes(ids: string[]): PhotoSize[] {
		return ids.map((id) => {
			const m = this.media.get(id);
			return {
				file_id: id,
				file_unique_id: this.uniqueId(id),
				width: m?.width ?? UNKNOWN_PHOTO_SIZE.width,
				height: m?.height ?? UNKNOWN_PHOTO_SIZE.height,
				file_size: m?.size ?? 0,
			};
		});
	}

	// ---- files (getFile and the download path) ----

	/**
	 * A file's content for getFile and the download path: the bytes kept, or for a file registered
	 * without them the generated placeholder (files.ts); 'dropped' when its bytes were dropped for the
	 * memory limit (MEDIA_BYTES_KEPT_MAX).
	 */
	fileContent(media: MediaRecord): { bytes: Buffer; mimeType: string; generated: boolean } | 'dropped' {
		if (media.bytes) return { bytes: media.bytes, mimeType: media.mimeType ?? 'application/octet-stream', generated: false };
		if (media.dropped) return 'dropped';
		let made = this.placeholders.get(media.id);
		if (!made) {
			made = placeholder(media.kind, media.id, media.size);
			this.placeholders.set(media.id, made);
		}
		return { bytes: made.bytes, mimeType: made.mimeType ?? media.mimeType ?? 'application/octet-stream', generated: true };
	}

	/**
	 * The path getFile gives `bot` for a file, as Telegram writes it (`photos/file_0.jpg`): numbered per
	 * bot and folder from 0, the same path each time for the same file.
	 */
	filePath(bot: BotRecord, media: MediaRecord, content: { mimeType: string; generated: boolean }): string {
		const known = bot.files.byMedia.get(media.id);
		if (known !== undefined) return known;
		const folder = FILE_FOLDERS[media.kind];
		const number = bot.files.next.get(folder) ?? 0;
		bot.files.next.set(folder, number + 1);
		// A placeholder is not the named file: its path says what it is (a photo's is a PNG).
		const extension = pathExtension(media.kind, content.generated ? undefined : media.fileName, content.mimeType);
		const path = `${folder}/file_${number}${extension === undefined ? '' : `.${extension}`}`;
		bot.files.byPath.set(path, media.id);
		bot.files.byMedia.set(media.id, path);
		return path;
	}

	findMessage(chat: ChatRecord, messageId: number): MessageRecord | undefined {
		const m = chat.messages[messageId - 1];
		return m && !m.deleted && m.messageId === messageId ? m : undefined;
	}

	/** The Message object as the Bot API returns it. */
	toMessage(chat: ChatRecord, rec: MessageRecord, withReply = true): Message {
		const from = this.users.get(rec.fromId);
		const msg: Message = {
			message_id: rec.messageId,
			date: rec.date,
			chat: this.messageChat(chat),
			from: clone(from ?? { id: rec.fromId, is_bot: false, first_name: 'Deleted Account' }),
		};
		if (rec.forward) {
			msg.forward_origin = clone(rec.forward.origin);
			msg.forward_date = rec.forward.date;
			if (rec.forward.fromUserId) {
				const u = this.users.get(rec.forward.fromUserId);
				if (u) msg.forward_from = clone(u);
			}
			if (rec.forward.fromChatId) {
				const c = this.chats.get(rec.forward.fromChatId);
				if (c) msg.forward_from_chat = this.messageChat(c);
				if (rec.forward.fromMessageId !== undefined) msg.forward_from_message_id = rec.forward.fromMessageId;
			}
		}
		if (withReply && rec.replyToId !== undefined) {
			const target = this.findMessage(chat, rec.replyToId);
			if (target) msg.reply_to_message = this.toMessage(chat, target, false);
		}
		if (rec.text !== undefined) msg.text = rec.text;
		if (rec.entities !== undefined) msg.entities = clone(rec.entities);
		if (rec.media?.sizes) msg.photo = this.photoSizes(rec.media.sizes);
		else if (rec.media) msg[rec.media.kind] = this.mediaRef(rec.media.id);
		if (rec.caption !== undefined) msg.caption = rec.caption;
		if (rec.captionEntities !== undefined) msg.caption_entities = clone(rec.captionEntities);
		if (rec.editDate !== undefined) msg.edit_date = rec.editDate;
		if (isInlineKeyboard(rec.replyMarkup)) msg.reply_markup = clone(rec.replyMarkup);
		return msg;
	}

	toStored(chat: ChatRecord, rec: MessageRecord): StoredMessage {
		const { reply_markup: _inline, reply_to_message: _reply, ...base } = this.toMessage(chat, rec, false);
		void _inline;
		void _reply;
		const out: StoredMessage = { ...base, pinned: chat.pins.includes(rec.messageId), sent_by_bot: this.botsById.has(rec.fromId) };
		if (rec.replyMarkup !== undefined) out.reply_markup = clone(rec.replyMarkup);
		if (rec.replyToId !== undefined) out.reply_to_message_id = rec.replyToId;
		if (rec.parseMode !== undefined) out.parse_mode = rec.parseMode;
		if (rec.disableNotification !== undefined) out.disable_notification = rec.disableNotification;
		const mediaUrl = rec.media ? this.mediaUrl(rec.media.id) : undefined;
		if (mediaUrl !== undefined) out.media_url = mediaUrl;
		return out;
	}

	history(chatId: string): StoredMessage[] {
		const chat = this.resolveChat(chatId);
		if (!chat) throw new ControlError(`unknown chat ${chatId}`, 404);
		return chat.messages.filter((m) => !m.deleted).map((m) => this.toStored(chat, m));
	}

	appendMessage(chat: ChatRecord, rec: Omit<MessageRecord, 'messageId' | 'date' | 'deleted'>): MessageRecord {
		const full: MessageRecord = { ...rec, messageId: chat.nextMessageId, date: nowSeconds(), deleted: false };
		chat.nextMessageId += 1;
		chat.messages.push(full);
		// Telegram clients clear a bot's "typing…" when its next message arrives.
		chat.actions.delete(rec.fromId);
		return full;
	}

	// ---- chat actions ----

	/** A sendChatAction: recorded, and shown in the chat (replacing the bot's previous action there). */
	recordChatAction(chat: ChatRecord, botId: string, action: string): void {
		const at = Date.now();
		this.chatActions.push({ chatId: chat.id, botId, action, at });
		chat.actions.set(botId, { action, at });
	}

	/** The chat's actions that show now: received less than CHAT_ACTION_MS ago and not ended by the bot's message since. */
	currentActions(chat: ChatRecord): Array<Pick<CurrentChatAction, 'botId' | 'action' | 'at' | 'until'>> {
		const now = Date.now();
		const out: Array<Pick<CurrentChatAction, 'botId' | 'action' | 'at' | 'until'>> = [];
		for (const [botId, { action, at }] of chat.actions) {
			if (now < at + CHAT_ACTION_MS) out.push({ botId, action, at, until: at + CHAT_ACTION_MS });
		}
		return out;
	}

	// ---- updates ----

	/** Whether an update type passes the bot's current allowed_updates (empty list = all). */
	allows(bot: BotRecord, type: string): boolean {
		const list = bot.webhook ? bot.webhook.allowedUpdates ?? bot.allowedUpdates : bot.allowedUpdates;
		return list === undefined || list.length === 0 || list.includes(type);
	}

	/** When each pending update was queued (ms since the epoch): its age, for the webhook's retention. */
	readonly queuedAt = new WeakMap<Update, number>();

	/** Queues an update for a bot; returns it (also when filtered out by allowed_updates, then not queued). */
	queueUpdate(bot: BotRecord, payload: Omit<Update, 'update_id'>): Update {
		const update: Update = { update_id: bot.nextUpdateId, ...payload };
		bot.nextUpdateId += 1;
		const type = update.message ? 'message' : 'callback_query';
		if (this.allows(bot, type)) {
			this.queuedAt.set(update, Date.now());
			bot.pending.push(update);
			this.onQueued(bot);
		}
		return clone(update);
	}

	/** A user's message: stored in the chat and queued for the receiving bot(s). */
	userSends(opts: UserMessage): Update {
		const chat = this.resolveChat(opts.chatId);
		if (!chat) throw new ControlError(`unknown chat ${opts.chatId}`, 404);
		const user = this.users.get(opts.userId);
		if (!user) throw new ControlError(`unknown user ${opts.userId}`);
		if (!this.isActiveMember(chat, user.id)) throw new ControlError(`user ${opts.userId} is not a member of chat ${chat.id}`);
		if (chat.type === 'channel' && !['creator', 'administrator'].includes(chat.members.get(user.id) ?? 'left')) {
			throw new ControlError(`only the creator and administrators post in a channel; user ${opts.userId} is a subscriber`);
		}
		if (opts.media === undefined) {
			if (typeof opts.text !== 'string' || opts.text.length === 0) throw new ControlError('text must be a non-empty string (or send media, with an optional caption)');
			if (opts.caption !== undefined) throw new ControlError('caption goes with media; a message without media has text');
		} else {
			if (opts.text !== undefined) throw new ControlError('a message has text, or media with an optional caption: give the media\'s text as caption');
			if (opts.caption !== undefined && typeof opts.caption !== 'string') throw new ControlError('caption must be a string');
			checkUserMedia(opts.media);
		}
		const receivers = this.receivers(chat, opts.botToken);
		if (opts.replyToMessageId !== undefined && !this.findMessage(chat, opts.replyToMessageId)) {
			throw new ControlError(`message ${opts.replyToMessageId} not found in chat`);
		}
		const media = opts.media === undefined ? undefined : this.addUserMedia(opts.media);
		const caption = media && opts.caption !== '' ? opts.caption : undefined;
		const rec = this.appendMessage(chat, { fromId: user.id, text: opts.text, media, caption, replyToId: opts.replyToMessageId });
		const updates = receivers.map((bot) => ({ bot, update: this.queueUpdate(bot, { message: this.toMessage(chat, rec) }) }));
		return this.primary(updates, opts.botToken);
	}

	/**
	 * A file a user sends, stored as Telegram's clients send it: a photo gets its smaller sizes as
	 * files of their own (PNGs of the photo's colour); documents, voice and video the stated or usual
	 * name, type, dimensions and duration.
	 */
	private addUserMedia(media: UserMedia): NonNullable<MessageRecord['media']> {
		const { kind, bytes } = media;
		if (kind === 'photo') {
			const size = media.width !== undefined && media.height !== undefined ? { width: media.width, height: media.height } : (imageSize(bytes) ?? UNKNOWN_PHOTO_SIZE);
			const mimeType = media.mimeType ?? imageType(bytes) ?? 'image/jpeg';
			const original = this.addMedia({ kind, bytes, mimeType, fileName: media.fileName ?? `photo.${extensionOfType(mimeType) ?? 'jpg'}`, ...size }).mediaId;
			const colour = colourOf(this.media.get(original)?.sha256 ?? '');
			const sizes = smallerSizes(size.width, size.height).map(
				({ width, height }) => this.addMedia({ kind, bytes: solidPng(width, height, colour), mimeType: 'image/png', fileName: `photo_${width}x${height}.png`, width, height }).mediaId,
			);
			return { kind, id: original, sizes: [...sizes, original] };
		}
		const mimeType = media.mimeType ?? typeOfName(media.fileName) ?? MIME_OF_USER_FILE[kind];
		const fileName = media.fileName ?? (kind === 'voice' ? undefined : `${kind}.${extensionOfType(mimeType) ?? 'bin'}`);
		const { mediaId } = this.addMedia({
			kind,
			bytes,
			mimeType,
			fileName,
			width: kind === 'video' ? (media.width ?? USUAL_VIDEO.width) : undefined,
			height: kind === 'video' ? (media.height ?? USUAL_VIDEO.height) : undefined,
			duration: kind === 'video' || kind === 'voice' ? (media.duration ?? 1) : undefined,
		});
		return { kind, id: mediaId };
	}

	/**
	 * Whether clicks carry only what Telegram gives for a message older than 48 hours (an
	 * "inaccessible message": its chat, its message_id and date 0), as the spec allows: it promises
	 * only `message_id` and `chat.id` on a click's message.
	 */
	oldMessages = false;

	/** A new token for a bot (as after a leak): the old token is refused from now on; webhook, queue and chats stay. */
	changeToken(token: string, newToken: string): void {
		const bot = this.bots.get(token);
		if (!bot) throw new ControlError('unknown bot token', 404);
		if (typeof newToken !== 'string' || newToken.length === 0 || newToken.includes('/')) throw new ControlError('newToken must be a non-empty string without "/"');
		if (this.bots.has(newToken)) throw new ControlError('a bot with this token exists already');
		this.bots.delete(token);
		bot.token = newToken;
		this.bots.set(newToken, bot);
		if (this.demo.token === token) this.demo.token = newToken;
	}

	/** A click on an inline button with callback_data. */
	userClicks(opts: { chatId: string; userId: string; messageId: number; data: string; botToken?: string; oldMessage?: boolean }): Update {
		const chat = this.resolveChat(opts.chatId);
		if (!chat) throw new ControlError(`unknown chat ${opts.chatId}`, 404);
		const user = this.users.get(opts.userId);
		if (!user) throw new ControlError(`unknown user ${opts.userId}`);
		if (!this.isActiveMember(chat, user.id)) throw new ControlError(`user ${opts.userId} is not a member of chat ${chat.id}`);
		const rec = this.findMessage(chat, opts.messageId);
		if (!rec) throw new ControlError(`message ${opts.messageId} not found in chat ${chat.id}`, 404);
		const kb = rec.replyMarkup;
		if (!isInlineKeyboard(kb) || !kb.inline_keyboard.some((row) => row.some((b) => b.callback_data === opts.data))) {
			throw new ControlError(`message ${opts.messageId} has no inline button with callback_data ${JSON.stringify(opts.data)}`);
		}
		let bot: BotRecord | undefined;
		if (opts.botToken !== undefined) {
			bot = this.bots.get(opts.botToken);
			if (!bot) throw new ControlError('unknown bot token');
		} else {
			bot = this.botsById.get(rec.fromId) ?? this.bots.get(this.demo.token);
		}
		if (!bot) throw new ControlError('no bot to deliver the callback query to');
		this.callbackCounter += 1;
		const id = String(4200000000000000000n + BigInt(this.callbackCounter));
		this.callbacks.set(id, { id, botId: bot.id, chatId: chat.id, messageId: rec.messageId, fromId: user.id, data: opts.data });
		return this.queueUpdate(bot, {
			callback_query: {
				id,
				from: clone(user),
				message:
					opts.oldMessage === true || this.oldMessages
						? { message_id: rec.messageId, date: 0, chat: { id: chat.id, type: chat.type } }
						: this.toMessage(chat, rec),
				chat_instance: deterministicUuid(`chat-instance:${chat.id}:${bot.id}`),
				data: opts.data,
			},
		});
	}

	private receivers(chat: ChatRecord, botToken?: string): BotRecord[] {
		if (botToken !== undefined) {
			const bot = this.bots.get(botToken);
			if (!bot) throw new ControlError('unknown bot token');
			if (!this.isActiveMember(chat, bot.id)) throw new ControlError('that bot is not a member of the chat');
			return [bot];
		}
		const bots = [...chat.members.keys()].map((id) => this.botsById.get(id)).filter((b): b is BotRecord => b !== undefined && this.isActiveMember(chat, b.id));
		if (bots.length === 0) throw new ControlError('no bot is a member of this chat, nobody would receive the update');
		return bots;
	}

	private primary(updates: Array<{ bot: BotRecord; update: Update }>, botToken?: string): Update {
		const want = botToken ?? this.demo.token;
		return (updates.find((u) => u.bot.token === want) ?? updates[0]).update;
	}
}

/** The type a user's file has when neither its name nor the caller says one. */
const MIME_OF_USER_FILE: Record<MediaKind, string> = { photo: 'image/jpeg', video: 'video/mp4', document: 'application/octet-stream', voice: 'audio/ogg' };

/** The dimensions stated for a user's video when not given (the emulator does not read video headers). */
const USUAL_VIDEO = { width: 1280, height: 720 } as const;

const positiveInteger = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) > 0;

/** A user's file as the control API or a test gives it: refused with a ControlError unless it is one the service takes. */
function checkUserMedia(media: UserMedia): void {
	if (!['photo', 'video', 'document', 'voice'].includes(media.kind)) throw new ControlError('media.kind must be photo, video, document or voice');
	if (!Buffer.isBuffer(media.bytes) || media.bytes.length === 0) throw new ControlError('media needs its content: non-empty bytes (contentBase64 in the control API)');
	if (media.bytes.length > USER_FILE_LIMIT_BYTES) throw new ControlError(`a file users send is at most ${USER_FILE_LIMIT_BYTES} bytes here, got ${media.bytes.length}`);
	for (const name of ['fileName', 'mimeType'] as const) {
		const value = media[name];
		if (value !== undefined && (typeof value !== 'string' || value === '')) throw new ControlError(`media.${name} must be a non-empty string`);
	}
	for (const name of ['width', 'height', 'duration'] as const) {
		const value = media[name];
		if (value !== undefined && !positiveInteger(value)) throw new ControlError(`media.${name} must be a positive integer`);
	}
	if ((media.width === undefined) !== (media.height === undefined)) throw new ControlError('media.width and media.height go together');
}
