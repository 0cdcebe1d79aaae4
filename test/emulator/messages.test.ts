import type { DemoData, Emulator, Message } from './index';
import { fails, ok, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

const send = (chat_id: string, text: string, extra: Record<string, unknown> = {}): Promise<Message> => ok<Message>(emu, 'sendMessage', { chat_id, text, ...extra });

describe('sendMessage', () => {
	it('returns the Message with sequence ids starting at 1 per chat', async () => {
		const m1 = await send(d.groupChatId, 'hello');
		expect(m1).toMatchObject({ message_id: 1, text: 'hello', chat: { id: d.groupChatId, type: 'group', title: 'Demo Group' }, from: { id: d.botId, is_bot: true } });
		expect(typeof m1.date).toBe('number');
		expect((await send(d.groupChatId, 'again')).message_id).toBe(2);
		expect((await send(d.privateChatId, 'first here')).message_id).toBe(1);
		expect(emu.history(d.groupChatId).map((m) => m.text)).toEqual(['hello', 'again']);
	});

	it('accepts @username for groups and channels', async () => {
		const m = await send(d.groupUsername, 'via username');
		expect(m.chat.id).toBe(d.groupChatId);
		const c = await send(d.channelUsername, 'channel post');
		expect(c.chat).toMatchObject({ id: d.channelChatId, type: 'channel' });
	});

	it('text limit: 32768 UTF-16 code units accepted, 32769 and empty rejected', async () => {
		await expect(send(d.privateChatId, 'x'.repeat(32768))).resolves.toMatchObject({ message_id: 1 });
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x'.repeat(32769) }, 400, /too long/);
		// astral characters count two code units each
		await expect(send(d.privateChatId, '😀'.repeat(16384))).resolves.toBeDefined();
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: `${'😀'.repeat(16384)}x` }, 400, /too long/);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: '' }, 400, /text is empty/);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId }, 400, /text is empty/);
	});

	it('parse_mode HTML/Markdown/MarkdownV2 accepted, others rejected', async () => {
		for (const mode of ['HTML', 'Markdown', 'MarkdownV2']) await send(d.privateChatId, '*x*', { parse_mode: mode });
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x', parse_mode: 'BBCode' }, 400, /parse_mode/);
		expect(emu.history(d.privateChatId)[2].parse_mode).toBe('MarkdownV2');
	});

	it('entities, disable_notification and reply_to_message_id', async () => {
		const first = await send(d.privateChatId, 'first');
		const m = await send(d.privateChatId, 'bold reply', {
			entities: [{ type: 'bold', offset: 0, length: 4 }],
			disable_notification: true,
			reply_to_message_id: first.message_id,
		});
		expect(m.entities).toEqual([{ type: 'bold', offset: 0, length: 4 }]);
		expect(m.reply_to_message).toMatchObject({ message_id: first.message_id, text: 'first' });
		expect(emu.history(d.privateChatId)[1]).toMatchObject({ reply_to_message_id: 1, disable_notification: true });
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x', reply_to_message_id: 99 }, 400, /replied not found/);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x', entities: 'nope' }, 400);
	});

	it('chat errors: unknown chat 400, not a member 403, wrong type 400', async () => {
		await fails(emu, 'sendMessage', { chat_id: '00000000-0000-4000-8000-000000000000', text: 'x' }, 400, /^Bad Request: chat not found$/);
		await fails(emu, 'sendMessage', { chat_id: '@nobody_here', text: 'x' }, 400, /chat not found/);
		await fails(emu, 'sendMessage', { chat_id: d.foreignChatId, text: 'x' }, 403, /^Forbidden: bot is not a member of the chat$/);
		await fails(emu, 'sendMessage', { chat_id: '@foreign_group', text: 'x' }, 403);
		await fails(emu, 'sendMessage', { text: 'x' }, 400, /chat_id is empty/);
		await fails(emu, 'sendMessage', { chat_id: 12345, text: 'x' }, 400);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 42 }, 400);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x', disable_notification: 'yes' }, 400, /Boolean/);
		await fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x', reply_to_message_id: '1' }, 400, /Integer/);
	});

	it('a bot whose status is left cannot send', async () => {
		emu.setMember({ chatId: d.groupChatId, userId: d.botId, status: 'left' });
		await fails(emu, 'sendMessage', { chat_id: d.groupChatId, text: 'x' }, 403);
	});
});

describe('media', () => {
	it.each(['photo', 'video', 'document', 'voice'] as const)('send%s with the seeded media UUID', async (kind) => {
		const method = `send${kind[0].toUpperCase()}${kind.slice(1)}`;
		const m = await ok<Message>(emu, method, { chat_id: d.groupChatId, [kind]: d.media[kind], caption: 'cap', parse_mode: 'HTML' });
		expect(m[kind]).toMatchObject({ file_id: d.media[kind] });
		expect(m.caption).toBe('cap');
		expect(emu.history(d.groupChatId)[0]).toMatchObject({ caption: 'cap', [kind]: { file_id: d.media[kind] } });
	});

	it('sendPhoto accepts media_id as an alias of photo', async () => {
		const m = await ok<Message>(emu, 'sendPhoto', { chat_id: d.privateChatId, media_id: d.media.photo });
		expect(m.photo).toMatchObject({ file_id: d.media.photo });
	});

	it('unknown media, missing media and kind mismatch are 400', async () => {
		await fails(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: '11111111-1111-4111-8111-111111111111' }, 400, /wrong file identifier/);
		await fails(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: 'not-a-uuid' }, 400, /wrong file identifier/);
		await fails(emu, 'sendPhoto', { chat_id: d.privateChatId }, 400, /no photo/);
		await fails(emu, 'sendVideo', { chat_id: d.privateChatId, video: d.media.photo }, 400, /mismatch/);
		await fails(emu, 'sendPhoto', { chat_id: d.foreignChatId, photo: d.media.photo }, 403);
	});

	it('caption limit: 32768 accepted, 32769 rejected', async () => {
		await ok(emu, 'sendDocument', { chat_id: d.privateChatId, document: d.media.document, caption: 'c'.repeat(32768) });
		await fails(emu, 'sendDocument', { chat_id: d.privateChatId, document: d.media.document, caption: 'c'.repeat(32769) }, 400, /caption is too long/);
	});
});

describe('forwardMessage and copyMessage', () => {
	it('forwardMessage keeps the original sender', async () => {
		const u = await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'from a human' });
		const f = await ok<Message>(emu, 'forwardMessage', { chat_id: d.privateChatId, from_chat_id: d.groupChatId, message_id: u.message?.message_id, disable_notification: true });
		expect(f).toMatchObject({ chat: { id: d.privateChatId }, from: { id: d.botId }, text: 'from a human', forward_from: { id: d.userId } });
		expect(f.forward_origin).toMatchObject({ type: 'user', sender_user: { id: d.userId } });
		await fails(emu, 'forwardMessage', { chat_id: d.privateChatId, from_chat_id: d.groupChatId, message_id: 77 }, 400, /not found/);
		await fails(emu, 'forwardMessage', { chat_id: d.privateChatId, from_chat_id: d.foreignChatId, message_id: 1 }, 403);
	});

	it('forwarding from a channel gives a channel origin', async () => {
		const post = await send(d.channelChatId, 'news');
		const f = await ok<Message>(emu, 'forwardMessage', { chat_id: d.groupChatId, from_chat_id: d.channelUsername, message_id: post.message_id });
		expect(f.forward_origin).toMatchObject({ type: 'channel', chat: { id: d.channelChatId }, message_id: post.message_id });
	});

	it('copyMessage returns {message_id}, without forward header, with a new caption', async () => {
		const p = await ok<Message>(emu, 'sendPhoto', { chat_id: d.groupChatId, photo: d.media.photo, caption: 'old' });
		await send(d.privateChatId, 'occupy id 1');
		const r = await ok<{ message_id: number }>(emu, 'copyMessage', { chat_id: d.privateChatId, from_chat_id: d.groupChatId, message_id: p.message_id, caption: 'new' });
		expect(r).toEqual({ message_id: 2 });
		const copy = emu.history(d.privateChatId)[1];
		expect(copy).toMatchObject({ caption: 'new', photo: { file_id: d.media.photo } });
		expect(copy.forward_origin).toBeUndefined();
		await fails(emu, 'copyMessage', { chat_id: d.privateChatId, from_chat_id: d.groupChatId, message_id: 50 }, 400, /not found/);
		await fails(emu, 'copyMessage', { chat_id: d.privateChatId, from_chat_id: d.groupChatId, message_id: p.message_id, caption: 'c'.repeat(32769) }, 400);
	});
});

describe('editing', () => {
	it('editMessageText edits own messages and returns the edited Message', async () => {
		const m = await send(d.privateChatId, 'v1');
		const e = await ok<Message>(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: m.message_id, text: 'v2', parse_mode: 'HTML' });
		expect(e).toMatchObject({ message_id: m.message_id, text: 'v2' });
		expect(typeof e.edit_date).toBe('number');
		expect(emu.history(d.privateChatId)[0].text).toBe('v2');
	});

	it('editMessageText errors: not found, not own, too long, not modified', async () => {
		const own = await send(d.privateChatId, 'mine');
		const theirs = await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text: 'user text' });
		await fails(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: 99, text: 'x' }, 400, /not found/);
		await fails(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: theirs.message?.message_id, text: 'x' }, 400, /^Bad Request: message can't be edited$/);
		await fails(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: own.message_id, text: 'x'.repeat(32769) }, 400);
		await ok(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: own.message_id, text: 'x'.repeat(32768) });
		await fails(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: own.message_id, text: 'x'.repeat(32768) }, 400, /not modified/);
		const photo = await ok<Message>(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: d.media.photo });
		await fails(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: photo.message_id, text: 'x' }, 400, /no text/);
	});

	it('editMessageCaption edits media captions; a text message has no caption', async () => {
		const p = await ok<Message>(emu, 'sendVideo', { chat_id: d.groupChatId, video: d.media.video, caption: 'a' });
		const e = await ok<Message>(emu, 'editMessageCaption', { chat_id: d.groupChatId, message_id: p.message_id, caption: 'b', parse_mode: 'Markdown' });
		expect(e.caption).toBe('b');
		await fails(emu, 'editMessageCaption', { chat_id: d.groupChatId, message_id: p.message_id, caption: 'c'.repeat(32769) }, 400);
		const t = await send(d.groupChatId, 'text');
		await fails(emu, 'editMessageCaption', { chat_id: d.groupChatId, message_id: t.message_id, caption: 'x' }, 400, /no caption/);
		const u = await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'hi' });
		await fails(emu, 'editMessageCaption', { chat_id: d.groupChatId, message_id: u.message?.message_id, caption: 'x' }, 400, /can't be edited/);
	});

	it('editMessageReplyMarkup sets and removes the inline keyboard', async () => {
		const m = await send(d.privateChatId, 'kb');
		const kb = { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] };
		const e = await ok<Message>(emu, 'editMessageReplyMarkup', { chat_id: d.privateChatId, message_id: m.message_id, reply_markup: kb });
		expect(e.reply_markup).toEqual(kb);
		const removed = await ok<Message>(emu, 'editMessageReplyMarkup', { chat_id: d.privateChatId, message_id: m.message_id });
		expect(removed.reply_markup).toBeUndefined();
		expect(emu.history(d.privateChatId)[0].reply_markup).toBeUndefined();
		await fails(emu, 'editMessageReplyMarkup', { chat_id: d.privateChatId, message_id: 42 }, 400, /not found/);
	});
});

describe('deleteMessage and sendChatAction', () => {
	it('deletes; a second delete is "message to delete not found"', async () => {
		const m = await send(d.groupChatId, 'bye');
		await send(d.groupChatId, 'stays');
		await expect(ok(emu, 'deleteMessage', { chat_id: d.groupChatId, message_id: m.message_id })).resolves.toBe(true);
		expect(emu.history(d.groupChatId).map((x) => x.text)).toEqual(['stays']);
		await fails(emu, 'deleteMessage', { chat_id: d.groupChatId, message_id: m.message_id }, 400, /^Bad Request: message to delete not found$/);
		await fails(emu, 'deleteMessage', { chat_id: d.groupChatId }, 400, /message_id/);
	});

	it('a non-admin bot cannot delete other users\' group messages', async () => {
		emu.setMember({ chatId: d.groupChatId, userId: d.botId, status: 'member' });
		const u = await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'keep me' });
		await fails(emu, 'deleteMessage', { chat_id: d.groupChatId, message_id: u.message?.message_id }, 400, /can't be deleted/);
	});

	it('sendChatAction takes chat_id + action from the spec list', async () => {
		await expect(ok(emu, 'sendChatAction', { chat_id: d.privateChatId, action: 'typing' })).resolves.toBe(true);
		await ok(emu, 'sendChatAction', { chat_id: d.groupChatId, action: 'find_location' });
		expect(emu.chatActions().map((a) => a.action)).toEqual(['typing', 'find_location']);
		await fails(emu, 'sendChatAction', { chat_id: d.privateChatId, action: 'dancing' }, 400, /action/);
		await fails(emu, 'sendChatAction', { chat_id: d.privateChatId }, 400, /action/);
		await fails(emu, 'sendChatAction', { chat_id: d.foreignChatId, action: 'typing' }, 403);
	});
});
