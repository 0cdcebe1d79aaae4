import { CHAT_ACTIONS, LIMITS, PARSE_MODES, WEBHOOK_PORTS } from '../spec';
import { DOWNLOAD_LIMIT_BYTES } from './files';
import { checkFormatting } from './formatting';
import { isInlineKeyboard, parseReplyMarkup } from './markup';
import { UPLOAD_LIMIT_BYTES, UploadedFile, isImage } from './multipart';
import { Params } from './params';
import type { BotRecord, ChatRecord, MediaRecord, MessageRecord, World } from './state';
import type { BotCommand, ChatMember, FileInfo, MediaKind, MessageEntity, MessageOrigin, ReplyMarkup, Update } from './types';
import { ApiError, UUID_RE, badRequest, forbidden, isRecord, nowSeconds } from './util';
import type { WebhookPusher } from './webhook';

export interface MethodContext {
	world: World;
	pusher: WebhookPusher;
	bot: BotRecord;
	params: Params;
	allowLocalWebhooks: boolean;
	longPollMaxMs?: number;
	/** aborted when the client goes away before the answer */
	signal: AbortSignal;
}

/** A successful result with a Telegram-style `description` next to it. */
export class Described {
	constructor(
		readonly result: unknown,
		readonly description: string,
	) {}
}

type Handler = (ctx: MethodContext) => unknown;

const CONFLICT_WEBHOOK = "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
const CONFLICT_POLL = 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';

// ---------- helpers ----------

function chatFor(ctx: MethodContext, name = 'chat_id'): ChatRecord {
	const raw = ctx.params.raw[name];
	if (raw === undefined || raw === null || raw === '') throw badRequest(`${name} is empty`);
	if (typeof raw !== 'string') throw badRequest(`field "${name}" must be of type String (a chat UUID or @username)`);
	const chat = ctx.world.resolveChat(raw);
	if (!chat) throw badRequest('chat not found');
	if (!ctx.world.isActiveMember(chat, ctx.bot.id)) throw forbidden('bot is not a member of the chat');
	return chat;
}

function parseMode(p: Params, allowed: readonly string[] = PARSE_MODES): string | undefined {
	const v = p.string('parse_mode');
	if (v === undefined || v === '') return undefined;
	const match = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
	if (!match) throw badRequest(`unsupported parse_mode "${v}": use one of ${allowed.join(', ')}`);
	return match;
}

/** The parse mode of a text or caption, after checking that its markup parses (entities replace it). */
function formatting(p: Params, value: string | undefined, entityList: MessageEntity[] | undefined): string | undefined {
	const mode = parseMode(p);
	if (entityList === undefined) checkFormatting(value, mode);
	return mode;
}

function entities(p: Params, name: string): MessageEntity[] | undefined {
	const v = p.json(name);
	if (v === undefined) return undefined;
	if (!Array.isArray(v) || !v.every(isRecord)) throw badRequest(`field "${name}" must be an Array of MessageEntity objects`);
	for (const e of v) {
		if (typeof e.type !== 'string' || !Number.isInteger(e.offset) || !Number.isInteger(e.length)) {
			throw badRequest(`can't parse entities: each MessageEntity needs "type" (String), "offset" and "length" (Integer)`);
		}
	}
	return v;
}

function text(p: Params, name: string, required: boolean): string | undefined {
	const v = p.string(name);
	if (v === undefined || v.length === 0) {
		if (required) throw badRequest('message text is empty');
		return undefined;
	}
	if (v.length > LIMITS.messageText.max) throw badRequest(`message is too long: text must be ${LIMITS.messageText.min} to ${LIMITS.messageText.max} characters, got ${v.length}`);
	return v;
}

function caption(p: Params): string | undefined {
	const v = p.string('caption');
	if (v === undefined) return undefined;
	if (v.length > LIMITS.caption.max) throw badRequest(`message caption is too long: at most ${LIMITS.caption.max} characters, got ${v.length}`);
	return v;
}

function replyMarkup(p: Params, inlineOnly: boolean): ReplyMarkup | undefined {
	const v = p.raw.reply_markup;
	if (v === undefined || v === null || v === '') return undefined;
	const m = parseReplyMarkup(v, inlineOnly);
	// an empty inline keyboard means "no keyboard" (Telegram)
	return isInlineKeyboard(m) && m.inline_keyboard.length === 0 ? undefined : m;
}

function replyTo(p: Params, chat: ChatRecord, world: World): number | undefined {
	let id = p.int('reply_to_message_id');
	let allowMissing = p.bool('allow_sending_without_reply') === true;
	const rp = p.json('reply_parameters');
	if (id === undefined && rp !== undefined) {
		if (!isRecord(rp) || !Number.isInteger(rp.message_id)) throw badRequest('field "reply_parameters" must be an object with an Integer message_id');
		id = rp.message_id as number;
		if (rp.allow_sending_without_reply === true) allowMissing = true;
	}
	if (id === undefined) return undefined;
	if (!world.findMessage(chat, id)) {
		if (allowMissing) return undefined;
		throw badRequest('message to be replied not found');
	}
	return id;
}

function messageId(p: Params): number {
	return p.requiredInt('message_id');
}

function languageCode(p: Params): string {
	const v = p.string('language_code') ?? '';
	if (v !== '' && !/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/.test(v)) throw badRequest(`language code "${v}" is invalid`);
	return v.toLowerCase();
}

function ownMessage(ctx: MethodContext, chat: ChatRecord, notFound: string): MessageRecord {
	const rec = ctx.world.findMessage(chat, messageId(ctx.params));
	if (!rec) throw badRequest(notFound);
	if (rec.fromId !== ctx.bot.id) throw badRequest("message can't be edited");
	return rec;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const NOT_MODIFIED = 'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

function inlineOf(m: ReplyMarkup | undefined): ReplyMarkup | undefined {
	return isInlineKeyboard(m) ? m : undefined;
}

function sendResult(ctx: MethodContext, chat: ChatRecord, rec: MessageRecord): unknown {
	return ctx.world.toMessage(chat, rec);
}

// ---------- messages ----------

function sendMessage(ctx: MethodContext): unknown {
	const p = ctx.params;
	const chat = chatFor(ctx);
	const t = text(p, 'text', true);
	const ents = entities(p, 'entities');
	const mode = formatting(p, t, ents);
	const rec = ctx.world.appendMessage(chat, {
		fromId: ctx.bot.id,
		text: t,
		entities: ents,
		parseMode: mode,
		replyToId: replyTo(p, chat, ctx.world),
		disableNotification: p.bool('disable_notification'),
		replyMarkup: replyMarkup(p, false),
	});
	return sendResult(ctx, chat, rec);
}

/** A media UUID of the storage, of the method's kind. */
function stored(ctx: MethodContext, kind: MediaKind, field: string, ref: unknown): MediaRecord {
	if (typeof ref !== 'string') throw badRequest(`field "${field}" must be of type String (a media UUID)`);
	const media = UUID_RE.test(ref) ? ctx.world.media.get(ref.toLowerCase()) : undefined;
	if (!media) throw badRequest('wrong file identifier/HTTP URL specified');
	if (media.kind !== kind) throw badRequest(`wrong file identifier: type of file mismatch (${kind} expected, the file is a ${media.kind})`);
	return media;
}

/** A file uploaded with the request (multipart.ts), stored as new media; refused as Telegram refuses it. */
function uploaded(ctx: MethodContext, kind: MediaKind, file: UploadedFile): MediaRecord {
	if (file.size === 0) throw badRequest('file must be non-empty');
	if (file.size > UPLOAD_LIMIT_BYTES) throw new ApiError(413, 'Request Entity Too Large');
	if (kind === 'photo' && !isImage(file.head)) throw badRequest('IMAGE_PROCESS_FAILED');
	const { mediaId } = ctx.world.addMedia({ kind, fileName: file.fileName, mimeType: file.mimeType, size: file.size, sha256: file.sha256, bytes: file.bytes });
	return ctx.world.media.get(mediaId) as MediaRecord;
}

function sendMedia(kind: MediaKind): Handler {
	return (ctx) => {
		const p = ctx.params;
		const chat = chatFor(ctx);
		const field = p.has(kind) ? kind : 'media_id';
		const ref = p.raw[field];
		if (ref === undefined || ref === null || ref === '') throw badRequest(`there is no ${kind} in the request (pass the media UUID in "${kind}")`);
		const media = ref instanceof UploadedFile ? uploaded(ctx, kind, ref) : stored(ctx, kind, field, ref);
		const mediaCaption = caption(p);
		const captionEntities = entities(p, 'caption_entities');
		const mode = formatting(p, mediaCaption, captionEntities);
		const rec = ctx.world.appendMessage(chat, {
			fromId: ctx.bot.id,
			media: { kind, id: media.id },
			caption: mediaCaption,
			captionEntities,
			parseMode: mode,
			replyToId: replyTo(p, chat, ctx.world),
			disableNotification: p.bool('disable_notification'),
			replyMarkup: replyMarkup(p, false),
		});
		return sendResult(ctx, chat, rec);
	};
}

function forwardMessage(ctx: MethodContext): unknown {
	const p = ctx.params;
	const chat = chatFor(ctx, 'chat_id');
	const from = chatFor(ctx, 'from_chat_id');
	const src = ctx.world.findMessage(from, messageId(p));
	if (!src) throw badRequest('message to forward not found');
	let forward: MessageRecord['forward'];
	if (src.forward) {
		forward = src.forward;
	} else if (from.type === 'channel') {
		const origin: MessageOrigin = { type: 'channel', date: src.date, chat: ctx.world.messageChat(from), message_id: src.messageId };
		forward = { origin, fromChatId: from.id, fromMessageId: src.messageId, date: src.date };
	} else {
		const sender = ctx.world.users.get(src.fromId);
		const origin: MessageOrigin = { type: 'user', date: src.date, sender_user: sender ?? { id: src.fromId, is_bot: false, first_name: 'Deleted Account' } };
		forward = { origin, fromUserId: src.fromId, date: src.date };
	}
	const rec = ctx.world.appendMessage(chat, {
		fromId: ctx.bot.id,
		text: src.text,
		entities: src.entities,
		caption: src.caption,
		captionEntities: src.captionEntities,
		media: src.media,
		parseMode: src.parseMode,
		forward,
		disableNotification: p.bool('disable_notification'),
	});
	return sendResult(ctx, chat, rec);
}

function copyMessage(ctx: MethodContext): unknown {
	const p = ctx.params;
	const chat = chatFor(ctx, 'chat_id');
	const from = chatFor(ctx, 'from_chat_id');
	const src = ctx.world.findMessage(from, messageId(p));
	if (!src) throw badRequest('message to copy not found');
	const newCaption = caption(p);
	const newCaptionEntities = entities(p, 'caption_entities');
	const newMode = formatting(p, newCaption, newCaptionEntities);
	const markup = replyMarkup(p, false);
	const isMedia = src.media !== undefined;
	const rec = ctx.world.appendMessage(chat, {
		fromId: ctx.bot.id,
		text: src.text,
		entities: src.entities,
		media: src.media,
		caption: isMedia && p.has('caption') ? newCaption || undefined : src.caption,
		captionEntities: isMedia && p.has('caption') ? newCaptionEntities : src.captionEntities,
		parseMode: isMedia && p.has('caption') ? newMode : src.parseMode,
		replyToId: replyTo(p, chat, ctx.world),
		disableNotification: p.bool('disable_notification'),
		replyMarkup: markup ?? inlineOf(src.replyMarkup),
	});
	return { message_id: rec.messageId };
}

function editMessageText(ctx: MethodContext): unknown {
	const p = ctx.params;
	const chat = chatFor(ctx);
	const rec = ownMessage(ctx, chat, 'message to edit not found');
	const t = text(p, 'text', true);
	const ents = entities(p, 'entities');
	const mode = formatting(p, t, ents);
	const markup = replyMarkup(p, true);
	if (rec.text === undefined) throw badRequest('there is no text in the message to edit');
	if (rec.text === t && same(rec.entities, ents) && rec.parseMode === mode && same(inlineOf(rec.replyMarkup), markup)) throw badRequest(NOT_MODIFIED);
	rec.text = t;
	rec.entities = ents;
	rec.parseMode = mode;
	rec.replyMarkup = markup; // Telegram: an edit without reply_markup removes the inline keyboard
	rec.editDate = nowSeconds();
	return sendResult(ctx, chat, rec);
}

function editMessageCaption(ctx: MethodContext): unknown {
	const p = ctx.params;
	const chat = chatFor(ctx);
	const rec = ownMessage(ctx, chat, 'message to edit not found');
	const c = caption(p) || undefined;
	const ents = entities(p, 'caption_entities');
	const mode = formatting(p, c, ents);
	const markup = replyMarkup(p, true);
	if (!rec.media) throw badRequest('there is no caption in the message to edit');
	if (rec.caption === c && same(rec.captionEntities, ents) && rec.parseMode === mode && same(inlineOf(rec.replyMarkup), markup)) throw badRequest(NOT_MODIFIED);
	rec.caption = c;
	rec.captionEntities = ents;
	rec.parseMode = mode;
	rec.replyMarkup = markup;
	rec.editDate = nowSeconds();
	return sendResult(ctx, chat, rec);
}

function editMessageReplyMarkup(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const rec = ownMessage(ctx, chat, 'message to edit not found');
	const markup = replyMarkup(ctx.params, true);
	if (same(inlineOf(rec.replyMarkup), markup)) throw badRequest(NOT_MODIFIED);
	rec.replyMarkup = markup;
	rec.editDate = nowSeconds();
	return sendResult(ctx, chat, rec);
}

function deleteMessage(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const rec = ctx.world.findMessage(chat, messageId(ctx.params));
	if (!rec) throw badRequest('message to delete not found');
	const status = chat.members.get(ctx.bot.id);
	const mayDelete = rec.fromId === ctx.bot.id || chat.type === 'private' || status === 'administrator' || status === 'creator';
	if (!mayDelete) throw badRequest("message can't be deleted");
	rec.deleted = true;
	chat.pins = chat.pins.filter((id) => id !== rec.messageId);
	return true;
}

function sendChatAction(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const action = ctx.params.string('action');
	if (action === undefined || action === '') throw badRequest('action is empty');
	if (!CHAT_ACTIONS.includes(action)) throw badRequest(`wrong parameter action in request: use one of ${CHAT_ACTIONS.join(', ')}`);
	ctx.world.recordChatAction(chat, ctx.bot.id, action);
	return true;
}

// ---------- files ----------

/**
 * getFile (Telegram's convention; the spec shows no download): any file the service knows — sent by
 * a user or by a bot, uploaded or registered — by its file_id, up to 20 MB, with the path the
 * download serves it at for this bot.
 */
function getFile(ctx: MethodContext): FileInfo {
	const fileId = ctx.params.raw.file_id;
	const media = typeof fileId === 'string' && UUID_RE.test(fileId) ? ctx.world.media.get(fileId.toLowerCase()) : undefined;
	if (!media) throw badRequest('invalid file_id');
	const content = ctx.world.fileContent(media);
	// Telegram's answer for a file it holds but cannot serve now; here: its bytes were dropped for the memory limit.
	if (content === 'dropped') throw badRequest('file is temporarily unavailable');
	if (content.bytes.length > DOWNLOAD_LIMIT_BYTES) throw badRequest('file is too big');
	return { file_id: media.id, file_unique_id: ctx.world.uniqueId(media.id), file_size: content.bytes.length, file_path: ctx.world.filePath(ctx.bot, media, content) };
}

// ---------- chats ----------

function getChat(ctx: MethodContext): unknown {
	return ctx.world.chatInfo(chatFor(ctx));
}

function getChatMember(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const userId = ctx.params.string('user_id');
	if (userId === undefined || userId === '') throw badRequest('user_id is empty');
	const user = ctx.world.users.get(userId) ?? ctx.world.users.get(userId.toLowerCase());
	if (!user) throw badRequest('user not found');
	return ctx.world.chatMember(chat, user);
}

function getChatAdministrators(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	if (chat.type === 'private') throw badRequest('there are no administrators in the private chat');
	const out: ChatMember[] = [];
	for (const wanted of ['creator', 'administrator'] as const) {
		for (const [id, status] of chat.members) {
			const user = ctx.world.users.get(id);
			if (status === wanted && user) out.push(ctx.world.chatMember(chat, user));
		}
	}
	return out;
}

function getChatMemberCount(ctx: MethodContext): unknown {
	return ctx.world.memberCount(chatFor(ctx));
}

function pinChatMessage(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const rec = ctx.world.findMessage(chat, messageId(ctx.params));
	ctx.params.bool('disable_notification');
	if (!rec) throw badRequest('message to pin not found');
	chat.pins = chat.pins.filter((id) => id !== rec.messageId).concat(rec.messageId);
	return true;
}

function unpinChatMessage(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	const id = ctx.params.int('message_id');
	if (id === undefined) {
		chat.pins = chat.pins.slice(0, -1);
		return true;
	}
	if (!ctx.world.findMessage(chat, id)) throw badRequest('message to unpin not found');
	chat.pins = chat.pins.filter((x) => x !== id);
	return true;
}

function unpinAllChatMessages(ctx: MethodContext): unknown {
	const chat = chatFor(ctx);
	chat.pins = [];
	return true;
}

// ---------- callback answers ----------

function answerCallbackQuery(ctx: MethodContext): unknown {
	const p = ctx.params;
	const id = p.string('callback_query_id');
	if (id === undefined || id === '') throw badRequest('callback_query_id is empty');
	const t = p.string('text');
	if (t !== undefined && t.length > LIMITS.callbackAnswerText.max) throw badRequest(`MESSAGE_TOO_LONG: the answer text must be at most ${LIMITS.callbackAnswerText.max} characters, got ${t.length}`);
	const showAlert = p.bool('show_alert') ?? false;
	const url = p.string('url');
	const cacheTime = p.int('cache_time');
	if (cacheTime !== undefined && cacheTime < 0) throw badRequest('cache_time must be non-negative');
	const cb = ctx.world.callbacks.get(id);
	if (!cb || cb.botId !== ctx.bot.id || cb.answer) throw badRequest('query is too old and response timeout expired or query ID is invalid');
	cb.answer = { callback_query_id: id, show_alert: showAlert, at: Date.now() };
	if (t !== undefined) cb.answer.text = t;
	if (url !== undefined) cb.answer.url = url;
	if (cacheTime !== undefined) cb.answer.cache_time = cacheTime;
	return true;
}

// ---------- profile & commands ----------

function setMyName(ctx: MethodContext): unknown {
	const name = ctx.params.string('name');
	const lang = languageCode(ctx.params);
	if (name === undefined || name.length === 0) throw badRequest(`name is empty: the bot name must be ${LIMITS.botName.min} to ${LIMITS.botName.max} characters`);
	if (name.length > LIMITS.botName.max) throw badRequest(`name is too long: the bot name must be ${LIMITS.botName.min} to ${LIMITS.botName.max} characters, got ${name.length}`);
	ctx.bot.names.set(lang, name);
	if (lang === '') ctx.bot.user.first_name = name;
	return true;
}

function getMyName(ctx: MethodContext): unknown {
	const lang = languageCode(ctx.params);
	return { name: ctx.bot.names.get(lang) ?? ctx.bot.names.get('') ?? ctx.bot.user.first_name };
}

function setLocalized(map: Map<string, string>, field: string, max: number, what: string): Handler {
	return (ctx) => {
		const v = ctx.params.string(field) ?? '';
		const lang = languageCode(ctx.params);
		if (v.length > max) throw badRequest(`${what} is too long: at most ${max} characters, got ${v.length}`);
		if (v === '') map.delete(lang);
		else map.set(lang, v);
		return true;
	};
}

function commandKey(ctx: MethodContext): string {
	const scope = ctx.params.json('scope');
	let type = 'default';
	if (scope !== undefined) {
		if (!isRecord(scope) || typeof scope.type !== 'string') throw badRequest('field "scope" must be a BotCommandScope object with a "type"');
		type = scope.type;
		if (typeof scope.chat_id === 'string') type += `:${scope.chat_id}`;
		if (typeof scope.user_id === 'string') type += `:${scope.user_id}`;
	}
	return `${type}|${languageCode(ctx.params)}`;
}

function setMyCommands(ctx: MethodContext): unknown {
	const v = ctx.params.json('commands');
	if (v === undefined) throw badRequest('commands is empty');
	if (!Array.isArray(v)) throw badRequest('field "commands" must be an Array of BotCommand');
	if (v.length > LIMITS.commandsPerList.max) throw badRequest(`too many commands: at most ${LIMITS.commandsPerList.max}, got ${v.length}`);
	const commands: BotCommand[] = v.map((c, i) => {
		if (!isRecord(c) || typeof c.command !== 'string' || typeof c.description !== 'string') {
			throw badRequest(`can't parse BotCommand ${i + 1}: "command" and "description" must be Strings`);
		}
		const name = LIMITS.commandName;
		if (c.command.length < name.min || c.command.length > name.max || !name.pattern.test(c.command)) {
			throw badRequest(`BOT_COMMAND_INVALID: command "${c.command}" must be ${name.min} to ${name.max} characters of a-z, 0-9 and _`);
		}
		const about = LIMITS.commandDescription;
		if (c.description.length < about.min || c.description.length > about.max) {
			throw badRequest(`BOT_COMMAND_DESCRIPTION_INVALID: description of "${c.command}" must be ${about.min} to ${about.max} characters`);
		}
		return { command: c.command, description: c.description };
	});
	const key = commandKey(ctx);
	if (commands.length === 0) ctx.bot.commands.delete(key);
	else ctx.bot.commands.set(key, commands);
	return true;
}

function getMyCommands(ctx: MethodContext): unknown {
	return ctx.bot.commands.get(commandKey(ctx)) ?? [];
}

function deleteMyCommands(ctx: MethodContext): unknown {
	ctx.bot.commands.delete(commandKey(ctx));
	return true;
}

// ---------- webhook ----------

function validateWebhookUrl(url: string, allowLocal: boolean): void {
	let u: URL;
	try {
		u = new URL(url);
	} catch {
		throw badRequest('bad webhook: invalid URL');
	}
	const host = u.hostname.toLowerCase();
	const local = host === '127.0.0.1' || host === 'localhost';
	if (allowLocal && local && (u.protocol === 'http:' || u.protocol === 'https:')) return;
	if (u.protocol !== 'https:') throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
	const port = u.port === '' ? 443 : Number(u.port);
	if (!WEBHOOK_PORTS.includes(port)) throw badRequest(`bad webhook: Webhook can be set up only on ports ${WEBHOOK_PORTS.join(', ')}`);
}

function allowedUpdates(p: Params): string[] | undefined {
	return p.stringArray('allowed_updates');
}

function setWebhook(ctx: MethodContext): unknown {
	const p = ctx.params;
	const url = p.string('url');
	if (url === undefined) throw badRequest('bad webhook: url is required');
	const drop = p.bool('drop_pending_updates') ?? false;
	if (url === '') return deleteWebhookImpl(ctx, drop);
	validateWebhookUrl(url, ctx.allowLocalWebhooks);
	const secret = p.string('secret_token');
	if (secret !== undefined) {
		const { min, max, pattern } = LIMITS.secretToken;
		if (secret.length < min || secret.length > max) throw badRequest(`bad webhook: secret token must be ${min} to ${max} characters, got ${secret.length}`);
		if (!pattern.test(secret)) throw badRequest('bad webhook: secret token contains unallowed characters (allowed: A-Z, a-z, 0-9, _ and -)');
	}
	const connections = LIMITS.maxConnections;
	const maxConnections = p.int('max_connections') ?? connections.default;
	if (maxConnections < connections.min || maxConnections > connections.max) {
		throw badRequest(`bad webhook: max_connections must be ${connections.min} to ${connections.max}, got ${maxConnections}`);
	}
	const allowed = allowedUpdates(p);
	p.string('ip_address');
	const bot = ctx.bot;
	const previous = bot.webhook;
	if (allowed !== undefined) bot.allowedUpdates = allowed;
	bot.webhookGeneration += 1;
	bot.webhook = {
		url,
		maxConnections,
		allowedUpdates: bot.allowedUpdates,
		lastError: null,
		generation: bot.webhookGeneration,
	};
	if (secret !== undefined) bot.webhook.secretToken = secret;
	if (drop) bot.pending = [];
	bot.poller?.wake('conflict-webhook');
	ctx.pusher.wakeSleepers(bot);
	ctx.pusher.kick(bot);
	return new Described(true, previous?.url === url ? 'Webhook is already set' : 'Webhook was set');
}

function deleteWebhookImpl(ctx: MethodContext, drop: boolean): unknown {
	const bot = ctx.bot;
	const had = bot.webhook !== null;
	bot.webhookGeneration += 1; // running push workers notice and stop
	bot.webhook = null;
	if (drop) bot.pending = [];
	ctx.pusher.wakeSleepers(bot);
	return new Described(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
}

function deleteWebhook(ctx: MethodContext): unknown {
	return deleteWebhookImpl(ctx, ctx.params.bool('drop_pending_updates') ?? false);
}

function getWebhookInfo(ctx: MethodContext): unknown {
	const bot = ctx.bot;
	const hook = bot.webhook;
	const info: Record<string, unknown> = {
		url: hook?.url ?? '',
		has_custom_certificate: false,
		pending_update_count: ctx.pusher.pendingCount(bot),
	};
	if (hook) {
		if (hook.lastError) {
			info.last_error_date = hook.lastError.date;
			info.last_error_message = hook.lastError.message;
		}
		info.last_error = hook.lastError ? { ...hook.lastError } : null;
		info.max_connections = hook.maxConnections;
		if (hook.allowedUpdates && hook.allowedUpdates.length > 0) info.allowed_updates = [...hook.allowedUpdates];
	} else {
		info.last_error = null;
	}
	return info;
}

// ---------- long polling ----------

function selectUpdates(ctx: MethodContext, limit: number): Update[] {
	return ctx.bot.pending.filter((u) => ctx.world.allows(ctx.bot, u.message ? 'message' : 'callback_query')).slice(0, limit);
}

async function getUpdates(ctx: MethodContext): Promise<unknown> {
	const p = ctx.params;
	const bot = ctx.bot;
	if (bot.webhook) throw new ApiError(409, CONFLICT_WEBHOOK);
	const offset = p.int('offset');
	const limits = LIMITS.updatesLimit;
	const limit = p.int('limit') ?? limits.default;
	if (limit < limits.min || limit > limits.max) throw badRequest(`limit must be ${limits.min} to ${limits.max}, got ${limit}`);
	const timeouts = LIMITS.updatesTimeout;
	const timeout = p.int('timeout') ?? timeouts.default;
	if (timeout < timeouts.min || timeout > timeouts.max) throw badRequest(`timeout must be ${timeouts.min} to ${timeouts.max} seconds, got ${timeout}`);
	const allowed = allowedUpdates(p);
	if (allowed !== undefined) bot.allowedUpdates = allowed;
	if (offset !== undefined && offset > 0) {
		bot.pending = bot.pending.filter((u) => u.update_id >= offset);
	} else if (offset !== undefined && offset < 0) {
		bot.pending = bot.pending.slice(Math.max(0, bot.pending.length + offset));
	}
	// Telegram: any getUpdates, answered at once or held, terminates one that is waiting.
	bot.poller?.wake('conflict-poll');
	const ready = selectUpdates(ctx, limit);
	if (ready.length > 0 || timeout === 0) return ready;
	// long poll
	const waitMs = Math.min(timeout * 1000, ctx.longPollMaxMs ?? Number.POSITIVE_INFINITY);
	return new Promise((resolve, reject) => {
		const finish = (): void => {
			clearTimeout(timer);
			ctx.signal.removeEventListener('abort', onAbort);
			if (bot.poller === poller) bot.poller = null;
		};
		const poller = {
			wake(reason: 'update' | 'conflict-webhook' | 'conflict-poll' | 'closed'): void {
				if (reason === 'update') {
					const got = selectUpdates(ctx, limit);
					if (got.length === 0) return; // filtered out by allowed_updates: keep waiting
					finish();
					resolve(got);
				} else if (reason === 'closed') {
					finish();
					resolve([]);
				} else {
					finish();
					reject(new ApiError(409, reason === 'conflict-webhook' ? CONFLICT_WEBHOOK : CONFLICT_POLL));
				}
			},
		};
		const onAbort = (): void => {
			finish();
			resolve([]);
		};
		const timer = setTimeout(() => {
			finish();
			resolve(selectUpdates(ctx, limit));
		}, waitMs);
		ctx.signal.addEventListener('abort', onAbort);
		bot.poller = poller;
	});
}

// ---------- registry ----------

export function buildHandlers(): Record<string, Handler> {
	return {
		sendMessage,
		sendPhoto: sendMedia('photo'),
		sendVideo: sendMedia('video'),
		sendDocument: sendMedia('document'),
		sendVoice: sendMedia('voice'),
		forwardMessage,
		copyMessage,
		editMessageText,
		editMessageCaption,
		editMessageReplyMarkup,
		deleteMessage,
		sendChatAction,
		getFile,
		getChat,
		getChatMember,
		getChatAdministrators,
		getChatMemberCount,
		pinChatMessage,
		unpinChatMessage,
		unpinAllChatMessages,
		answerCallbackQuery,
		setMyName,
		getMyName,
		setMyDescription: (ctx) => setLocalized(ctx.bot.descriptions, 'description', LIMITS.botDescription.max, 'description')(ctx),
		getMyDescription: (ctx) => {
			const lang = languageCode(ctx.params);
			return { description: ctx.bot.descriptions.get(lang) ?? ctx.bot.descriptions.get('') ?? '' };
		},
		setMyShortDescription: (ctx) => setLocalized(ctx.bot.shortDescriptions, 'short_description', LIMITS.botShortDescription.max, 'short description')(ctx),
		getMyShortDescription: (ctx) => {
			const lang = languageCode(ctx.params);
			return { short_description: ctx.bot.shortDescriptions.get(lang) ?? ctx.bot.shortDescriptions.get('') ?? '' };
		},
		setMyCommands,
		getMyCommands,
		deleteMyCommands,
		setWebhook,
		getWebhookInfo,
		deleteWebhook,
		getUpdates,
	};
}
